package capture_test

import (
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
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
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			_, err = c.Scan(l, capture.ScanOptions{Record: func(s *capture.SlotScan, i int, off int64, r *abi.ProfileRecord) {
				seen++
				want, err := abi.DecodeProfileRecord(buf[off:])
				if err != nil || *r != want || off != int64(b.RecordOffset(abi.CoreTypeAIV, 3, i, 0)) {
					t.Fatalf("record %d @%#x: hook saw %+v, the bytes say %+v (%v)", i, off, *r, want, err)
				}
			}})
			if err != nil || seen != n {
				t.Fatalf("scan: %v, %d of %d records seen", err, seen, n)
			}
		}
	})
}

func inMemory(t *rapid.T, buf []byte) *capture.Capture {
	c, err := capture.FromBytes("x.bin", buf)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readerAt hides the bytes behind io.ReaderAt, so the scan reads chunks.
type readerAt []byte

func (r readerAt) ReadAt(p []byte, off int64) (int, error) { return copy(p, r[off:]), nil }

func throughReadAt(t *rapid.T, buf []byte) *capture.Capture {
	c, err := capture.FromReaderAt("x.bin", readerAt(buf), int64(len(buf)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
