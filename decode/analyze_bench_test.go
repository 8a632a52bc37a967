//go:build unix

package decode_test

import (
	"io"
	"sync"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/internal/benchgen"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/stretchr/testify/require"
)

// BenchmarkAnalyzeVsDecode runs `cycleabi decode` (to io.Discard) and
// `cycleabi analyze` side by side on the 32 MB benchmark capture, each from
// the capture in memory through the first pass; records/s is the figure to
// compare. records/cpu-s divides by the CPU time the process used (user
// and system, every thread, GC included), which other work on a shared
// machine changes far less than it changes wall time. analyze-plan adds a schedule for the capture's tasks (every task
// waits on event id%64 and triggers (id+1)%64): the producer index and the
// critical path; decode-plan the same schedule's dependency arrows.
//
//	go test -run '^$' -bench AnalyzeVsDecode -benchmem -cpu 1 -count 3 ./decode/
func BenchmarkAnalyzeVsDecode(b *testing.B) {
	spec := benchgen.MB32
	buf, err := benchBytes()
	require.NoError(b, err)
	l, _ := spec.Layout()
	opts := capture.Request{Capacities: &l.Capacities}
	stages, tasks := spec.Names()
	names := &kernelnames.Names{Stages: stages, Tasks: kernelnames.TaskNamesOf(tasks)}
	sched := &plan.Schedule{File: "bench.yaml"}
	// Tasks write two or three records each.
	for id := range spec.Records/2 + 1 {
		t := plan.NewTask(abi.TaskTypeMatMul)
		t.DependentEvent, t.TriggerEvent = plan.EventID(id%64), plan.EventID((id+1)%64)
		sched.Tasks = append(sched.Tasks, t)
	}
	run := func(b *testing.B, work func(d *decode.Decoded) error) {
		var elapsed time.Duration
		cpu0 := decodetest.CPUTime()
		for b.Loop() {
			start := time.Now()
			c, err := capture.FromBytes("bench.bin", buf)
			require.NoError(b, err)
			d, err := decode.Decode(c, opts)
			require.NoError(b, err)
			require.NoError(b, work(d))
			elapsed += time.Since(start)
		}
		cpu := decodetest.CPUTime() - cpu0
		b.SetBytes(int64(len(buf)))
		b.ReportMetric(float64(spec.Records)*float64(b.N)/elapsed.Seconds(), "records/s")
		b.ReportMetric(float64(spec.Records)*float64(b.N)/cpu.Seconds(), "records/cpu-s")
	}
	b.Run("decode", func(b *testing.B) {
		run(b, func(d *decode.Decoded) error {
			cfg := render.Config{SoCName: "ascend910b", FrequencyMHz: 50, KernelName: "MegaKernel", OwnerLabel: "Owner", Names: names}
			return chromejson.Write(io.Discard, []render.Input{{Decoded: d, Config: cfg}}, render.WriteOptions{})
		})
	})
	b.Run("decode-plan", func(b *testing.B) {
		run(b, func(d *decode.Decoded) error {
			deps, err := flows.NewDependencies(d, sched)
			if err != nil {
				return err
			}
			cfg := render.Config{SoCName: "ascend910b", FrequencyMHz: 50, KernelName: "MegaKernel", OwnerLabel: "Owner", Names: names,
				FlowMode: flows.Releasing, Deps: deps}
			return chromejson.Write(io.Discard, []render.Input{{Decoded: d, Config: cfg}}, render.WriteOptions{})
		})
	})
	b.Run("analyze", func(b *testing.B) {
		run(b, func(d *decode.Decoded) error {
			_, err := analyze.Analyze(d, analyze.Options{FrequencyMHz: 50, Names: names})
			return err
		})
	})
	b.Run("analyze-plan", func(b *testing.B) {
		run(b, func(d *decode.Decoded) error {
			deps, err := flows.NewDependencies(d, sched)
			if err != nil {
				return err
			}
			_, err = analyze.Analyze(d, analyze.Options{FrequencyMHz: 50, Names: names, Deps: deps})
			return err
		})
	})
}

var benchBytes = sync.OnceValues(func() ([]byte, error) { return benchgen.Bytes(benchgen.MB32) })
