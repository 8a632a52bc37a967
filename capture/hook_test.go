package capture_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The scan decodes records for the Record hook field by field (it is the
// hot loop); what the hook sees must be exactly abi.DecodeProfileRecord of
// the record's bytes, at the record's file offset, whether the capture is
// in memory or read through ReadAt.
func TestRecordHookSeesDecodedRecords(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := capturetest.New(abi.MinCubeSlots, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, 1).Enter(abi.CoreTypeAIV, 0, 1)
		n := rapid.IntRange(1, 16).Draw(t, "records")
		b.Enter(abi.CoreTypeAIV, 3, 1)
		for range n {
			b.Write(abi.CoreTypeAIV, 3, abi.ProfileRecord{
				StartCycle:     rapid.Uint64Range(0, 1<<40).Draw(t, "start"),
				EndCycle:       rapid.Uint64Range(1<<40, 1<<63).Draw(t, "end"),
				DescID:         rapid.Uint32().Draw(t, "desc"),
				TaskID:         rapid.Uint32().Draw(t, "task"),
				StageTaskIndex: rapid.Uint32().Draw(t, "index"),
				OwnerID:        rapid.Uint32().Draw(t, "owner"),
			})
		}
		buf := b.Bytes()
		for _, c := range []*capture.Capture{inMemory(t, buf), throughReadAt(t, buf)} {
			l, err := layoutOf(c.Resolve(capture.Request{}))
			require.NoError(t, err)
			seen := 0
			_, err = c.Scan(l, capture.ScanOptions{Record: func(s *capture.SlotScan, i int, off int64, r *abi.ProfileRecord) {
				seen++
				want, err := abi.DecodeProfileRecord(buf[off:])
				require.NoErrorf(t, err, "record %d @%#x", i, off)
				require.Equalf(t, want, *r, "record %d @%#x: hook saw, the bytes say", i, off)
				require.Equalf(t, int64(b.RecordOffset(abi.CoreTypeAIV, 3, i, 0)), off, "record %d: offset", i)
			}})
			require.NoError(t, err, "scan")
			require.Equal(t, n, seen, "scan")
		}
	})
}

func inMemory(t *rapid.T, buf []byte) *capture.Capture {
	c, err := capture.FromBytes("x.bin", buf)
	require.NoError(t, err)
	return c
}

// readerAt hides the bytes behind io.ReaderAt, so the scan reads chunks.
type readerAt []byte

func (r readerAt) ReadAt(p []byte, off int64) (int, error) { return copy(p, r[off:]), nil }

func throughReadAt(t *rapid.T, buf []byte) *capture.Capture {
	c, err := capture.FromReaderAt("x.bin", readerAt(buf), int64(len(buf)))
	require.NoError(t, err)
	return c
}

// Walking the slots in ranges (ScanOptions.Slots) sees, range after range,
// what one walk of every slot sees: the same slots and problems in the same
// order, and summaries that add up; only the whole walk reports a capture
// without records. The ranges share one read buffer (ScanOptions.Buf),
// which a walk that read records leaves in place.
func TestScanRangesAddUp(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := capturetest.New(abi.MinCubeSlots, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, 1).Enter(abi.CoreTypeAIV, 0, 1)
		for i := range rapid.IntRange(0, 5).Draw(t, "cores") {
			s := b.Layout.Slot(rapid.IntRange(0, b.Layout.NumSlots()-1).Draw(t, "slot"))
			b.Enter(s.CoreType, s.BlockID, 100)
			for j := range rapid.IntRange(0, 16).Draw(t, "records") {
				start := rapid.Uint64Range(0, 1000).Draw(t, "start")
				b.Span(s.CoreType, s.BlockID, start, start+rapid.Uint64Range(0, 10).Draw(t, "dur")-5, 0, uint32(i*100+j))
			}
		}
		buf := b.Bytes()
		c := throughReadAt(t, buf)
		l := b.Layout
		var readBuf []byte
		walk := func(slots *capture.SlotRange) (*capture.Summary, []string) {
			var seen []string
			sum, err := c.Scan(l, capture.ScanOptions{Slots: slots, Buf: &readBuf,
				Problem: func(p *capture.Problem) bool { seen = append(seen, p.Error()); return true },
				Slot:    func(s *capture.SlotScan) { seen = append(seen, s.Slot.String()) }})
			require.NoError(t, err)
			return sum, seen
		}
		whole, wantSeen := walk(nil)
		if whole.Records > 0 {
			require.NotZerof(t, cap(readBuf), "a walk of %d records left no read buffer in ScanOptions.Buf", whole.Records)
		}
		cut := rapid.IntRange(0, l.NumSlots()).Draw(t, "cut")
		a, aSeen := walk(&capture.SlotRange{From: 0, To: cut})
		z, zSeen := walk(&capture.SlotRange{From: cut, To: l.NumSlots()})
		gotSeen := append(aSeen, zSeen...)
		if whole.Records == 0 {
			wantSeen = wantSeen[:len(wantSeen)-1] // the no-records error
		}
		require.Equalf(t, fmt.Sprint(wantSeen), fmt.Sprint(gotSeen), "ranges saw\n%v\nthe whole walk\n%v", gotSeen, wantSeen)
		require.Equalf(t, whole.Records, a.Records+z.Records, "ranges: %d+%d records, the whole walk", a.Records, z.Records)
		require.Equal(t, whole.Dropped, a.Dropped+z.Dropped, "ranges: dropped")
		require.Equal(t, len(whole.Active), len(a.Active)+len(z.Active), "ranges: active")
	})
}

