package pq_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/export/internal/pq"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// column is a test column: its description and its values by row, each a
// []any of the row's entries (one for a flat column: nil for null; a map's
// keys and values alternating).
type column struct {
	col  pq.Column
	rows [][]any
}

// data builds the pq.Data of rows [lo, hi) of c: one Data, or a map's two.
func (c *column) data(lo, hi int, indexed bool) []pq.Data {
	var d, v pq.Data
	if c.col.Type == pq.Map {
		for _, r := range c.rows[lo:hi] {
			if len(r) == 0 {
				d.Def, d.Rep = append(d.Def, 0), append(d.Rep, 0)
				continue
			}
			for k := 0; k < len(r); k += 2 {
				d.Def, d.Rep = append(d.Def, 1), append(d.Rep, uint8(min(k, 1)))
				d.Strings = append(d.Strings, r[k].(string))
				addValue(&v, r[k+1])
			}
		}
		v.Def, v.Rep = d.Def, d.Rep
		return []pq.Data{d, v}
	}
	if c.col.Optional {
		d.Def = []uint8{}
	}
	for _, r := range c.rows[lo:hi] {
		if c.col.Optional {
			d.Def = append(d.Def, uint8(min(len(r), 1)))
		}
		if len(r) == 1 {
			addValue(&d, r[0])
		}
	}
	if indexed && c.col.Type == pq.String && c.col.Encoding == pq.Dict {
		// A dictionary with an unused entry and the values' entries in
		// reverse order of use.
		dict := []string{"never used"}
		for _, s := range slices.Backward(d.Strings) {
			if !slices.Contains(dict, s) {
				dict = append(dict, s)
			}
		}
		d.Index = []uint32{}
		for _, s := range d.Strings {
			d.Index = append(d.Index, uint32(slices.Index(dict, s)))
		}
		d.Strings = dict
	}
	return []pq.Data{d}
}

func addValue(d *pq.Data, v any) {
	switch v := v.(type) {
	case int64:
		d.Ints = append(d.Ints, uint64(v))
	case uint64:
		d.Ints = append(d.Ints, v)
	case float64:
		d.Doubles = append(d.Doubles, v)
	case string:
		d.Strings = append(d.Strings, v)
	}
}

// write writes the columns' rows as a file of row groups of the sizes
// given (summing to the rows).
func write(t require.TestingT, name string, cols []column, groups []int, indexed bool) ([]byte, *pq.Schema) {
	var spec []pq.Column
	for _, c := range cols {
		spec = append(spec, c.col)
	}
	s, err := pq.NewSchema(name, spec...)
	require.NoError(t, err)
	var b bytes.Buffer
	w := pq.NewWriter(&b, s, "pq test", [2]string{"k", "v"}, [2]string{"empty", ""})
	lo := 0
	for _, n := range groups {
		var data []pq.Data
		for i := range cols {
			data = append(data, cols[i].data(lo, lo+n, indexed)...)
		}
		require.NoError(t, w.Write(data, n))
		lo += n
	}
	require.NoError(t, w.Close())
	return b.Bytes(), s
}

// readBack reads a file with parquet-go, page by page, into rows like the
// columns' (every value an int64 or uint64 as its column is signed, a
// float64 or a string).
func readBack(t require.TestingT, b []byte, cols []column) ([][][]any, *parquet.File) {
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err, "parquet-go refuses the file")
	got := make([][][]any, len(cols))
	for _, rg := range pf.RowGroups() {
		chunks := rg.ColumnChunks()
		leaf := 0
		for i, c := range cols {
			vals := readChunk(t, chunks[leaf])
			leaf++
			if c.col.Type != pq.Map {
				for _, v := range vals {
					got[i] = append(got[i], entry(c.col, v))
				}
				continue
			}
			mapVals := readChunk(t, chunks[leaf])
			leaf++
			for k, v := range vals {
				if v.RepetitionLevel() == 0 {
					got[i] = append(got[i], []any{})
				}
				if v.DefinitionLevel() == 1 {
					r := &got[i][len(got[i])-1]
					*r = append(*r, string(v.ByteArray()), entry(*c.col.Value, mapVals[k])[0])
				}
			}
		}
	}
	return got, pf
}

func readChunk(t require.TestingT, cc parquet.ColumnChunk) []parquet.Value {
	pages := cc.Pages()
	defer pages.Close()
	var out []parquet.Value
	for {
		p, err := pages.ReadPage()
		if err != nil {
			require.EqualError(t, err, "EOF", "reading a page")
			return out
		}
		vals := make([]parquet.Value, p.NumValues())
		n, err := p.Values().ReadValues(vals)
		require.Equalf(t, len(vals), n, "values read of the page's (%v)", err)
		for _, v := range vals {
			out = append(out, v.Clone())
		}
	}
}

