package duckdb

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/export"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWindowAndStatistics: DuckDB reads a window's export (two
// invocations of one rank: forward and backward at one step) with its
// invocation columns, and the bounds in each records file's statistics,
// which engines skip row groups by, are the capture's least and greatest
// cycles and owners, computed here from the decoded records; an unsigned
// column's bounds are read as unsigned (an owner of 0xffffffff is
// 4294967295, not -1).
func TestWindowAndStatistics(t *testing.T) {
	node := duckdb(t)
	c, err := capture.Open("../../examples/moe_layer.bin")
	require.NoError(t, err)
	defer c.Close()
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "win")
	w, err := export.Create(dir)
	require.NoError(t, err)
	step := int64(3)
	for i, dirn := range []string{"forward", "backward"} {
		_, err := w.Add(d, analyze.Options{FrequencyMHz: mhz, Invocation: &analyze.Invocation{ID: int64(i), Step: &step, Direction: &dirn}})
		require.NoError(t, err)

	}
	require.NoError(t, w.Commit())
	var n int
	lo, hi := uint64(1<<64-1), uint64(0)
	ownerLo, ownerHi := uint32(1<<32-1), uint32(0)
	err = d.Records(func(r decode.Record) bool {
		n++
		lo, hi = min(lo, r.StartCycle), max(hi, r.StartCycle)
		ownerLo, ownerHi = min(ownerLo, r.OwnerID), max(ownerHi, r.OwnerID)
		return true
	})
	require.NoError(t, err)
	records := filepath.ToSlash(dir) + "/records/*/*.parquet"
	res := run(t, node, []string{
		"SELECT invocation_id, step, direction, count(*) AS n FROM read_parquet('" + records + "', hive_partitioning = true) GROUP BY ALL ORDER BY invocation_id",
		"SELECT file_name, path_in_schema, stats_min_value, stats_max_value FROM parquet_metadata('" + records + "') WHERE path_in_schema IN ('start_cycle', 'owner_id') ORDER BY ALL",
	})
	require.Len(t, res[0], 2, "invocations")
	for i, row := range res[0] {
		assert.Falsef(t, i64(t, row["invocation_id"]) != int64(i) || i64(t, row["step"]) != 3 || row["direction"] != []string{"forward", "backward"}[i] || int(u64(t, row["n"])) != n, "invocation %d reads %v, written %d records, step 3", i, row, n)
	}
	require.Len(t, res[1], 4, "statistics")
	for _, row := range res[1] {
		got := u64(t, row["stats_min_value"])
		gotHi := u64(t, row["stats_max_value"])
		wantLo, wantHi := lo, hi
		if row["path_in_schema"] == "owner_id" {
			wantLo, wantHi = uint64(ownerLo), uint64(ownerHi)
		}
		require.Equalf(t, wantLo, got, "%s of %s: bounds", row["path_in_schema"], row["file_name"])
		require.Equalf(t, wantHi, gotHi, "%s of %s: bounds", row["path_in_schema"], row["file_name"])
		assert.Truef(t, strings.HasSuffix(row["file_name"].(string), ".parquet"), "%s of %s: bounds", row["path_in_schema"], row["file_name"])
	}
	assert.Equal(t, uint32(1<<32-1), ownerHi, "the example's greatest owner")
}