// A Block hook's Taken is what the scan learns of the records it takes:
// a hook that takes a drawn number of records of each block (never one
// that ends before it starts) leaves the scan with the summary and the
// problems of a scan without it, and the Record hook sees every record it
// did not take.
func TestBlockHookTaken(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := capturetest.New(abi.MinCubeSlots, 16*300, 16)
		b.Enter(abi.CoreTypeAIC, 0, 1).Enter(abi.CoreTypeAIV, 0, 1)
		total := 0
		for _, block := range []uint32{0, 1} {
			b.Enter(abi.CoreTypeAIC, block, 1000)
			n := rapid.IntRange(0, 16*300).Draw(t, "records")
			unsorted := rapid.SampledFrom([]float64{0, 0.001, 0.3}).Draw(t, "unsorted")
			at := uint64(2000)
			for i := range n {
				start := at
				if rapid.Float64Range(0, 1).Draw(t, "p") < unsorted {
					start -= rapid.Uint64Range(1, 1500).Draw(t, "back")
				}
				end := start + 5
				if i%997 == 500 {
					end = start - 1 // a negative interval: the hook must not take it
				}
				b.Span(abi.CoreTypeAIC, block, start, end, 0, uint32(i))
				at += 10
			}
			total += n
		}
		buf := b.Bytes()
		c := inMemory(t, buf)
		l, err := layoutOf(c.Resolve(capture.Request{}))
		require.NoError(t, err)
		start := func(off int64) uint64 { return binary.LittleEndian.Uint64(buf[off+abi.ProfileRecordStartCycleOffset:]) }
		scan := func(block bool) (*capture.Summary, []string, int) {
			var problems []string
			walked := 0
			o := capture.ScanOptions{
				Problem: func(p *capture.Problem) bool { problems = append(problems, p.Error()); return true },
				Record:  func(*capture.SlotScan, int, int64, *abi.ProfileRecord) { walked++ },
			}
			if block {
				o.Block = func(s *capture.SlotScan, first int, off int64, rb []byte) capture.Taken {
					want := rapid.IntRange(0, len(rb)/abi.ProfileRecordSize).Draw(t, "take")
					tk := capture.Taken{MinStart: ^uint64(0)}
					for ; tk.N < want; tk.N++ {
						at := off + int64(tk.N)*abi.ProfileRecordSize
						r, _ := abi.DecodeProfileRecord(buf[at:])
						if r.EndCycle < r.StartCycle {
							break
						}
						tk.MinStart = min(tk.MinStart, r.StartCycle)
						if first+tk.N > 0 && r.StartCycle < start(at-abi.ProfileRecordSize) {
							tk.Unsorted = true
						}
					}
					walked += tk.N
					return tk
				}
			}
			sum, err := c.Scan(l, o)
			require.NoError(t, err)
			return sum, problems, walked
		}
		want, wantProblems, _ := scan(false)
		got, gotProblems, walked := scan(true)
		require.Equal(t, want, got, "with the Block hook the scan summed up")
		require.Equalf(t, fmt.Sprint(wantProblems), fmt.Sprint(gotProblems), "with the Block hook the scan found\n%v\nwithout it\n%v", gotProblems, wantProblems)
		require.Equal(t, total, walked, "the hooks saw")
	})
}
