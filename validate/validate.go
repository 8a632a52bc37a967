// Package validate checks a MegaKernel profiling capture against every
// invariant of the ABI and reports every violation, where decode stops at
// the first. It is one pass of capture.Scan: the errors are exactly
// capture's problems (so "validate reports no error" holds exactly when
// decode succeeds), and the warnings — what decodes but deserves a look —
// are computed in the scan's slot and record hooks.
//
// Memory does not grow with the number of records: nothing is kept per
// record, findings are capped per code (counts stay exact), and the one
// check that needs to look back (overlaps in a slot whose records are not
// in start order) reads that slot again into a bounded buffer (slots of up
// to 64Ki records; larger unsorted slots are checked run by run).
package validate

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// DefaultMaxFindings is how many findings of one code are kept when
// Options.MaxFindings is 0.
const DefaultMaxFindings = 100

// MaxKeptFindings bounds the findings kept per code whatever the options
// ask (no cap included): a kept finding takes about 700 bytes with its
// printed text, so a code holds at most ~45 MB, and memory stays bounded
// on a capture with millions of findings (2 million findings of two
// codes: 108 MB peak RSS, where keeping them all took 1.7 GB). Counts stay exact; the summary and
// the JSON document say how many of a code are shown.
const MaxKeptFindings = 1 << 16

// maxKeptFindings is MaxKeptFindings, lowered by tests.
var maxKeptFindings = MaxKeptFindings

// exactOverlapLimit bounds the records of an unsorted slot that are read
// back and sorted to find every overlap exactly (24 bytes each: 1.5 MiB).
// Past it, overlaps are checked within each run of records in start order.
var exactOverlapLimit = 1 << 16

// fastPaths: check records in blocks against the common case (the block
// hook), the record hook seeing only the rest. Tests turn it off to compare
// with the record hook alone.
var fastPaths = true

// Plan is the host plan a capture is checked against (what `cycleabi plan`
// computes from a schedule).
type Plan = capture.Plan

// Options say how to validate a capture. The zero value finds the layout
// from the capture alone.
type Options struct {
	// Layout is what is known of the layout, as for decode. Its Plan, when
	// set, is the host plan: the cube slot count and every live header's
	// record_capacity that differ from it are plan-mismatch warnings (the
	// capture is still checked as its headers say).
	Layout capture.Request
	// MaxFindings caps the findings kept per code: 0 means
	// DefaultMaxFindings, negative means as many as MaxKeptFindings (which
	// also bounds any larger cap). Counts are always exact.
	MaxFindings int
	// OnFinding, when set, sees every finding as it is found, before the
	// cap (dump uses it to annotate the bytes it shows).
	OnFinding func(*Finding)
	// Walkers is how many goroutines walk a capture's slots at once: 0
	// means GOMAXPROCS.
	Walkers int
	// Family is the kernel family the capture's ids are read under: a
	// task-type desc_id is unknown when the family's table (not the
	// TaskType enum) does not name it. abi.FamilyNone for the enum.
	Family abi.Family
	// Slots, when set, restricts the check to the layout's slots
	// [Slots.From, Slots.To): their findings, records and dropped
	// records, with the capture's own findings (as the range alone makes
	// them: a range without records is no error). Dump checks one slot at
	// a time this way, to show its findings without keeping every slot's.
	Slots *capture.SlotRange
	// DescIDs asks for Result.DescIDs: the distinct desc_id values of the
	// records walked (validate --strict infers a kernel family from them,
	// where it read the capture a second time).
	DescIDs bool
}

// LayoutSource says where a capture's layout came from.
type LayoutSource = capture.LayoutSource

// The layout sources, as capture defines them.
const (
	FromHeaders = capture.FromHeaders
	FromSize    = capture.FromSize
	FromHost    = capture.FromHost
	FromPlan    = capture.FromPlan
)

// Result is what validating one capture found.
type Result struct {
	// File names the capture.
	File string
	// Format, Base and Size describe the capture once it opened: raw or
	// .npy, the file offset of the buffer, and the buffer's bytes.
	Format capture.Format
	Base   int64
	Size   int64
	// Opened: the capture opened (a .npy header that cannot be read leaves
	// Format, Base and Size unknown).
	Opened bool
	// Layout is the layout the capture was checked with; LayoutOK is false
	// when none could be resolved (the findings say why).
	Layout   abi.Layout
	LayoutOK bool
	// Resolved says how the layout was found (nil when it was not), and
	// Request is what it was resolved from: decode with the same request
	// succeeds exactly when OK() is true.
	Resolved *capture.Resolved
	Request  capture.Request
	// Records is the number of live records and Dropped the sum of the live
	// headers' dropped_count.
	Records uint64
	Dropped uint64
	// Findings are the kept findings, by file offset (ties in the order
	// they were found).
	Findings []Finding
	// Counts has one entry per code found: errors first, then warnings,
	// each in the order of Codes().
	Counts []CodeCount
	// MaxFindings is the cap per code that applied (at most
	// MaxKeptFindings).
	MaxFindings int
	// DescIDs are the distinct desc_id values of the records walked,
	// ascending, when Options.DescIDs asks for them (nil otherwise, and
	// when no layout resolved).
	DescIDs []uint32
}

