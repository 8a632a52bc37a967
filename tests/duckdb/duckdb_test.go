package duckdb

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/export"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rankCount is how many ranks the export holds: synthesized from the MoE
// example with a seed each, so every rank's timings differ.
const rankCount = 4

const mhz = 50

// rankData is one exported rank as the test knows it from Go.
type rankData struct {
	rank     uint32
	analysis *analyze.Rank
	recs     []decode.Record
	anchor   uint64
	names    *kernelnames.Names
}

// duckdb returns the command that runs SQL in DuckDB, or skips.
func duckdb(t *testing.T) string {
	node, err := exec.LookPath("node")
	_, modErr := os.Stat("node_modules/@duckdb/node-api")
	if err != nil || modErr != nil {
		msg := "DuckDB is not installed here (needs node and `npm ci` in tests/duckdb)"
		require.NotEqual(t, "1", os.Getenv("CYCLEABI_REQUIRE_DUCKDB"), msg)
		t.Skip(msg)
	}
	return node
}

// queries returns docs/cluster.md's DuckDB views (with step42 replaced by
// dir) and its named queries.
func queries(t *testing.T, dir string) (views []string, named map[string]string) {
	doc, err := os.ReadFile("../../docs/cluster.md")
	require.NoError(t, err)
	named = map[string]string{}
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		block := m[1]
		if strings.HasPrefix(block, "-- query: ") {
			name, sql, _ := strings.Cut(strings.TrimPrefix(block, "-- query: "), "\n")
			named[name] = sql
			continue
		}
		for _, stmt := range strings.Split(block, ";") {
			if s := strings.TrimSpace(stmt); s != "" {
				views = append(views, strings.ReplaceAll(s, "'step42/", "'"+filepath.ToSlash(dir)+"/"))
			}
		}
	}
	require.Len(t, views, 3, "docs/cluster.md")
	require.Len(t, named, 5, "docs/cluster.md")
	return views, named
}

func run(t *testing.T, node string, stmts []string) [][]map[string]any {
	in, err := json.Marshal(stmts)
	require.NoError(t, err)
	cmd := exec.Command(node, "run.mjs")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoErrorf(t, err, "duckdb\n%s", stderr.String())
	var res [][]map[string]any
	require.NoError(t, json.Unmarshal(out, &res))
	return res
}

// u64 reads a DuckDB integer, which comes as a number or (past 2^53) a string.
func u64(t *testing.T, v any) uint64 {
	switch x := v.(type) {
	case float64:
		return uint64(x)
	case string:
		n, err := strconv.ParseUint(x, 10, 64)
		require.NoErrorf(t, err, "%q is not an integer", x)
		return n
	}
	require.FailNow(t, fmt.Sprintf("%v (%T) is not an integer", v, v))
	return 0
}

func i64(t *testing.T, v any) int64 {
	if s, ok := v.(string); ok {
		n, err := strconv.ParseInt(s, 10, 64)
		require.NoErrorf(t, err, "%q is not an integer", s)
		return n
	}
	return int64(v.(float64))
}

func f64(t *testing.T, v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, err := strconv.ParseFloat(x, 64)
		require.NoError(t, err)
		return f
	}
	require.FailNow(t, fmt.Sprintf("%v is not a number", v))
	return 0
}

// exportRanks synthesizes, decodes, analyzes and exports rankCount ranks.
func exportRanks(t *testing.T, dir string) []rankData {
	s, err := plan.ParseFile("../../examples/moe_layer.yaml")
	require.NoError(t, err)
	names, err := kernelnames.Load("../../examples/moe_layer.names.yaml")
	require.NoError(t, err)
	w, err := export.Create(dir)
	require.NoError(t, err)
	defer w.Abort()
	var ranks []rankData
	for i := range rankCount {
		c, err := synth.Run(s, synth.Options{Seed: uint64(i + 1), CapacityScale: 0.8})
		require.NoError(t, err)
		capt, err := capture.FromBytes(fmt.Sprintf("rank%d.bin", i), c.Buffer)
		require.NoError(t, err)
		d, err := decode.Decode(capt, capture.Request{})
		require.NoError(t, err)
		o := analyze.Options{Rank: uint32(i), FrequencyMHz: mhz, Names: names}
		a, err := w.Add(d, o)
		require.NoError(t, err)
		rd := rankData{rank: uint32(i), analysis: a, anchor: d.Summary.Anchor, names: names}
		require.NoError(t, d.Records(func(r decode.Record) bool { rd.recs = append(rd.recs, r); return true }))
		ranks = append(ranks, rd)
	}
	require.NoError(t, w.Commit())
	return ranks
}

