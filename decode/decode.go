// Package decode turns a MegaKernel cycle-trace capture into its records in
// trace order (gen/doc/ABI.md, "Decoding"); the trace writers are in
// decode/chromejson (Chrome JSON) and decode/perfetto, over the pipeline
// and placement they share in decode/render; the dependency arrows are in
// decode/flows, a kernel's names file in decode/kernelnames.
//
// Decoding is two passes over the capture. Decode resolves the layout and
// scans every slot under the ABI's rules (package capture): it fails on the
// first problem, so nothing is written for an invalid capture. Records then
// walks the records in trace order, (start_cycle, core_type, block_id) with
// ties in slot and record order, by a k-way merge over the active slots,
// each read in bounded chunks; a slot whose records are out of start order
// is cut into runs, each sorted on its own and spilled to a temporary file,
// and the runs join the merge (at most 4096 of them: runs grow past that).
// Memory is O(slots + one run), not O(records): a capture ten times larger
// decodes in the same memory.
package decode

import (
	"fmt"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// Decoded is a capture that passed every check of the ABI's decoding
// rules (gen/doc/ABI.md), ready to be walked in trace order.
type Decoded struct {
	Capture *capture.Capture
	// Layout is the capture's layout and how it was found.
	Layout *capture.Resolved
	// Summary has the layout, the record and dropped counts, the active
	// slots (with records) in buffer order and the anchor cycle.
	Summary *capture.Summary
	// Warnings counts what the trace will show differently from what the
	// device wrote: Decode fills in what the scan saw, the trace writer the
	// rest as it writes the records.
	Warnings Warnings
	// Problems are the warnings about the file the first pass found
	// beside the capture's own (Capture.Warnings): bytes after the
	// layout, which validate reports in the same words.
	Problems []capture.Problem
	// Stale are the cores whose span lies far outside the launch's
	// (capture.StaleSlots): an earlier launch's slots in a buffer not
	// zeroed between launches, which would stretch the makespan from
	// the launch's to the time between the launches. Not looked for in a
	// partial decode.
	Stale []capture.Stale
	// TempDir is where sorted runs of out-of-order slots are spilled
	// during a walk ("": os.TempDir(), which honours TMPDIR). The spill
	// file has no name there (see outfile.CreateScratch).
	TempDir string

	// slotsDropped: Summary.Active was dropped (DropSlots) and is
	// scanned again when needed (WithSlots).
	slotsDropped bool

	// chunk overrides the records read per slot at once (tests).
	chunk int
	// runRecords overrides the records of an out-of-order slot sorted at
	// once (tests).
	runRecords int
}

// Decode resolves the layout of c under req and checks every slot and
// record (the first pass). With req.Partial, a truncated capture decodes
// as far as the file goes: the records it holds whole, with what it lacks
// in Summary.Missing, Warnings and Problems. The first problem found is returned as a
// *capture.Problem naming the file offset, slot and record, with the
// resolution's hint when the layout may be what is wrong; a request that
// makes no layout is a *capture.RequestError.
func Decode(c *capture.Capture, req capture.Request) (*Decoded, error) {
	res, err := c.Resolve(req)
	if err != nil {
		return nil, err
	}
	sum, err := c.Scan(res.Layout, capture.ScanOptions{Hint: res.Hint, Partial: res.Missing > 0})
	if err != nil {
		return nil, err
	}
	d := &Decoded{Capture: c, Layout: res, Summary: sum,
		Warnings: Warnings{Dropped: sum.Dropped, Truncated: res.Missing, Missing: missingText(sum.Missing)}}
	if p := c.BytesAfterLayout(res); p != nil {
		d.Problems = append(d.Problems, *p)
	}
	// A partial decode (Request.Partial) says what it leaves out, part by
	// part, where the file ends.
	for _, m := range sum.Missing {
		p := capture.Problem{File: c.Name, Severity: capture.Warning, Code: capture.CodeTruncated, Off: m.Off, Record: -1,
			Msg: "missing, not decoded: " + m.String()}
		if !m.HeaderMissing {
			p.Slot, p.Record = m.Slot.String(), m.From
		}
		d.Problems = append(d.Problems, p)
	}
	for _, a := range sum.Active {
		if !a.Sorted {
			d.Warnings.UnsortedSlots++
		}
	}
	if res.Missing == 0 {
		if d.Stale, err = c.StaleSlots(sum); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// DropSlots drops Summary.Active, the part of a decoded capture that
// grows with its cores (a slot, entry, count and order per core with
// records), until WithSlots needs it: a run over thousands of captures
// keeps, from the first pass to each capture's turn to be written, only
// the rest of its summary (counts, anchor, layout). The capture must be
// walked through WithSlots after.
func (d *Decoded) DropSlots() {
	d.slotsDropped = true
	d.Summary.Active = nil
}

// WithSlots runs fn with Summary.Active: after DropSlots, the capture is
// scanned again for it (as Decode scanned it: every record checked
// again, and a capture that changed since is refused) and it is dropped
// again once fn returns.
func (d *Decoded) WithSlots(fn func() error) error {
	if !d.slotsDropped {
		return fn()
	}
	sum, err := d.Capture.Scan(d.Summary.Layout, capture.ScanOptions{Hint: d.Layout.Hint, Partial: d.Layout.Missing > 0})
	if err != nil {
		return err
	}
	if sum.Records != d.Summary.Records || sum.Dropped != d.Summary.Dropped || sum.Anchor != d.Summary.Anchor || sum.Earliest != d.Summary.Earliest {
		return fmt.Errorf("%s: changed since it was first read: %d records, %d dropped, anchor cycle %d; now %d, %d, %d",
			d.Capture.Name, d.Summary.Records, d.Summary.Dropped, d.Summary.Anchor, sum.Records, sum.Dropped, sum.Anchor)
	}
	d.Summary.Active = sum.Active
	defer func() { d.Summary.Active = nil }()
	return fn()
}

// Record is one live record with the slot it was read from.
type Record struct {
	abi.ProfileRecord
	// Active is the index of the record's slot in Summary.Active.
	Active int
	// Index is the record's index within its slot.
	Index int
	// CoreType and BlockID name the record's core (its slot).
	CoreType abi.CoreType
	BlockID  uint32
	// EntryCycle is the entry_cycle of the record's core.
	EntryCycle uint64
}

// Slot returns the slot the record was read from.
func (d *Decoded) Slot(r *Record) abi.Slot { return d.Summary.Active[r.Active].Slot }

// FileOffset returns the offset of the record in the capture file.
func (d *Decoded) FileOffset(r *Record) int64 {
	return d.Capture.FileOffset(int64(d.Slot(r).RecordOffset(uint32(r.Index))))
}

// RecordRef names one live record of a decoded capture and its cycles.
type RecordRef struct {
	// Active is the index of the record's slot in Summary.Active; Index
	// the record's index within its slot.
	Active int32
	Index  uint32
	// StartCycle and EndCycle are the record's.
	StartCycle, EndCycle uint64
}

// Ref returns the RecordRef of a record from a walk.
func (r *Record) Ref() RecordRef {
	return RecordRef{Active: int32(r.Active), Index: uint32(r.Index), StartCycle: r.StartCycle, EndCycle: r.EndCycle}
}

// A Walk hands out the records of Records in batches that the caller
// provides, for a consumer that fans them out (the trace writer's
// parallel formatters): no record is copied twice.
type Walk struct{ m *merge }

// Walk starts a walk of d's records in trace order; Close ends it.
func (d *Decoded) Walk() (*Walk, error) {
	m, err := d.newMerge()
	if err != nil {
		return nil, err
	}
	return &Walk{m}, nil
}

// Next appends the next records in trace order to dst, up to its
// capacity; fewer only when the walk is done or fails to read.
func (w *Walk) Next(dst []Record) ([]Record, error) { return w.m.next(dst) }

// Close frees what the walk holds (its spill files).
func (w *Walk) Close() { w.m.close() }