// Errors is the number of error findings (counted, not only kept).
func (r *Result) Errors() int { return r.total(capture.Error) }

// Warnings is the number of warning findings.
func (r *Result) Warnings() int { return r.total(capture.Warning) }

func (r *Result) total(s capture.Severity) int {
	n := 0
	for _, c := range r.Counts {
		if c.Severity == s {
			n += c.Count
		}
	}
	return n
}

// OK reports whether the capture has no error: decode succeeds on it.
func (r *Result) OK() bool { return r.Errors() == 0 }

// Count returns how many findings of code there are.
func (r *Result) Count(code capture.Code) int {
	for _, c := range r.Counts {
		if c.Code == code {
			return c.Count
		}
	}
	return 0
}

// CheckFile opens the capture at path and validates it. A capture the ABI
// refuses is a Result with error findings; the error is for what stops the
// check itself (a missing file, a read failure, options that make no layout).
func CheckFile(path string, o Options) (*Result, error) {
	c, err := capture.Open(path)
	if err != nil {
		var p *capture.Problem
		if errors.As(err, &p) {
			return unopened(path, p, o), nil
		}
		return nil, err
	}
	defer c.Close()
	return Check(c, o)
}

// CheckBytes validates an in-memory capture (raw or .npy) named name.
func CheckBytes(name string, b []byte, o Options) (*Result, error) {
	c, err := capture.FromBytes(name, b)
	if err != nil {
		var p *capture.Problem
		if errors.As(err, &p) {
			return unopened(name, p, o), nil
		}
		return nil, err
	}
	return Check(c, o)
}

// unopened is the result for a capture that did not open: its one finding.
func unopened(name string, p *capture.Problem, o Options) *Result {
	v := newValidator(nil, o)
	v.col.report(fromProblem(p))
	r := &Result{File: name, Request: o.Layout}
	v.finish(r)
	return r
}

// Check validates an opened capture: the layout, then one scan of every
// slot and record.
func Check(c *capture.Capture, o Options) (*Result, error) {
	v := newValidator(c, o)
	r := &Result{File: c.Name, Format: c.Format, Base: c.Base, Size: c.Size(), Opened: true, Request: o.Layout}
	defer v.finish(r)
	for i := range c.Warnings {
		v.col.report(Finding{Problem: c.Warnings[i]})
	}

	res, err := c.Resolve(o.Layout)
	if err != nil {
		var p *capture.Problem
		if !errors.As(err, &p) {
			return nil, err
		}
		v.problem(p)
		return r, nil
	}
	l := res.Layout
	r.Layout, r.LayoutOK, r.Resolved = l, true, res
	v.layout, v.hint = l, res.Hint
	if p := o.Layout.Plan; p != nil && p.CubeSlots != l.CubeSlots {
		v.warn(CodePlanMismatch, c.Base, "", -1, fmt.Sprintf("%d cube slots (%s)", l.CubeSlots, res.How),
			fmt.Sprintf("%d (the cube slot count of host plan %s)", p.CubeSlots, p.Name))
	}
	if p := c.BytesAfterLayout(res); p != nil && v.col.want(p.Code, p.Severity, p.Off) {
		f := fromProblem(p)
		f.File = "" // as every finding of the walk: the result names the file
		v.col.add(f)
	}
	opts := capture.ScanOptions{Problem: v.problem, Record: v.record, Slot: v.slot, Block: v.block, Hint: res.Hint, Slots: o.Slots}
	if !fastPaths {
		opts.Block = nil
	}
	var sum *capture.Summary
	if w := v.parallel(); w > 1 && l.NumSlots() > 1 {
		sum, err = v.scanParallel(l, opts, w)
	} else {
		sum, err = c.Scan(l, opts)
	}
	if err == nil {
		err = v.err
	}
	if err != nil {
		return nil, err
	}
	r.Records, r.Dropped = sum.Records, sum.Dropped
	if v.ids != nil {
		r.DescIDs = slices.Sorted(maps.Keys(v.ids))
	}
	v.droppedTotal()
	if err := v.staleSlots(sum); err != nil {
		return nil, err
	}
	v.planMismatches()
	if err := v.idleWorkers(sum); err != nil {
		return nil, err
	}
	return r, nil
}

