package plan_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// millionTasks is an event-driven schedule of 1,000,000 tasks, half cube
// and half vector, as JSON text.
var millionTasks = sync.OnceValue(func() []byte { return scheduleJSON(1_000_000) })

func scheduleJSON(n int) []byte {
	var b strings.Builder
	b.Grow(60 * n)
	b.WriteString(`{"mode": "event_driven", "num_workers": 48, "tasks": [`)
	types := []string{`"MatMul"`, `"SwiGLU"`, `105`, `"ShmemGetMem"`}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i == 0 {
			// Task i waits on event i, which task i-1 triggers: task 0
			// waits on nothing, so that the schedule passes plan.Check.
			fmt.Fprintf(&b, `{"task_type": %s, "trigger_event": %d}`, types[i%4], i+1)
			continue
		}
		fmt.Fprintf(&b, `{"task_type": %s, "dependent_event": %d, "trigger_event": %d}`, types[i%4], i, i+1)
	}
	for _, q := range []string{"cube_task_indices", "vector_task_indices"} {
		fmt.Fprintf(&b, `], "%s": [`, q)
		start := 0
		if q == "vector_task_indices" {
			start = 1
		}
		for i := start; i < n; i += 2 {
			if i > 1 {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, i)
		}
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

// BenchmarkPlan1M plans a parsed 1,000,000-task schedule.
func BenchmarkPlan1M(b *testing.B) {
	s, err := plan.Parse("million.json", millionTasks())
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		_, err := plan.Plan(s)
		require.NoError(b, err)
	}
}

// BenchmarkParsePlan1M reads and plans a 1,000,000-task JSON schedule
// (~60 MB): what `cycleabi plan` does apart from reading the file.
func BenchmarkParsePlan1M(b *testing.B) {
	data := millionTasks()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		s, err := plan.Parse("million.json", data)
		require.NoError(b, err)
		_, err = plan.Plan(s)
		require.NoError(b, err)
	}
}

// BenchmarkParseYAML10K is the YAML parser on 10,000 tasks, for scale: it
// is the path every non-JSON schedule takes.
func BenchmarkParseYAML10K(b *testing.B) {
	data := scheduleJSON(10_000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		_, err := plan.ParseYAML("10k.json", data)
		require.NoError(b, err)
	}
}

// TestBenchmarkSchedule checks that the benchmarks' schedule (at a tenth of
// the size, to stay fast under -race) plans to what its shape implies, so
// the benchmarks measure a real plan.
func TestBenchmarkSchedule(t *testing.T) {
	const n = 100_000
	s, err := plan.Parse("100k.json", scheduleJSON(n))
	require.NoError(t, err)
	// Check, as `cycleabi plan` does: every wait has its trigger.
	r, err := plan.Check(s)
	require.NoError(t, err)
	// 50,000 cube tasks over 24 AIC workers: workers 0..7 get 2,084.
	// Cube entry j is task 2j, a MatMul when j is even, so even workers run
	// only MatMuls (3 records each: wait, compute, trigger; task 0 has no
	// wait, but workers 2, 4 and 6 are as busy), odd workers
	// only puts (2 records). Vector tasks (SwiGLU, ShmemGetMem) all write 3.
	aic := r.Region(abi.CoreTypeAIC)
	assert.Equal(t, uint32(24), aic.Workers, "AIC")
	assert.Equal(t, uint64(2084*3), aic.RequiredRecords, "AIC")
	aiv := r.Region(abi.CoreTypeAIV)
	assert.Equal(t, uint32(24), aiv.Workers, "AIV")
	assert.Equal(t, uint64(2084*3), aiv.RequiredRecords, "AIV")
	assert.Equal(t, uint32(6256), aiv.RecordCapacity, "AIV")
}

// BenchmarkParseSchedule reads the same JSON schedule both ways, at sizes
// real schedules have (a 500k-record capture comes with ~170k tasks): by
// parseJSON, which builds the Schedule from the tokens, and by the
// YAML path (jsonread's node tree, then the nodes), which every schedule
// the fast path does not take goes through. The fast path stays because
// this shows it pays (docs/performance.md).
func BenchmarkParseSchedule(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		data := scheduleJSON(n)
		b.Run(fmt.Sprintf("json/%dk", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				_, ok := plan.ParseJSON(data)
				require.True(b, ok, "the fast path refused the schedule")
			}
		})
		b.Run(fmt.Sprintf("tree/%dk", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				_, err := plan.ParseYAML("s.json", data)
				require.NoError(b, err)
			}
		})
	}
}
