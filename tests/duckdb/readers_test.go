package duckdb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/export"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/short"
)

// readers returns node when DuckDB, hyparquet and polars are installed
// (npm ci in tests/duckdb; polarsMissing says what more polars needs), or
// skips.
func readers(t *testing.T) string {
	node := duckdb(t)
	for _, m := range []string{"hyparquet", "hyparquet-compressors"} {
		if _, err := os.Stat(filepath.Join("node_modules", m)); err != nil {
			msg := m + " is not installed here (needs `npm ci` in tests/duckdb)"
			require.NotEqual(t, "1", os.Getenv("CYCLEABI_REQUIRE_DUCKDB"), msg)
			t.Skip(msg)
		}
	}
	if msg := polarsMissing(node); msg != "" {
		require.NotEqual(t, "1", os.Getenv("CYCLEABI_REQUIRE_DUCKDB"), msg)
		t.Skip(msg)
	}
	return node
}

// readerOutput is what readers.mjs prints of one file.
type readerOutput struct {
	DuckDB    []map[string]string `json:"duckdb"`
	Hyparquet []map[string]string `json:"hyparquet"`
	Polars    []map[string]string `json:"polars"`
	// PolarsSchema is each column's name and type as polars reads them.
	PolarsSchema [][2]string `json:"polarsSchema"`
	Statistics   [][]struct {
		Path, Nulls, Min, Max string
	} `json:"statistics"`
}

// wideCapture is a capture of 24 cube slots (72 cores) holding n records,
// spread over the cores in turn, with start cycles from base on: its
// records export to n/export.RowGroupRows row groups and more. Owners,
// task ids and descriptors vary, and every fourth record's owner is
// 0xffffffff, so that unsigned columns reach their top.
func wideCapture(t *testing.T, n int, base uint64) []byte {
	t.Helper()
	perCore := (n + 71) / 72
	capacity := uint32((perCore + 15) / 16 * 16)
	b := capturetest.New(24, capacity, capacity)
	type core struct {
		t  abi.CoreType
		id uint32
	}
	var cores []core
	for i := range uint32(24) {
		cores = append(cores, core{abi.CoreTypeAIC, i})
	}
	for i := range uint32(48) {
		cores = append(cores, core{abi.CoreTypeAIV, i})
	}
	at := make([]uint64, len(cores))
	for i, c := range cores {
		at[i] = base + uint64(i)
		b.Enter(c.t, c.id, at[i])
	}
	for i := range n {
		k := i % len(cores)
		c := cores[k]
		start := at[k] + 3
		end := start + 10 + uint64(i%97)
		owner := uint32(i % 1000)
		if i%4 == 0 {
			owner = 0xffffffff
		}
		b.Write(c.t, c.id, abi.ProfileRecord{StartCycle: start, EndCycle: end, DescID: 0x20000 + uint32(i%7), TaskID: uint32(i), OwnerID: owner})
		at[k] = end
	}
	return b.Buf
}