// validator holds the state of one check: the collector, and what the
// record hook needs to remember about the slot it is in.
type validator struct {
	c      *capture.Capture
	o      Options
	col    *collector
	layout abi.Layout
	// hint is the resolution's hint: what to do when the layout is wrong.
	hint string

	// ranges and rangeIdx: in a parallel walk, the walk's shared record of
	// full codes and the index of the range of slots this validator walks.
	ranges   rangesFull
	rangeIdx int

	cur slotState
	// err is an I/O error met in a hook, returned once the scan ends.
	err error

	// Dropped records, for the capture's dropped-total finding.
	droppingCores uint64
	dropped       uint64
	needed        []need // per core type, the most records a dropping slot needed

	planDiffs []planDiff

	hbuf    []byte
	spans   []span
	records []abi.ProfileRecord
	rbuf    []byte

	// descOK caches desc_ids that draw no warning, at descSlot(id); an
	// empty place holds an id that does not hash there.
	descOK [256]uint32
	// ids holds every desc_id walked, when Options.DescIDs asks: the
	// record hook adds each record's, and descBad each it puts in descOK
	// (which the block check lets by unasked).
	ids map[uint32]struct{}

	// Text shared by many findings.
	descExpected     string
	coreTypeExpected string
}

// need is the most records a dropping slot of a core type needed.
type need struct {
	t       abi.CoreType
	records uint64
}

// slotState is what the record hook remembers about the slot it walks.
type slotState struct {
	off       int64 // file offset of the slot's header
	name      string
	entry     uint64
	prevStart uint64
	// maxEnd is the largest end_cycle of the records checked against so
	// far (the slot's, or the current run's), maxIdx the record it ends.
	maxEnd uint64
	maxIdx int
	// firstBreak is the first record that starts before its predecessor,
	// -1 while the records are in start order.
	firstBreak int
	// exact: the slot is small enough to be read back and sorted if it
	// turns out unsorted; then overlaps past firstBreak wait for that.
	exact bool
}

func newValidator(c *capture.Capture, o Options) *validator {
	limit := o.MaxFindings
	if limit == 0 {
		limit = DefaultMaxFindings
	}
	if limit < 0 || limit > maxKeptFindings {
		limit = maxKeptFindings
	}
	v := &validator{c: c, o: o, col: newCollector(limit, o.OnFinding)}
	// Every place starts with an id that does not hash there: 0 hashes to
	// place 0, 1 does not.
	v.descOK[0] = 1
	if o.DescIDs {
		v.ids = map[uint32]struct{}{}
	}
	return v
}

func (v *validator) finish(r *Result) {
	r.Findings, r.Counts = v.col.finish()
	r.MaxFindings = v.col.limit
}

// problem receives capture's errors; it never stops the scan.
func (v *validator) problem(p *capture.Problem) bool {
	if !v.col.want(p.Code, p.Severity, p.Off) {
		return true
	}
	v.col.add(fromProblem(p))
	return true
}

func warning(code capture.Code, off int64, slot string, record int, value, expected string) Finding {
	return Finding{Problem: capture.Problem{Severity: capture.Warning, Code: code, Off: off, Slot: slot, Record: record, Value: value, Expected: expected}}
}

func (v *validator) warn(code capture.Code, off int64, slot string, record int, value, expected string) {
	if v.col.want(code, capture.Warning, off) {
		v.col.add(warning(code, off, slot, record, value, expected))
	}
}

// plural renders "1 record", "2 records".
func plural(n uint64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// staleSlots reports the cores whose span lies far outside the launch's
// (capture.StaleSlots), at each one's entry_cycle.
func (v *validator) staleSlots(sum *capture.Summary) error {
	stale, err := v.c.StaleSlots(sum)
	if err != nil {
		return err
	}
	for _, s := range stale {
		v.warn(CodeStaleSlot, v.c.FileOffset(int64(s.Slot.Slot.Offset)+abi.CoreHeaderEntryCycleOffset), s.Slot.Slot.String(), -1,
			fmt.Sprintf("entry_cycle=%d, %s", s.Slot.EntryCycle, s.Where()), "an entry within the launch: "+capture.StaleCause)
	}
	return nil
}