// entry is a value as the columns hold it.
func entry(c pq.Column, v parquet.Value) []any {
	if v.IsNull() {
		return nil
	}
	switch c.Type {
	case pq.Int:
		var x int64
		if c.Bits == 64 {
			x = v.Int64()
		} else {
			x = int64(v.Int32())
		}
		if c.Signed {
			return []any{x}
		}
		return []any{uint64(x) & (math.MaxUint64 >> (64 - c.Bits))}
	case pq.Double:
		return []any{v.Double()}
	}
	return []any{string(v.ByteArray())}
}

// same compares rows, doubles by their bits.
func same(a, b [][]any) bool {
	return slices.EqualFunc(a, b, func(x, y []any) bool {
		return slices.EqualFunc(x, y, func(p, q any) bool {
			if f, ok := p.(float64); ok {
				g, ok := q.(float64)
				return ok && math.Float64bits(f) == math.Float64bits(g)
			}
			return p == q
		})
	})
}

// genColumn draws a column and its values for rows rows.
func genColumn(t *rapid.T, name string, rows int) column {
	typ := rapid.SampledFrom([]pq.Type{pq.Int, pq.Int, pq.Double, pq.String, pq.Map}).Draw(t, name+" type")
	c := pq.Column{Name: name, Type: typ, Compress: rapid.Bool().Draw(t, name+" zstd"), Bounds: rapid.Bool().Draw(t, name+" bounds")}
	switch typ {
	case pq.Int:
		c.Bits = rapid.SampledFrom([]int{8, 16, 32, 64}).Draw(t, name+" bits")
		c.Signed = rapid.Bool().Draw(t, name+" signed")
		c.Encoding = rapid.SampledFrom([]pq.Encoding{pq.Plain, pq.Dict, pq.Delta}).Draw(t, name+" encoding")
	case pq.Double, pq.String:
		c.Encoding = rapid.SampledFrom([]pq.Encoding{pq.Plain, pq.Dict}).Draw(t, name+" encoding")
	case pq.Map:
		c.Value = &pq.Column{Type: pq.Int, Bits: 32}
	}
	c.Optional = typ != pq.Map && rapid.Bool().Draw(t, name+" optional")
	out := column{col: c}
	value := valueGen(c)
	if typ == pq.Map {
		value = valueGen(*c.Value)
	}
	nulls := rapid.IntRange(0, 3).Draw(t, name+" nulls")   // in 4
	sticky := rapid.IntRange(0, 9).Draw(t, name+" sticky") // in 10: a row repeats the one before
	for range rows {
		switch {
		case len(out.rows) > 0 && rapid.IntRange(0, 9).Draw(t, name+" repeat") < sticky:
			out.rows = append(out.rows, out.rows[len(out.rows)-1])
		case typ == pq.Map:
			var r []any
			for k := range rapid.IntRange(0, 3).Draw(t, name+" entries") {
				r = append(r, fmt.Sprint("k", k), value.Draw(t, name+" value"))
			}
			out.rows = append(out.rows, r)
		case c.Optional && rapid.IntRange(0, 3).Draw(t, name+" null") < nulls:
			out.rows = append(out.rows, nil)
		default:
			out.rows = append(out.rows, []any{value.Draw(t, name+" value")})
		}
	}
	return out
}

// valueGen draws a column's values: few distinct ones, its extremes, runs
// and climbs (what the encodings make short), and any.
func valueGen(c pq.Column) *rapid.Generator[any] {
	switch c.Type {
	case pq.Double:
		return rapid.Custom(func(t *rapid.T) any {
			return rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1.5, -2, math.NaN(), math.Inf(1), math.MaxFloat64, rapid.Float64().Draw(t, "f")}).Draw(t, "double")
		})
	case pq.String:
		return rapid.Custom(func(t *rapid.T) any {
			return rapid.SampledFrom([]string{"", "AIC", "AIV", "é", strings.Repeat("x", 300), rapid.String().Draw(t, "s")}).Draw(t, "string")
		})
	}
	mask := uint64(math.MaxUint64) >> (64 - c.Bits)
	return rapid.Custom(func(t *rapid.T) any {
		v := rapid.SampledFrom([]uint64{0, 1, 2, 7, mask, mask >> 1, mask>>1 + 1, rapid.Uint64().Draw(t, "u")}).Draw(t, "int") & mask
		if c.Signed {
			return int64(v<<(64-c.Bits)) >> (64 - c.Bits)
		}
		return v
	})
}

// TestRoundTrip: files of random columns (every type, encoding,
// repetition and codec), in row groups of random sizes, read back by
// parquet-go as they were written, the schema as described, the
// statistics the values' own.
func TestRoundTrip(t *testing.T) { rapid.Check(t, propRoundTrip) }

