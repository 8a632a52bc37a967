package validate_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/require"
)

// benchSizes are the capture sizes the benchmarks run on (docs/performance.md reports them).
var benchSizes = []struct {
	name string
	mib  int
}{{"32MB", 32}, {"320MB", 320}}

// benchCapture writes (once per machine: the file is kept in the temp
// directory and reused when its size is right) a valid full capture of
// about mib MiB: 24 cube slots, every core entered and its slot full of
// sorted, non-overlapping records of known descriptors.
func benchCapture(tb testing.TB, mib int) (string, int64) {
	return benchCaptureOf(tb, mib, false)
}

// benchCaptureOf is benchCapture; with warn, every slot draws warnings:
// every 50th record swapped with the next (unsorted-slot, and the exact
// overlap check), every 100th overlapping the next, and entry_cycle at the
// start of the middle record (the first half are before-entry).
func benchCaptureOf(tb testing.TB, mib int, warn bool) (string, int64) {
	tb.Helper()
	capacity := uint32((mib << 20) / (3 * abi.MinCubeSlots) / abi.ProfileRecordSize / abi.RecordCapacityAlignment * abi.RecordCapacityAlignment)
	l, err := abi.NewLayout(abi.MinCubeSlots, abi.Capacities{AIC: capacity, AIV: capacity})
	require.NoError(tb, err)
	kind := ""
	if warn {
		kind = "warn-"
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("cycleabi-bench-v2-%s%dmib-%s.bin", kind, mib, abi.FingerprintHex))
	if st, err := os.Stat(path); err == nil && uint64(st.Size()) == l.Size() {
		return path, st.Size()
	}
	require.NoError(tb, writeBenchCapture(path+".tmp", l, warn))
	require.NoError(tb, os.Rename(path+".tmp", path))
	return path, int64(l.Size())
}

func writeBenchCapture(path string, l abi.Layout, warn bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	descs := []uint32{abi.RuntimeStageWaitDependency, abi.TaskTypeBase + uint32(abi.TaskTypeMatMul), abi.RuntimeStageTriggerEvent}
	var buf []byte
	for i := range l.NumSlots() {
		s := l.Slot(i)
		entry := uint64(1_000_000 + i)
		if warn {
			entry += 10 * uint64(s.Capacity/2)
		}
		h := abi.CoreHeader{EntryCycle: entry, RecordCount: s.Capacity, CoreType: s.CoreType, BlockID: s.BlockID, RecordCapacity: s.Capacity}
		buf = h.Append(buf[:0])
		for j := range s.Capacity {
			start := uint64(1_000_000+i) + 10*uint64(j)
			end := start + 7
			switch {
			case !warn:
			case j%50 == 0 && j+1 < s.Capacity:
				start += 10
				end += 10
			case j%50 == 1:
				start -= 10
				end -= 10
			case j%100 == 10:
				end += 10
			}
			desc := descs[j%3]
			if j == s.Capacity-1 {
				// The core ends on a finished task: a last wait would be a
				// kernel that stopped (stopped-in-task).
				desc = abi.RuntimeStageTriggerEvent
			}
			r := abi.ProfileRecord{StartCycle: start, EndCycle: end, DescID: desc, TaskID: j / 3, StageTaskIndex: j / 3, OwnerID: abi.InvalidOwnerID}
			buf = r.Append(buf)
		}
		if _, err := w.Write(buf); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// BenchmarkValidate validates a capture file in the page cache through
// capture.Open (ReadAt, not in memory). Throughput is the MB/s column.
func BenchmarkValidate(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			path, size := benchCapture(b, sz.mib)
			b.SetBytes(size)
			for b.Loop() {
				r, err := validate.CheckFile(path, validate.Options{})
				require.NoError(b, err)
				require.Emptyf(b, r.Counts, "findings in the benchmark capture: %v", r.Findings)
			}
		})
	}
}

// BenchmarkValidateWarnings validates a capture in which every slot draws
// warnings (half its records before-entry, overlaps, out of start order).
func BenchmarkValidateWarnings(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			path, size := benchCaptureOf(b, sz.mib, true)
			b.SetBytes(size)
			for b.Loop() {
				r, err := validate.CheckFile(path, validate.Options{})
				require.NoError(b, err)
				require.NotZero(b, r.Warnings(), "warnings")
				require.Zero(b, r.Errors(), "errors")
			}
		})
	}
}

// BenchmarkScan is capture.Scan alone, without hooks: the floor validate
// builds on.
func BenchmarkScan(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			path, size := benchCapture(b, sz.mib)
			b.SetBytes(size)
			for b.Loop() {
				c, err := capture.Open(path)
				require.NoError(b, err)
				l, err := layoutOf(c.Resolve(capture.Request{}))
				require.NoError(b, err)
				_, err = c.Scan(l, capture.ScanOptions{})
				require.NoError(b, err)
				c.Close()
			}
		})
	}
}

var _ = binary.LittleEndian
