package analyze_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadReportToCompare: a report read to be compared keeps no cores
// nor path segments, yet compares as the report read whole does; and
// what it holds does not grow with its cores (a report of 1M cores took
// 352 MiB to diff).
func TestReadReportToCompare(t *testing.T) {
	d, deps := chainCapture(t, 2000)
	res, err := analyze.Analyze(d, analyze.Options{FrequencyMHz: 50, Deps: deps})
	require.NoError(t, err)
	var text bytes.Buffer
	require.NoError(t, analyze.NewReport([]*analyze.Rank{res}).WriteJSON(&text))
	full, err := analyze.ReadReportFrom("r.json", bytes.NewReader(text.Bytes()))
	require.NoError(t, err)
	lean, err := analyze.ReadReportToCompare("r.json", bytes.NewReader(text.Bytes()))
	require.NoError(t, err)
	k := lean.Ranks[0]
	assert.Empty(t, k.Cores, "lean: cores")
	if assert.NotNil(t, k.CriticalPath, "lean: path") {
		assert.Equal(t, 0, k.CriticalPath.Segments.Len(), "lean: the path's segments")
	}
	require.NotEmpty(t, full.Ranks[0].Cores, "the full report has no cores or segments: the test proves nothing")
	require.NotEqual(t, 0, full.Ranks[0].CriticalPath.Segments.Len(), "the full report has no cores or segments: the test proves nothing")
	diffText := func(b, n *analyze.Report) string {
		dd, err := analyze.Compare(b, n, false)
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, dd.WriteJSON(&out))
		return out.String()
	}
	assert.Equal(t, diffText(lean, lean), diffText(full, full), "the lean reports compare otherwise")

	// A report of many cores: what reading it to compare holds does not
	// grow with them.
	held := func(cores int) uint64 {
		var b strings.Builder
		b.WriteString(`{"abi_version":1,"abi_fingerprint":"x","ranks":[{"rank":0,"capture":"c","cores":[`)
		for i := range cores {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"core":"AIV/%d","core_type":"AIV","block_id":%d,"records":3,"compute_cycles":100}`, i, i)
		}
		b.WriteString("]}]}")
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := analyze.ReadReportToCompare("many.json", strings.NewReader(b.String()))
		require.NoError(t, err)
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(r)
		return after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
	}
	small, big := held(10), held(200_000)
	assert.LessOrEqualf(t, big, small+1<<20, "reading 200,000 cores to compare holds %d bytes more than 10 do", big-small)
}
