// Package dump prints a capture's bytes field by field, the way
// `flatc --annotate` shows a FlatBuffer: for every field of every shown
// header and record, its file offset, raw bytes, schema name and type, the
// decoded value and what it means (enum and descriptor names), with
// validate's findings under the fields they concern. The fields come from
// abi.CoreHeaderFields and abi.ProfileRecordFields, so the view follows
// the schema.
package dump

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
)

// DefaultRecords is how many records of each slot are shown by default.
const DefaultRecords = 8

// Options say what to show.
type Options struct {
	// Layout is what is known of the layout, as for decode and validate;
	// with a host plan, plan-mismatch notes show under the headers that
	// differ from it.
	Layout capture.Request
	// Slot, when set, shows only that slot ("AIV/3"), idle or not.
	Slot string
	// Records is how many records of each slot are shown; negative shows all.
	Records int
	// Family is the kernel family desc_ids are named under (and validate's
	// task-type check follows); abi.FamilyNone for the schema's tables.
	Family abi.Family
	// Names, when set, names descriptors and task stages as decode
	// names them (a names file, read under Family); nil shows the
	// family's or the schema's names.
	Names *kernelnames.Names
}

// ErrNoLayout is returned (after what could be shown was written) when the
// capture's layout cannot be resolved.
var ErrNoLayout = errors.New("the capture's layout cannot be resolved")

