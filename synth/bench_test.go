package synth_test

import (
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/require"
)

// pingPong is an event-driven schedule of chunks*96 tasks on 48 workers:
// per chunk 48 MatMuls on AIC trigger event 2c, which 48 SwiGLUs on AIV
// wait on before triggering 2c+1, which the next chunk's MatMuls wait on.
func pingPong(chunks int) *plan.Schedule {
	s := &plan.Schedule{File: "pingpong", NumWorkers: 48}
	for c := 0; c < chunks; c++ {
		for k := 0; k < 48; k++ {
			mm := plan.NewTask(abi.TaskTypeMatMul)
			if c > 0 {
				mm.DependentEvent = plan.EventID(2*c - 1)
			}
			mm.TriggerEvent = plan.EventID(2 * c)
			s.CubeTaskIndices = append(s.CubeTaskIndices, uint32(len(s.Tasks)))
			s.Tasks = append(s.Tasks, mm)
		}
		for k := 0; k < 48; k++ {
			sw := plan.NewTask(abi.TaskTypeSwiGLU)
			sw.DependentEvent = plan.EventID(2 * c)
			sw.TriggerEvent = plan.EventID(2*c + 1)
			s.VectorTaskIndices = append(s.VectorTaskIndices, uint32(len(s.Tasks)))
			s.Tasks = append(s.Tasks, sw)
		}
	}
	return s
}

// BenchmarkRun simulates ~100,000 tasks (300,000 records, a 9 MiB buffer).
func BenchmarkRun(b *testing.B) {
	s := pingPong(1024)
	for b.Loop() {
		c, err := synth.Run(s, synth.Options{Seed: 1})
		require.NoError(b, err)
		require.Equal(b, uint64(3*len(s.Tasks)-48), c.Records())
	}
}