// TestReadersAgree: every table of an export (records, cores, ranks),
// with the records at 1, 3 and 7 row groups, of plain captures and of a
// window's invocations, reads back cell for cell the same in three
// readers written apart from export's writer and from each other:
// parquet-go (Go, here), DuckDB (C++), hyparquet (JavaScript) and polars
// (Rust), readers.mjs running the last three. Cycles past 2^63 are read
// as unsigned by all four. Each
// column chunk's null count and bounds, as hyparquet reads them, are
// those of its cells as parquet-go reads them, computed here; polars'
// JS API offers no statistics, so its columns' types are checked instead.
func TestReadersAgree(t *testing.T) {
	short.Skip(t, "exports 100,000 records and reads them with three readers in node")
	node := readers(t)
	dir := filepath.Join(t.TempDir(), "out")
	w, err := export.Create(dir)
	require.NoError(t, err)
	defer w.Abort()
	step := int64(7)
	for i, c := range []struct {
		records int
		base    uint64
		window  bool
	}{
		{records: 2000, base: 1_000_000},
		{records: 2*export.RowGroupRows + 1000, base: 1 << 40},
		{records: 6*export.RowGroupRows + 5, base: 1<<63 + 12345}, // past int64: read as unsigned or wrong
		{records: 3000, base: 5_000_000, window: true},
	} {
		capt, err := capture.FromBytes(fmt.Sprintf("rank%d.bin", i), wideCapture(t, c.records, c.base))
		require.NoError(t, err)
		d, err := decode.Decode(capt, capture.Request{})
		require.NoError(t, err)
		o := analyze.Options{Rank: uint32(i), FrequencyMHz: mhz}
		if c.window {
			dirn := "backward"
			o.Invocation = &analyze.Invocation{ID: 3, Step: &step, Direction: &dirn}
		}
		_, err = w.Add(d, o)
		require.NoError(t, err)
	}
	require.NoError(t, w.Commit())
	files, err := filepath.Glob(filepath.Join(dir, "*", "*", "*.parquet"))
	require.NoError(t, err, "files")
	require.Len(t, files, 12, "files")
	in, _ := json.Marshal(files)
	cmd := exec.Command(node, "readers.mjs")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoErrorf(t, err, "readers.mjs\n%s", stderr.String())
	var got map[string]readerOutput
	require.NoError(t, json.Unmarshal(out, &got))
	groups := map[int]bool{}
	for _, f := range files {
		want, chunks := goRead(t, f)
		if strings.Contains(f, "records") {
			groups[len(chunks)] = true
		}
		g := got[f]
		for _, r := range []struct {
			name string
			rows []map[string]string
		}{{"DuckDB", g.DuckDB}, {"hyparquet", g.Hyparquet}, {"polars", g.Polars}} {
			if !assert.Lenf(t, r.rows, len(want), "%s: %s reads", f, r.name) {
				continue
			}
			for i := range want {
				if !assert.Truef(t, mapsEqual(r.rows[i], want[i]), "%s row %d: %s reads\n%v\nparquet-go\n%v", f, i, r.name, r.rows[i], want[i]) {
					break
				}
			}
		}
		checkPolarsSchema(t, f, g.PolarsSchema)
		require.Lenf(t, g.Statistics, len(chunks), "%s: hyparquet reads", f)
		for gi, cols := range g.Statistics {
			for _, c := range cols {
				st, ok := chunks[gi][c.Path]
				if !assert.Truef(t, ok, "%s group %d: hyparquet reads a column %s parquet-go does not", f, gi, c.Path) {
					continue
				}
				assert.Equalf(t, strconv.Itoa(st.nulls), c.Nulls, "%s group %d %s: null count, the cells have %d", f, gi, c.Path, st.nulls)
				if c.Min == "null" { // no bounds written (the records' strings)
					continue
				}
				assert.Equalf(t, st.min, c.Min, "%s group %d %s: lower bound, the cells'", f, gi, c.Path)
				assert.Equalf(t, st.max, c.Max, "%s group %d %s: upper bound, the cells'", f, gi, c.Path)

			}
		}
	}
	for _, n := range []int{1, 3, 7} {
		assert.Truef(t, groups[n], "no records file of %d row groups (%v): the test lost a case", n, groups)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// chunkCells is what one column chunk's cells say of its statistics.
type chunkCells struct {
	nulls    int
	min, max string
	less     func(a, b string) bool
}

// openParquet opens path with parquet-go, closed when the test ends.
func openParquet(t *testing.T, path string) *parquet.File {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	require.NoError(t, err)
	pf, err := parquet.OpenFile(f, st.Size())
	require.NoError(t, err)
	return pf
}

// goRead reads a file with parquet-go: each row's cells in readers.mjs's
// canonical text, and per row group and leaf column (by its dotted path)
// the null count and the least and greatest cell in the column's order.
func goRead(t *testing.T, path string) ([]map[string]string, []map[string]*chunkCells) {
	t.Helper()
	pf := openParquet(t, path)
	unsigned := map[string]bool{}
	for _, leaf := range pf.Schema().Columns() {
		col, _ := pf.Schema().Lookup(leaf...)
		if lt := col.Node.Type().LogicalType(); lt != nil && strings.HasPrefix(lt.String(), "INT(") && strings.HasSuffix(lt.String(), ",false)") {
			unsigned[leaf[0]] = true
		}
	}
	var rows []map[string]string
	var chunks []map[string]*chunkCells
	for _, rg := range pf.RowGroups() {
		cells := map[string]*chunkCells{}
		note := func(path, v string, numeric bool) {
			c := cells[path]
			if c == nil {
				c = &chunkCells{less: func(a, b string) bool { return a < b }}
				if numeric {
					c.less = numLess
				}
				cells[path] = c
			}
			if v == "null" {
				c.nulls++
				return
			}
			if c.min == "" || c.less(v, c.min) {
				c.min = v
			}
			if c.max == "" || c.less(c.max, v) {
				c.max = v
			}
		}
		rr := rg.Rows()
		buf := make([]parquet.Row, 256)
		for {
			n, err := rr.ReadRows(buf)
			for _, row := range buf[:n] {
				m := map[string]any{}
				require.NoError(t, pf.Schema().Reconstruct(&m, row))
				out := map[string]string{}
				for k, v := range m {
					if mv, ok := v.(map[string]any); ok {
						keys := slices.Sorted(func(yield func(string) bool) {
							for key := range mv {
								if !yield(key) {
									return
								}
							}
						})
						var parts []string
						for _, key := range keys {
							parts = append(parts, key+":"+canon(mv[key], false))
							note(k+".key_value.key", key, false)
							note(k+".key_value.value", canon(mv[key], false), true)
						}
						out[k] = "{" + strings.Join(parts, ",") + "}"
						continue
					}
					out[k] = canon(v, unsigned[k])
					_, isString := v.(string)
					note(k, out[k], !isString)
				}
				rows = append(rows, out)
			}
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
		}
		rr.Close()
		chunks = append(chunks, cells)
	}
	return rows, chunks
}

// canon is a cell in readers.mjs's canonical text.
func canon(v any, unsigned bool) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case int64:
		if unsigned {
			return strconv.FormatUint(uint64(x), 10)
		}
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64: // JavaScript's String(x) between 1e-6 and 1e21, where the tables' floats lie
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// numLess orders canonical numbers: integers (any sign, any width) by
// value, floats by value.
func numLess(a, b string) bool {
	if ai, err := strconv.ParseInt(a, 10, 64); err == nil {
		if bi, err := strconv.ParseInt(b, 10, 64); err == nil {
			return ai < bi
		}
	}
	if au, err := strconv.ParseUint(a, 10, 64); err == nil {
		if bu, err := strconv.ParseUint(b, 10, 64); err == nil {
			return au < bu
		}
		if strings.HasPrefix(b, "-") {
			return false
		}
	}
	af, _ := strconv.ParseFloat(a, 64)
	bf, _ := strconv.ParseFloat(b, 64)
	return af < bf
}
