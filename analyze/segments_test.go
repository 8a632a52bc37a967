package analyze_test

import (
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadReportSegments: a report's segments read back are those written
// (Len, At, and JSON again), and a value of the wrong type among them is
// placed at its line and column in the report, as elsewhere in it.
func TestReadReportSegments(t *testing.T) {
	report := `{"abi_version":1,"abi_fingerprint":"e7b0842e14986bfc","ranks":[{"rank":0,"capture":"a.bin",
"cycle_frequency_mhz":50,"records":3,"makespan_cycles":100,"makespan_us":2,
"critical_path":{"start_cycle":1,"end_cycle":101,"total_cycles":100,"by_kind":{"compute":50,"gap":50},"by_stage":[{"name":"Router","cycles":50}],
"segments":[{"core":"AIC/0","task_id":null,"kind":"gap","start_cycle":1,"end_cycle":51},
 {"core":"AIC/0","task_id":3,"kind":"compute","start_cycle":51,"end_cycle":101,"task_type":"MatMul","stage":"Router"}]}}]}`
	r, err := analyze.ReadReport("a.json", []byte(report))
	require.NoError(t, err)
	segs := &r.Ranks[0].CriticalPath.Segments
	require.Equal(t, 2, segs.Len())
	s := segs.At(1)
	require.Equalf(t, "AIC/0", s.Core, "segment 1 read as %+v", s)
	require.NotNilf(t, s.TaskID, "segment 1 read as %+v", s)
	assert.Equalf(t, uint32(3), *s.TaskID, "segment 1 read as %+v", s)
	assert.Equalf(t, "compute", s.Kind, "segment 1 read as %+v", s)
	assert.Equalf(t, uint64(51), s.StartCycle, "segment 1 read as %+v", s)
	assert.Equalf(t, uint64(101), s.EndCycle, "segment 1 read as %+v", s)
	assert.Equalf(t, "MatMul", s.TaskType, "segment 1 read as %+v", s)
	assert.Equalf(t, "Router", s.Stage, "segment 1 read as %+v", s)
	s = segs.At(0)
	assert.Nil(t, s.TaskID, "segment 0 read as %+v", s)
	assert.Equal(t, uint64(50), s.Cycles(), "segment 0 read as %+v", s)
	got := segs.Longest(1)
	require.Len(t, got, 1, "Longest(1)")
	assert.Equal(t, 0, got[0], "Longest(1)")

	bad := strings.Replace(report, `"start_cycle":51`, `"start_cycle":"51"`, 1)
	_, err = analyze.ReadReport("a.json", []byte(bad))
	want := `a.json:5:61: not an analyze --format json report: critical_path.segments.start_cycle: a string where a uint64 goes`
	assert.EqualErrorf(t, err, want, "got %v\nwant %s", err, want)
}