func FuzzRoundTrip(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propRoundTrip)) }

func propRoundTrip(t *rapid.T) {
	{
		rows := rapid.IntRange(0, 1200).Draw(t, "rows")
		var cols []column
		for i := range rapid.IntRange(1, 5).Draw(t, "columns") {
			cols = append(cols, genColumn(t, fmt.Sprint("c", i), rows))
		}
		var groups []int
		for left := rows; left > 0; {
			n := rapid.IntRange(1, left).Draw(t, "group")
			groups = append(groups, n)
			left -= n
		}
		indexed := rapid.Bool().Draw(t, "indexed")
		b, s := write(t, "t", cols, groups, indexed)
		got, pf := readBack(t, b, cols)
		require.Equalf(t, s.String(), pf.Schema().String(), "parquet-go reads the schema\nwritten as\n%s", s)
		require.Equal(t, int64(rows), pf.NumRows(), "rows")
		require.Len(t, pf.RowGroups(), len(groups), "row groups")
		for i, c := range cols {
			require.Truef(t, same(got[i], c.rows), "column %s reads back\n%v\nwritten\n%v", c.col.Name, got[i], c.rows)
		}
		checkStatistics(t, pf, cols, groups)
		checkOffsets(t, pf)
	}
}

// checkOffsets: the row groups' chunks tile the file from its first
// magic on, in column order, each named by the offset of its first page
// (file_offset, and the dictionary's offset when it has one, else the
// data page's), and each row group starts at its first chunk.
func checkOffsets(t require.TestingT, pf *parquet.File) {
	at := int64(4) // past "PAR1"
	for g, rg := range pf.Metadata().RowGroups {
		require.Equalf(t, at, rg.FileOffset, "row group %d: file_offset", g)
		var size int64
		for k, cc := range rg.Columns {
			first := cc.MetaData.DataPageOffset
			if cc.MetaData.DictionaryPageOffset != 0 {
				first = cc.MetaData.DictionaryPageOffset
			}
			require.Equalf(t, at, cc.FileOffset, "row group %d, chunk %d: file_offset", g, k)
			require.Equalf(t, at, first, "row group %d, chunk %d: first page", g, k)
			at += cc.MetaData.TotalCompressedSize
			size += cc.MetaData.TotalCompressedSize
		}
		require.Equalf(t, size, rg.TotalCompressedSize, "row group %d: total_compressed_size, want its chunks'", g)
	}
}

// checkStatistics: every chunk's null count and bounds are those of its
// values, found here by sorting them in the column's order.
func checkStatistics(t require.TestingT, pf *parquet.File, cols []column, groups []int) {
	lo := 0
	for g, n := range groups {
		chunks := pf.Metadata().RowGroups[g].Columns
		leaf := 0
		for _, c := range cols {
			var keys, vals []any
			nulls := 0
			for _, r := range c.rows[lo : lo+n] {
				if len(r) == 0 {
					nulls++
				}
				if c.col.Type != pq.Map {
					vals = append(vals, r...)
					continue
				}
				for k := 0; k < len(r); k += 2 {
					keys, vals = append(keys, r[k]), append(vals, r[k+1])
				}
			}
			leaves := []struct {
				col  pq.Column
				vals []any
			}{{c.col, vals}}
			if c.col.Type == pq.Map {
				leaves = []struct {
					col  pq.Column
					vals []any
				}{{pq.Column{Type: pq.String}, keys}, {*c.col.Value, vals}}
			}
			for _, l := range leaves {
				st := chunks[leaf].MetaData.Statistics
				leaf++
				require.Equalf(t, int64(nulls), st.NullCount, "group %d, column %s: null count", g, c.col.Name)
				lo, hi := wantBounds(l.col, l.vals)
				if !c.col.Bounds {
					lo, hi = nil, nil
				}
				require.Equalf(t, hex.EncodeToString(lo), hex.EncodeToString(st.MinValue), "group %d, column %s: lower bound", g, c.col.Name)
				require.Equalf(t, hex.EncodeToString(hi), hex.EncodeToString(st.MaxValue), "group %d, column %s: upper bound", g, c.col.Name)
			}
		}
		lo += n
	}
}