// Write dumps the capture c to w. It returns ErrNoLayout (wrapped, with the
// problem) when only the capture's first header could be shown, and other
// errors for options that make no layout, an unknown --slot, or I/O.
//
// Memory does not grow with the capture's findings: one check of the whole
// capture counts them and notes which slots have any, and each slot shown
// is checked again on its own while its records are written, its findings
// shown as they are found (see slot).
func Write(w io.Writer, c *capture.Capture, o Options) error {
	bw := bufio.NewWriter(w)
	d := &dumper{w: bw, c: c, o: o, names: o.Names.WithFamily(o.Family)}
	err := d.run()
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// bufferedRecords: the findings of a slot of at most this many walked
// records are gathered before it is shown; a larger slot's are shown as
// validate finds them, in record order. It is validate's limit on the
// slots it reads back to find overlaps, the one check whose findings come
// out of record order (all at once, after the slot's records). Tests lower
// it to compare the two ways.
var bufferedRecords = 1 << 16

type dumper struct {
	w *bufio.Writer
	c *capture.Capture
	o Options
	l abi.Layout
	// notes are the capture's own findings (of no slot), noted the slots
	// that some finding concerns.
	notes []validate.Finding
	noted slotSet
	// names are Options.Names read under Options.Family.
	names *kernelnames.Names
	// offWidth is the hex digits of the largest file offset.
	offWidth int
}

// slotSet is a set of slots, a bit per block ID and core type.
type slotSet map[abi.CoreType][]uint64

func (s slotSet) add(name string) {
	t, block, err := parseSlot(name)
	if err != nil {
		return
	}
	bits := s[t]
	for int(block/64) >= len(bits) {
		bits = append(bits, 0)
	}
	bits[block/64] |= 1 << (block % 64)
	s[t] = bits
}

func (s slotSet) has(sl abi.Slot) bool {
	bits := s[sl.CoreType]
	return int(sl.BlockID/64) < len(bits) && bits[sl.BlockID/64]&(1<<(sl.BlockID%64)) != 0
}

func (d *dumper) run() error {
	c := d.c
	d.offWidth = max(4, len(fmt.Sprintf("%x", c.Base+c.Size())))
	fmt.Fprintf(d.w, "%s: %s capture, %d bytes", c.Name, c.Format, c.Base+c.Size())
	if c.Format == capture.NPY {
		fmt.Fprintf(d.w, " (.npy header %d bytes; the buffer is the %d payload bytes at @%#x)", c.Base, c.Size(), c.Base)
	}
	fmt.Fprintf(d.w, "\nABI v%d fingerprint %s\n", abi.Version, abi.FingerprintHex)

	if d.o.Slot != "" {
		if _, _, err := parseSlot(d.o.Slot); err != nil {
			return err
		}
	}
	// Count the findings, keep the capture's own (a few by their nature:
	// one per code at most, but for the header-field ones of plan
	// mismatches, one per core type) and note the slots that have any.
	d.noted = slotSet{}
	r, err := validate.Check(c, validate.Options{Layout: d.o.Layout, Family: d.o.Family, MaxFindings: 1, OnFinding: func(f *validate.Finding) {
		if f.Slot == "" {
			d.notes = append(d.notes, *f)
		} else {
			d.noted.add(f.Slot)
		}
	}})
	if err != nil {
		return err
	}
	if !r.LayoutOK {
		return d.noLayout(r)
	}
	d.l = r.Layout
	want := -1
	if d.o.Slot != "" {
		t, block, _ := parseSlot(d.o.Slot)
		s, ok := d.l.SlotOf(t, block)
		if !ok {
			return fmt.Errorf("--slot %s: the layout has %d %s slots", d.o.Slot, d.l.SlotCount(t), t)
		}
		for i := range d.l.NumSlots() {
			if d.l.Slot(i) == s {
				want = i
			}
		}
	}
	fmt.Fprintf(d.w, "layout: %s; %d slots, %d bytes (%s)\n", d.l, d.l.NumSlots(), d.l.Size(), r.Resolved.How)
	fmt.Fprintf(d.w, "%d records, %d dropped; %s, %s (cycleabi validate lists them all)\n",
		r.Records, r.Dropped, plural(r.Errors(), "error"), plural(r.Warnings(), "warning"))
	for _, f := range d.notes {
		fmt.Fprintf(d.w, "! %s\n", f.String())
	}
	if want >= 0 {
		return d.slot(want)
	}
	for i := 0; i < d.l.NumSlots(); {
		s := d.l.Slot(i)
		idle, err := d.idle(s)
		if err != nil {
			return err
		}
		if !idle {
			if err := d.slot(i); err != nil {
				return err
			}
			i++
			continue
		}
		j := i + 1
		for ; j < d.l.NumSlots() && d.l.Slot(j).CoreType == s.CoreType; j++ {
			if idle, err := d.idle(d.l.Slot(j)); err != nil {
				return err
			} else if !idle {
				break
			}
		}
		last := d.l.Slot(j - 1)
		end := d.c.FileOffset(int64(last.Offset+last.Stride())) - 1
		if j-i == 1 {
			fmt.Fprintf(d.w, "\n%s idle @%s..@%s\n", s, d.hex(d.c.FileOffset(int64(s.Offset))), d.hex(end))
		} else {
			fmt.Fprintf(d.w, "\n%s..%s idle (%d slots @%s..@%s)\n", s, last, j-i, d.hex(d.c.FileOffset(int64(s.Offset))), d.hex(end))
		}
		i = j
	}
	if extra := d.c.Size() - int64(d.l.Size()); extra > 0 {
		fmt.Fprintf(d.w, "\n@%s  %d bytes after the layout\n", d.hex(d.c.FileOffset(int64(d.l.Size()))), extra)
	}
	return nil
}

// idle: the slot's header is all zero and no finding concerns it, so one
// line says all there is to say.
func (d *dumper) idle(s abi.Slot) (bool, error) {
	if d.noted.has(s) {
		return false, nil
	}
	h, _, err := d.header(int64(s.Offset))
	if err != nil {
		return false, err
	}
	return h.IsZero(), nil
}

func (d *dumper) header(off int64) (abi.CoreHeader, []byte, error) {
	b := make([]byte, abi.CoreHeaderSize)
	if _, err := d.c.ReadAt(b, off); err != nil {
		return abi.CoreHeader{}, nil, err
	}
	h, err := abi.DecodeCoreHeader(b)
	return h, b, err
}

// check validates slot i of the layout alone, handing f each of its
// findings (of a shown record, when not all are shown).
func (d *dumper) check(i int, f func(*validate.Finding)) error {
	name := d.l.Slot(i).String()
	_, err := validate.Check(d.c, validate.Options{Layout: d.o.Layout, Family: d.o.Family, MaxFindings: 1, Slots: &capture.SlotRange{From: i, To: i + 1},
		OnFinding: func(n *validate.Finding) {
			if n.Slot == name && (d.o.Records < 0 || n.Record < d.o.Records) {
				f(n)
			}
		}})
	return err
}

// slot shows slot i's header and its first records, each field followed
// by the findings in it, and then the slot's findings that no shown field
// holds. A slot of at most bufferedRecords records is checked once, its
// findings gathered and sorted by record; a larger one is checked twice:
// once for the header's findings (a few), then again while its records
// are written, each as soon as validate has moved past it.
func (d *dumper) slot(i int) error {
	s := d.l.Slot(i)
	h, hb, err := d.header(int64(s.Offset))
	if err != nil {
		return err
	}
	off := d.c.FileOffset(int64(s.Offset))
	walked := 0
	if !h.IsZero() {
		walked = int(min(h.RecordCount, s.Capacity))
	}
	shown := walked
	if d.o.Records >= 0 {
		shown = min(walked, d.o.Records)
	}
	buffered := walked <= bufferedRecords
	var notes, other []validate.Finding
	// held says whether a shown field holds the finding.
	held := func(f *validate.Finding) bool {
		if f.Record < 0 {
			return f.Off >= off && f.Off < off+abi.CoreHeaderSize
		}
		roff := off + abi.CoreHeaderSize + int64(f.Record)*abi.ProfileRecordSize
		return f.Record < shown && f.Off >= roff && f.Off < roff+abi.ProfileRecordSize
	}
	err = d.check(i, func(f *validate.Finding) {
		if buffered || f.Record < 0 {
			notes = append(notes, *f)
		}
	})
	if err != nil {
		return err
	}
	// Stable: the findings of one record keep the order they were found in.
	slices.SortStableFunc(notes, func(a, b validate.Finding) int { return cmp.Compare(a.Record, b.Record) })
	fmt.Fprintf(d.w, "\n%s @%s (%d bytes: the header, then room for %d records)", s, d.hex(off), s.Stride(), s.Capacity)
	if h.IsZero() {
		d.w.WriteString("; unused: the header is all zero")
	}
	d.w.WriteByte('\n')
	at := 0 // notes[at:] are of records not yet written
	for at < len(notes) && notes[at].Record < 0 {
		at++
	}
	d.fields(off, hb, abi.CoreHeaderFields(), notes[:at], -1, &h, nil)
	for _, f := range notes[:at] {
		if !held(&f) {
			other = append(other, f)
		}
	}
	notes = notes[at:]

	rb := make([]byte, abi.ProfileRecordSize)
	next := 0 // the next record to write
	// write writes the records before record end, each with its findings:
	// notes, from the first, are of the records from next on.
	write := func(end int) error {
		for ; next < min(end, shown); next++ {
			roff := int64(s.Offset) + abi.CoreHeaderSize + int64(next)*abi.ProfileRecordSize
			if _, err := d.c.ReadAt(rb, roff); err != nil {
				return err
			}
			r, err := abi.DecodeProfileRecord(rb)
			if err != nil {
				return err
			}
			k := 0
			for k < len(notes) && notes[k].Record == next {
				k++
			}
			fmt.Fprintf(d.w, "  record %d @%s\n", next, d.hex(d.c.FileOffset(roff)))
			d.fields(d.c.FileOffset(roff), rb, abi.ProfileRecordFields(), notes[:k], next, &h, &r)
			notes = notes[k:]
		}
		return nil
	}
	for _, f := range notes {
		if !held(&f) {
			other = append(other, f)
		}
	}
	if !buffered {
		var werr error
		err = d.check(i, func(f *validate.Finding) {
			switch {
			case f.Record < 0 || werr != nil:
			case !held(f) || f.Record < next:
				// Not under a field, or (never, by validate's order)
				// found after its record was written.
				other = append(other, *f)
			default:
				// Every record before f's is written: notes holds
				// the findings of f's record alone.
				if werr = write(f.Record); werr == nil {
					notes = append(notes, *f)
				}
			}
		})
		if err == nil {
			err = werr
		}
		if err != nil {
			return err
		}
	}
	if err := write(shown); err != nil {
		return err
	}
	if more := walked - shown; more > 0 {
		fmt.Fprintf(d.w, "  ... %s (--records N shows more)\n", plural(more, "more record"))
	}
	// Findings of the slot that no shown field holds.
	for _, f := range other {
		fmt.Fprintf(d.w, "  ! %s\n", f.String())
	}
	return nil
}

// fields prints one line per field of a struct at file offset off, each
// followed by the findings whose offset falls in it.
func (d *dumper) fields(off int64, b []byte, fields []abi.FieldInfo, notes []validate.Finding, record int, h *abi.CoreHeader, r *abi.ProfileRecord) {
	for _, f := range fields {
		raw := b[f.Offset : f.Offset+f.Size]
		foff := off + int64(f.Offset)
		if f.Type == "pad" {
			d.padding(foff, f, raw)
		} else {
			v := f.Value(b)
			fmt.Fprintf(d.w, "    @%s  %-23s  %-16s  %-3s  %s\n", d.hex(foff), hexBytes(raw), f.Name, f.Type, describe(f, v, h, r, d.names))
		}
		for _, n := range notes {
			if n.Record == record && n.Off >= foff && n.Off < foff+int64(f.Size) {
				fmt.Fprintf(d.w, "      ^ %s %s: %s\n", n.Severity, n.Code, n.Message())
			}
		}
	}
}

// padding prints a pad field: one line when it is all zero, else eight
// bytes a line.
func (d *dumper) padding(off int64, f abi.FieldInfo, raw []byte) {
	zero := true
	for _, x := range raw {
		zero = zero && x == 0
	}
	if zero {
		fmt.Fprintf(d.w, "    @%s  %-23s  %-16s  %-3s  all zero\n", d.hex(off), fmt.Sprintf("00 x %d", len(raw)), f.Name, f.Type)
		return
	}
	for i := 0; i < len(raw); i += 8 {
		chunk := raw[i:min(i+8, len(raw))]
		name := fmt.Sprintf("%s[%d:%d]", f.Name, i, i+len(chunk))
		fmt.Fprintf(d.w, "    @%s  %-23s  %-16s  %-3s\n", d.hex(off+int64(i)), hexBytes(chunk), name, f.Type)
	}
}

// describe renders a field's decoded value and what it means, with the
// names of names (nil: the schema's), under its family, as decode gives
// them.
func describe(f abi.FieldInfo, v uint64, h *abi.CoreHeader, r *abi.ProfileRecord, names *kernelnames.Names) string {
	s := fmt.Sprint(v)
	switch {
	case f.Enum == "CoreType" && abi.CoreType(v).Valid():
		s += " (" + abi.CoreType(v).String() + ")"
	case f.Enum == "CoreType":
		s += " (no such CoreType)"
	case f.Enum != "":
		s += " (" + f.Enum + ")"
	}
	if r == nil {
		return s
	}
	switch f.Name {
	case "start_cycle":
		if h.EntryCycle != 0 {
			s += fmt.Sprintf(" (entry %+d)", int64(r.StartCycle-h.EntryCycle))
		}
	case "end_cycle":
		s += fmt.Sprintf(" (duration %d)", int64(r.EndCycle-r.StartCycle))
	case "desc_id":
		s = fmt.Sprintf("%#x %s", v, names.StageName(uint32(v)))
		if event := names.EventName(r, false, ""); event != names.StageName(uint32(v)) {
			// Prefixed with the task's stage, as the trace names it.
			s += " (event " + event + ")"
		}
	case "task_id":
		if stage, ok := names.TaskStage(r.TaskID); ok {
			s += " (task stage " + stage + ")"
		}
	case "stage_task_index":
		s += fmt.Sprintf(" (task %d)", r.TaskNumber())
	case "owner_id":
		if uint32(v) == abi.InvalidOwnerID {
			s = fmt.Sprintf("%#x (no owner)", v)
		}
	}
	return s
}

// noLayout shows what can be shown of a capture whose layout is not known:
// the problem, and the headers whose place does not depend on it.
func (d *dumper) noLayout(r *validate.Result) error {
	for _, f := range r.Findings {
		fmt.Fprintf(d.w, "! %s\n", f.String())
	}
	if r.Opened && d.c.Size() >= abi.CoreHeaderSize {
		h, hb, err := d.header(0)
		if err != nil {
			return err
		}
		first := abi.Slot{CoreType: abi.Regions()[0].CoreType}
		fmt.Fprintf(d.w, "\n%s @%s: header (its place does not depend on the layout)\n", first, d.hex(d.c.FileOffset(0)))
		d.fields(d.c.FileOffset(0), hb, abi.CoreHeaderFields(), r.Findings, -1, &h, nil)
	}
	if len(r.Findings) > 0 {
		return fmt.Errorf("%w: %s", ErrNoLayout, r.Findings[0].String())
	}
	return ErrNoLayout
}

func (d *dumper) hex(off int64) string { return fmt.Sprintf("0x%0*x", d.offWidth, off) }

func hexBytes(b []byte) string {
	var s strings.Builder
	for i, x := range b {
		if i > 0 {
			s.WriteByte(' ')
		}
		fmt.Fprintf(&s, "%02x", x)
	}
	return s.String()
}

// parseSlot parses a slot name like "AIV/3".
func parseSlot(name string) (abi.CoreType, uint32, error) {
	t, id, ok := strings.Cut(name, "/")
	ct, okType := abi.ParseCoreType(t)
	block, err := strconv.ParseUint(id, 10, 32)
	if !ok || !okType || err != nil {
		return 0, 0, fmt.Errorf("--slot %q: want a slot like AIC/3 or AIV/17", name)
	}
	return ct, uint32(block), nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