// TestDocQueriesMatchAnalyze exports several ranks, runs every query of
// docs/cluster.md in DuckDB, and holds each answer to analyze's figures for
// the same captures, or to the records counted here.
func TestDocQueriesMatchAnalyze(t *testing.T) {
	node := duckdb(t)
	dir := filepath.Join(t.TempDir(), "step42")
	ranks := exportRanks(t, dir)
	views, named := queries(t, dir)
	var order []string
	for name := range named {
		order = append(order, name)
	}
	sort.Strings(order)
	stmts := slices.Clone(views)
	for _, name := range order {
		stmts = append(stmts, named[name])
	}
	res := run(t, node, stmts)
	answer := map[string][]map[string]any{}
	for i, name := range order {
		answer[name] = res[len(views)+i]
	}

	t.Run("time by kind", func(t *testing.T) {
		type key struct {
			rank uint32
			kind string
		}
		count := map[key]uint64{}
		for _, r := range ranks {
			l := analyze.NewLabeler(r.names, nil)
			for i := range r.recs {
				count[key{r.rank, l.Kind(&r.recs[i].ProfileRecord)}]++
			}
		}
		rows := answer["time by kind"]
		require.Len(t, rows, len(count))
		for _, row := range rows {
			k := key{uint32(u64(t, row["rank"])), row["kind"].(string)}
			a := ranks[k.rank].analysis.Totals
			want := map[string]uint64{analyze.KindCompute: a.ComputeCycles, analyze.KindWait: a.WaitCycles,
				analyze.KindTrigger: a.TriggerCycles, analyze.KindOther: a.OtherCycles}[k.kind]
			assert.Equalf(t, want, u64(t, row["cycles"]), "rank %d %s", k.rank, k.kind)
			assert.Equalf(t, count[k], u64(t, row["records"]), "rank %d %s", k.rank, k.kind)
		}
	})

	t.Run("slowest rank per stage", func(t *testing.T) {
		per := map[string][]struct {
			rank   uint32
			cycles uint64
		}{}
		for _, r := range ranks {
			for _, st := range r.analysis.Stages {
				per[st.Name] = append(per[st.Name], struct {
					rank   uint32
					cycles uint64
				}{r.rank, st.TotalCycles})
			}
		}
		rows := answer["slowest rank per stage"]
		require.Len(t, rows, len(per))
		for _, row := range rows {
			stage := row["stage"].(string)
			vals := per[stage]
			best := vals[0]
			var cyc []float64
			lo := vals[0].cycles
			for _, v := range vals {
				if v.cycles > best.cycles {
					best = v
				}
				lo = min(lo, v.cycles)
				cyc = append(cyc, float64(v.cycles))
			}
			slices.Sort(cyc)
			med := cyc[len(cyc)/2]
			if len(cyc)%2 == 0 {
				med = (cyc[len(cyc)/2-1] + cyc[len(cyc)/2]) / 2
			}
			assert.Equalf(t, best.rank, uint32(u64(t, row["slowest_rank"])), "%s: slowest rank", stage)
			require.Equalf(t, best.cycles, u64(t, row["max_cycles"]), "%s: max/min/median %v/%v/%v, analyze", stage, row["max_cycles"], row["min_cycles"], row["median_cycles"])
			require.Equalf(t, lo, u64(t, row["min_cycles"]), "%s: max/min/median %v/%v/%v, analyze", stage, row["max_cycles"], row["min_cycles"], row["median_cycles"])
			assert.Equalf(t, med, f64(t, row["median_cycles"]), "%s: max/min/median %v/%v/%v, analyze", stage, row["max_cycles"], row["min_cycles"], row["median_cycles"])
		}
	})

	t.Run("wait share per rank", func(t *testing.T) {
		rows := answer["wait share per rank"]
		require.Len(t, rows, len(ranks))
		for _, row := range rows {
			r := ranks[u64(t, row["rank"])]
			assert.LessOrEqualf(t, math.Abs(f64(t, row["wait_pct"])-r.analysis.Totals.WaitPct), 1e-6, "rank %d: wait %%", r.rank)
		}
	})

	t.Run("longest records", func(t *testing.T) {
		type rec struct {
			rank       uint32
			core, name string
			block      uint32
			cycles     uint64
			startNs    int64
		}
		var all []rec
		for _, r := range ranks {
			for i := range r.recs {
				x := &r.recs[i]
				all = append(all, rec{r.rank, x.CoreType.String(), r.names.EventName(&x.ProfileRecord, false, ""), x.BlockID,
					x.EndCycle - x.StartCycle, (int64(x.StartCycle) - int64(r.anchor)) * (1000 / mhz)})
			}
		}
		slices.SortFunc(all, func(a, b rec) int {
			switch {
			case a.cycles != b.cycles:
				return -cmp.Compare(a.cycles, b.cycles)
			case a.rank != b.rank:
				return cmp.Compare(uint64(a.rank), uint64(b.rank))
			case a.startNs != b.startNs:
				return cmp.Compare(a.startNs, b.startNs)
			case a.core != b.core:
				return strings.Compare(a.core, b.core)
			}
			return cmp.Compare(uint64(a.block), uint64(b.block))
		})
		rows := answer["longest records"]
		require.Len(t, rows, 10)
		for i, row := range rows {
			got := rec{uint32(u64(t, row["rank"])), row["core_type"].(string), row["name"].(string), uint32(u64(t, row["block_id"])),
				u64(t, row["cycles"]), i64(t, row["start_ns"])}
			assert.Equalf(t, all[i], got, "row %d", i)
		}
	})

	t.Run("records per descriptor", func(t *testing.T) {
		type key struct{ rank, desc uint32 }
		want := map[key]uint64{}
		for _, r := range ranks {
			for i := range r.recs {
				want[key{r.rank, r.recs[i].DescID}]++
			}
		}
		rows := answer["records per descriptor"]
		require.Len(t, rows, len(want))
		for _, row := range rows {
			k := key{uint32(u64(t, row["rank"])), uint32(u64(t, row["desc_id"]))}
			assert.Equalf(t, want[k], u64(t, row["records"]), "rank %d desc %#x", k.rank, k.desc)
		}
	})
}