// wantBounds are the least and greatest of vals, plain-encoded; nil when
// there are none (NaNs are not values here).
func wantBounds(c pq.Column, vals []any) (lo, hi []byte) {
	enc := func(v any) []byte {
		switch v := v.(type) {
		case string:
			return []byte(v)
		case float64:
			return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
		case int64:
			v64 := uint64(v)
			if c.Bits < 64 {
				return binary.LittleEndian.AppendUint32(nil, uint32(v64))
			}
			return binary.LittleEndian.AppendUint64(nil, v64)
		case uint64:
			if c.Bits < 64 {
				return binary.LittleEndian.AppendUint32(nil, uint32(v))
			}
			return binary.LittleEndian.AppendUint64(nil, v)
		}
		panic(v)
	}
	vals = slices.DeleteFunc(slices.Clone(vals), func(v any) bool { f, ok := v.(float64); return ok && math.IsNaN(f) })
	if len(vals) == 0 {
		return nil, nil
	}
	slices.SortFunc(vals, func(a, b any) int {
		switch a := a.(type) {
		case string:
			return strings.Compare(a, b.(string))
		case float64:
			return cmp.Compare(a, b.(float64))
		case int64:
			return cmp.Compare(a, b.(int64))
		}
		return cmp.Compare(a.(uint64), b.(uint64))
	})
	first, last := vals[0], vals[len(vals)-1]
	if f, ok := first.(float64); ok && f == 0 {
		first = math.Copysign(0, -1)
	}
	if f, ok := last.(float64); ok && f == 0 {
		last = 0.0
	}
	return enc(first), enc(last)
}

// TestRefused: a schema or data the format cannot hold as described is an
// error naming the column, never a file that reads back otherwise.
func TestRefused(t *testing.T) {
	for _, c := range []struct {
		col pq.Column
		err string
	}{
		{pq.Column{Name: "a", Type: pq.Int, Bits: 12}, "an integer of 12 bits"},
		{pq.Column{Name: "a", Type: pq.String, Encoding: pq.Delta}, "delta encodes integers only"},
		{pq.Column{Name: "a", Type: pq.Map}, "a map's values are integers or doubles"},
		{pq.Column{Name: "a", Type: pq.Map, Optional: true, Value: &pq.Column{Type: pq.Double}}, "maps are required"},
		{pq.Column{Type: pq.Double}, "no name"},
	} {
		_, err := pq.NewSchema("t", c.col)
		assert.ErrorContainsf(t, err, c.err, "%+v: %v, want %q", c.col, err, c.err)
	}
	s, err := pq.NewSchema("t", pq.Column{Name: "u8", Type: pq.Int, Bits: 8}, pq.Column{Name: "s", Type: pq.String, Encoding: pq.Dict, Optional: true})
	require.NoError(t, err)
	ok := pq.Data{Strings: []string{"x"}, Def: []uint8{1, 0}}
	for _, c := range []struct {
		data []pq.Data
		err  string
	}{
		{[]pq.Data{{Ints: []uint64{1, 256}}, ok}, "column u8: value 1 (0x100) does not fit 8 bits"},
		{[]pq.Data{{Ints: []uint64{1}}, ok}, "column u8: 1 integers for 2 values"},
		{[]pq.Data{{Ints: []uint64{1, 2}, Def: []uint8{1, 1}}, ok}, "column u8: levels for a required column"},
		{[]pq.Data{{Ints: []uint64{1, 2}}, {Strings: []string{"x"}, Def: []uint8{1, 0}, Rep: []uint8{0, 0}}}, "column s: repetition levels for a column that does not repeat"},
		{[]pq.Data{{Ints: []uint64{1, 2}}, {Strings: []string{"x"}, Index: []uint32{1}, Def: []uint8{1, 0}}}, "column s: index 0 is 1, past the dictionary's 1 strings"},
		{[]pq.Data{{Ints: []uint64{1, 2}}, {Strings: []string{"x"}, Def: []uint8{1, 1}}}, "column s: 1 strings for 2 values"},
		{[]pq.Data{{Ints: []uint64{1, 2}}}, "1 columns of data for the 2 of t"},
	} {
		err := pq.NewWriter(io.Discard, s, "").Write(c.data, 2)
		assert.ErrorContainsf(t, err, c.err, "%v: %v, want %q", c.data, err, c.err)
	}
}

// TestNullsOnly: a dictionary column of nulls only is a data page of its
// levels alone, whatever dictionary it was given (its strings are no
// values of the page).
func TestNullsOnly(t *testing.T) {
	col := pq.Column{Name: "s", Type: pq.String, Encoding: pq.Dict, Optional: true}
	s, err := pq.NewSchema("t", col)
	require.NoError(t, err)
	var b bytes.Buffer
	w := pq.NewWriter(&b, s, "")
	require.NoError(t, w.Write([]pq.Data{{Strings: []string{strings.Repeat("x", 1000)}, Index: []uint32{}, Def: make([]uint8, 100)}}, 100))
	require.NoError(t, w.Close())
	cols := []column{{col: col, rows: make([][]any, 100)}}
	got, pf := readBack(t, b.Bytes(), cols)
	require.Truef(t, same(got[0], cols[0].rows), "reads back %v", got[0])
	assert.LessOrEqual(t, pf.Metadata().RowGroups[0].Columns[0].MetaData.TotalUncompressedSize, int64(100), "the chunk of 100 nulls")
}
