package decode

import (
	"fmt"
	"math"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// mustDecode decodes an in-memory capture.
func mustDecode(name string, buf []byte, o capture.Request) (*Decoded, error) {
	c, err := capture.FromBytes(name, buf)
	if err != nil {
		return nil, err
	}
	return Decode(c, o)
}

// liveRecord is a record as the reference decoder collects it.
type liveRecord struct {
	abi.ProfileRecord
	Slot  abi.Slot
	Index int
	Entry uint64
}

// scanRecords lists every live record in slot and record order (the
// order of the reference decoder's list, before its sort).
func scanRecords(d *Decoded) ([]liveRecord, error) {
	var recs []liveRecord
	_, err := d.Capture.Scan(d.Summary.Layout, capture.ScanOptions{
		Record: func(s *capture.SlotScan, index int, _ int64, r *abi.ProfileRecord) {
			recs = append(recs, liveRecord{ProfileRecord: *r, Slot: s.Slot, Index: index, Entry: s.Header.EntryCycle})
		},
	})
	return recs, err
}

func inf() float64 { return math.Inf(1) }
func nan() float64 { return math.NaN() }

// walkOf renders the walk of d's records as text, one record a line, to
// compare walks (the trace writers render this sequence).
func walkOf(d *Decoded) ([]byte, error) {
	var b []byte
	err := d.Records(func(r Record) bool {
		b = fmt.Appendf(b, "%+v\n", r)
		return true
	})
	return b, err
}