// TestManyRanks exports 256 small ranks (the AIV-pipeline example, a seed
// each) and checks that DuckDB reads them all: per rank the record count
// and total cycles, and per rank and descriptor the record count, as the
// decoded records give them.
func TestManyRanks(t *testing.T) {
	node := duckdb(t)
	if raceEnabled {
		t.Skip("256 ranks take a minute under the race detector; make test runs this test without it")
	}
	const n = 256
	s, err := plan.ParseFile("../../examples/aiv_pipeline.yaml")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "many")
	w, err := export.Create(dir)
	require.NoError(t, err)
	defer w.Abort()
	type key struct{ rank, desc uint32 }
	perDesc := map[key]uint64{}
	records := make([]uint64, n)
	cycles := make([]uint64, n)
	for i := range n {
		c, err := synth.Run(s, synth.Options{Seed: uint64(i)})
		require.NoError(t, err)
		capt, err := capture.FromBytes(fmt.Sprintf("rank%d.bin", i), c.Buffer)
		require.NoError(t, err)
		d, err := decode.Decode(capt, capture.Request{})
		require.NoError(t, err)
		_, err = w.Add(d, analyze.Options{Rank: uint32(i), FrequencyMHz: mhz})
		require.NoError(t, err)
		require.NoError(t, d.Records(func(r decode.Record) bool {
			records[i]++
			cycles[i] += r.EndCycle - r.StartCycle
			perDesc[key{uint32(i), r.DescID}]++
			return true
		}))
	}
	require.NoError(t, w.Commit())
	views, named := queries(t, dir)
	res := run(t, node, append(views,
		"SELECT rank, count(*) AS records, sum(end_cycle - start_cycle) AS cycles FROM records GROUP BY rank ORDER BY rank",
		named["records per descriptor"]))
	byRank, byDesc := res[len(views)], res[len(views)+1]
	require.Len(t, byRank, n, "DuckDB sees")
	for _, row := range byRank {
		r := u64(t, row["rank"])
		assert.Equalf(t, records[r], u64(t, row["records"]), "rank %d: records, decoded", r)
		assert.Equalf(t, cycles[r], u64(t, row["cycles"]), "rank %d: cycles, decoded", r)

	}
	require.Len(t, byDesc, len(perDesc))
	for _, row := range byDesc {
		k := key{uint32(u64(t, row["rank"])), uint32(u64(t, row["desc_id"]))}
		assert.Equalf(t, perDesc[k], u64(t, row["records"]), "rank %d desc %#x", k.rank, k.desc)
	}
}
