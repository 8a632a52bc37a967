package jsontrace

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/outfile"
)

// placeBudget bounds the records buffered on their way to their slots
// over all cores (8 MiB of records and event offsets).
const placeBudget = 8 << 20 / (abi.ProfileRecordSize + 8)

// maxRebuiltBytes bounds the (sparse) scratch file of a trace's rebuilt
// buffers: 1 TiB, far past any device's memory.
const maxRebuiltBytes = 1 << 40

// What every trace leaves out, said once per capture.
const (
	noteIdleCores = "a trace holds only the cores that wrote records: cores that entered the kernel and wrote none are not in it"
	noteHeaders   = "a trace holds no core headers: each core's dropped count, and the order the device wrote a core's records in, are not in it (records are rebuilt in trace order)"
)

// describe pairs s with its metadata and works out its names and layout.
func (r *reader) describe(s *Source, n int) error {
	m := r.meta
	var rm *meta
	var im *invocationMeta
	if s.key.hasInv {
		for i := range m.Invocations {
			e := &m.Invocations[i]
			if e.InvocationID == s.key.inv && (e.Rank == nil || *e.Rank == s.key.rank) {
				im = e
				// cycleabi decode lists each input's object under ranks,
				// in the order of invocations.
				if len(m.Ranks) == len(m.Invocations) {
					rm = &m.Ranks[i]
				}
				break
			}
		}
		if im == nil {
			return &Error{File: r.path, Line: s.first.Line, Offset: s.first.Offset,
				Msg: fmt.Sprintf("events of invocation %d of rank %d, which megaKernelCycleTrace.invocations does not list", s.key.inv, s.key.rank)}
		}
	} else if len(m.Invocations) > 0 {
		return &Error{File: r.path, Line: s.first.Line, Offset: s.first.Offset,
			Msg: fmt.Sprintf("an event of rank %d without args.invocation_id in a window (megaKernelCycleTrace.invocations)", s.key.rank)}
	} else if len(m.Ranks) > 0 {
		for i := range m.Ranks {
			if e := &m.Ranks[i]; e.Rank != nil && *e.Rank == s.key.rank {
				rm = e
				break
			}
		}
	} else if m.Rank == nil || *m.Rank == s.key.rank {
		rm = m
	}
	if rm == nil && !s.key.hasInv {
		return &Error{File: r.path, Line: s.first.Line, Offset: s.first.Offset,
			Msg: fmt.Sprintf("events of rank %d, which megaKernelCycleTrace does not describe", s.key.rank)}
	}
	if rm == nil {
		rm = &meta{} // upstream's window states no per-invocation layout
	}

	s.Name = r.path
	if n > 1 {
		s.Name = fmt.Sprintf("%s (rank %d)", r.path, s.key.rank)
		if s.key.hasInv {
			s.Name = fmt.Sprintf("%s (rank %d, invocation %d)", r.path, s.key.rank, s.key.inv)
		}
	}
	s.Rank = s.key.rank
	if s.key.hasInv {
		inv := &render.Invocation{ID: s.key.inv, Step: s.step, Direction: s.dir}
		if im.Step != nil {
			inv.Step = im.Step
		}
		if im.Direction != nil {
			inv.Direction = *im.Direction
		}
		if err := render.CheckDirection(inv.Direction); err != nil {
			return &Error{File: r.path, Line: s.first.Line, Offset: s.first.Offset, Msg: fmt.Sprintf("invocation %d of rank %d: %v", s.key.inv, s.key.rank, err)}
		}
		s.Invocation = inv
	}
	s.KernelName = firstString(pick(im, func(e *invocationMeta) *string { return e.KernelName }), rm.KernelName, m.KernelName)
	s.SoCName = firstString(rm.SoCName, m.SoCName)
	s.KernelFamily = firstString(rm.KernelFamily, m.KernelFamily)
	s.KernelFamilyFrom = firstString(rm.KernelFamilyFrom, m.KernelFamilyFrom)
	if mhz := firstFloat(rm.MHz, m.MHz); mhz != nil {
		if err := CheckFrequency("megaKernelCycleTrace.cycleFrequencyMHz", *mhz); err != nil {
			return &Error{File: r.path, Line: r.metaAt.Line, Offset: r.metaAt.Offset, Msg: err.Error()}
		}
		s.FrequencyMHz = *mhz
	}
	s.DetailedNames = firstBool(rm.Detailed, m.Detailed)
	s.WindowIndex = m.WindowIndex
	s.OwnerLabel = firstString(rm.OwnerLabel, m.OwnerLabel)
	r.capMetaNames(s)

	count := rm.RecordCount
	dropped := rm.Dropped
	if im != nil {
		count, dropped = im.RecordCount, im.Dropped
	}
	if count != nil && *count != s.Records {
		return &Error{File: r.path, Msg: fmt.Sprintf("%s: the metadata says %d records, the trace holds %d record events (an edited or truncated trace?)", s.Name, *count, s.Records)}
	}
	if dropped != nil {
		s.Dropped = *dropped
	}
	s.Notes = append(s.Notes, noteIdleCores, noteHeaders)
	switch {
	case dropped == nil:
		s.Notes = append(s.Notes, "the trace states no dropped-record count for this capture: 0 is shown, which may be short")
	case *dropped > 0:
		s.Notes = append(s.Notes, fmt.Sprintf("the device dropped %d records (the trace's droppedRecordCount); which cores dropped them is not in a trace", *dropped))
	}
	if s.FrequencyMHz == 0 && s.SoCName != "" {
		// The trace's own SoC, before its events: what decode does with a
		// capture and --soc.
		if mhz, err := abi.SystemCounterMHz(s.SoCName); err == nil {
			s.FrequencyMHz = mhz
			s.Notes = append(s.Notes, fmt.Sprintf("the trace states no cycle frequency (cycleFrequencyMHz): %s MHz, the system counter of its socName %s; --freq-mhz or --soc overrides",
				strconv.FormatFloat(mhz, 'f', -1, 64), s.SoCName))
		}
	}
	s.freqNote = len(s.Notes) // the events' frequency, once all are read (reader.eventFrequency)
	if r.merge != nil {
		s.Notes = append(s.Notes, r.mergeNote(s))
	}
	s.Names = s.names()
	s.tasks, s.descs = nil, nil // in Names now
	return r.layout(s, rm)
}

// names derives the names the events carry: each desc_id's stage name
// from its first event's name, less the detailed-name decorations and the
// task-stage prefix, where it differs from the schema's; each task's
// task_stage.
func (s *Source) names() *kernelnames.Names {
	n := &kernelnames.Names{Stages: map[uint32]string{}, Tasks: kernelnames.TaskNamesOf(s.tasks)}
	for id, d := range s.descs {
		base := d.name
		if s.DetailedNames {
			base = strings.TrimSuffix(base, "_task"+strconv.FormatUint(uint64(d.index)+1, 10))
			if d.owner != abi.InvalidOwnerID {
				base = trimOwner(base, s.OwnerLabel, d.owner)
			}
		}
		if d.wait && d.hasStage {
			base = strings.TrimPrefix(base, d.stage+"_")
		}
		if base == (*kernelnames.Names)(nil).StageName(id) || base == referenceFallback(id) {
			continue
		}
		n.Stages[id] = base
	}
	if len(n.Stages) == 0 && n.Tasks.Len() == 0 {
		return nil
	}
	return n
}

// referenceFallback is the name the reference decoder gives a desc_id at
// or past the task-type base that the schema does not name: it reads
// every such id as a task type ("TaskType_65541" for graph stage 5). Read
// back, the id is what the schema's ranges say it is.
func referenceFallback(id uint32) string {
	if id < abi.TaskTypeBase {
		return ""
	}
	return "TaskType_" + strconv.FormatUint(uint64(id-abi.TaskTypeBase), 10)
}

// trimOwner removes a detailed name's owner prefix, "<label><owner>_":
// with the label the trace states, else any label of letters.
func trimOwner(name, label string, owner uint32) string {
	id := strconv.FormatUint(uint64(owner), 10) + "_"
	if label != "" {
		return strings.TrimPrefix(name, label+id)
	}
	i := strings.Index(name, id)
	if i <= 0 {
		return name
	}
	for _, c := range name[:i] {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return name
		}
	}
	return name[i+len(id):]
}

// layout works out the layout s is rebuilt in: the metadata's capacities
// and cube slot count (cubeSlots, or profileBufferBytes over the
// capacities' stride) when it states them, else the smallest that holds
// the records.
func (r *reader) layout(s *Source, rm *meta) error {
	var caps abi.Capacities
	statedCaps := len(rm.Capacities) > 0
	var most [256]uint64
	need := uint32(abi.MinCubeSlots)
	for _, c := range s.cores {
		most[c.t] = max(most[c.t], c.count)
		need = max(need, c.block/slotsPerCube(c.t)+1)
	}
	for _, reg := range abi.Regions() {
		t := reg.CoreType
		if statedCaps {
			v, ok := rm.Capacities[t.String()]
			if !ok {
				return &Error{File: r.path, Msg: fmt.Sprintf("%s: recordCapacityPerCore states no %s capacity", s.Name, t)}
			}
			caps.Set(t, v)
			continue
		}
		a := uint64(abi.RecordCapacityAlignment)
		caps.Set(t, uint32((most[t]+a-1)/a*a))
	}
	for _, c := range s.cores {
		if c.count > uint64(caps.For(c.t)) {
			return &Error{File: r.path, Line: c.first.Line, Offset: c.first.Offset,
				Msg: fmt.Sprintf("%s: %s has %d record events, more than its capacity %d (recordCapacityPerCore)", s.Name, c, c.count, caps.For(c.t))}
		}
	}
	cube, how := need, ""
	switch {
	case rm.CubeSlots != nil:
		cube = *rm.CubeSlots
	case rm.BufferBytes != nil && statedCaps:
		var per uint64
		for _, reg := range abi.Regions() {
			per += uint64(reg.SlotsPerCubeSlot) * abi.SlotStride(caps.For(reg.CoreType))
		}
		if *rm.BufferBytes%per != 0 || *rm.BufferBytes/per > MaxCubeSlots {
			return &Error{File: r.path, Msg: fmt.Sprintf("%s: profileBufferBytes %d is no whole number of cube slots of %d bytes at the stated capacities", s.Name, *rm.BufferBytes, per)}
		}
		cube = uint32(*rm.BufferBytes / per)
	default:
		how = fmt.Sprintf("the trace states no cube slot count: %d (the fewest that number its cores) is shown", need)
	}
	if cube > MaxCubeSlots || cube < need {
		return &Error{File: r.path, Msg: fmt.Sprintf("%s: a layout of %d cube slots, which cannot hold its cores (they need %d to %d)", s.Name, cube, need, MaxCubeSlots)}
	}
	l, err := abi.NewLayout(cube, caps)
	if err != nil {
		return &Error{File: r.path, Msg: fmt.Sprintf("%s: the stated layout: %v", s.Name, err)}
	}
	if rm.BufferBytes != nil && statedCaps && rm.CubeSlots != nil && *rm.BufferBytes != l.Size() {
		// Which of the two is right cannot be told: refused, as a
		// profileBufferBytes no layout has is.
		return &Error{File: r.path, Msg: fmt.Sprintf("%s: profileBufferBytes %d contradicts cubeSlots %d at the stated capacities (recordCapacityPerCore), whose buffer is %d bytes", s.Name, *rm.BufferBytes, cube, l.Size())}
	}
	s.Layout = l
	if !statedCaps {
		var parts []string
		for _, reg := range abi.Regions() {
			parts = append(parts, fmt.Sprintf("%s %d", reg.CoreType, caps.For(reg.CoreType)))
		}
		s.Notes = append(s.Notes, "the trace states no record capacities: the smallest that hold its records are shown ("+strings.Join(parts, ", ")+")")
	}
	if how != "" {
		s.Notes = append(s.Notes, how)
	}
	return nil
}

// rebuild writes every capture into one scratch file: headers, then the
// spool's records into their slots, each with its event's offset in a
// table after the buffer.
func (r *reader) rebuild(dir string, sorted []*Source) (*Trace, error) {
	f, err := outfile.CreateScratch(dir, "cycleabi-trace-*")
	if err != nil {
		return nil, err
	}
	t := &Trace{Path: r.path, Sources: sorted, file: f}
	fail := func(err error) (*Trace, error) {
		t.Close()
		return nil, fmt.Errorf("%s: rebuilding its captures: %w", r.path, err)
	}
	var end int64
	cores := 0
	for _, s := range sorted {
		size := int64(s.Layout.Size())
		s.trace, s.base, s.table = t, end, end+size
		end += size + size/abi.ProfileRecordSize*8
		cores += len(s.cores)
		if end > maxRebuiltBytes {
			t.Close()
			// end counts each buffer and its table of event offsets (8
			// bytes a record slot): name both, and the sum compared.
			return nil, &Error{File: r.path, Msg: fmt.Sprintf("%s: its stated layout (%s bytes, and %s bytes of event offsets) and those before it need %s bytes of scratch, more than the %s cycleabi rebuilds captures in (no device holds such a buffer)",
				s.Name, groupDigits(uint64(size)), groupDigits(uint64(size/abi.ProfileRecordSize*8)), groupDigits(uint64(end)), groupDigits(maxRebuiltBytes))}
		}
	}
	if err := f.Truncate(end); err != nil {
		return fail(err)
	}
	for _, s := range sorted {
		for _, c := range s.cores {
			h := abi.CoreHeader{EntryCycle: c.entry, RecordCount: uint32(c.count), CoreType: c.t, BlockID: c.block, RecordCapacity: s.Layout.Capacities.For(c.t)}
			if _, err := f.WriteAt(h.Append(nil), s.base+int64(s.Layout.SlotOffset(c.t, c.block))); err != nil {
				return fail(err)
			}
		}
	}
	per := max(1, min(1024, placeBudget/max(cores, 1)))
	if _, err := r.spool.Seek(0, io.SeekStart); err != nil {
		return fail(err)
	}
	in := bufio.NewReaderSize(r.spool, 1<<20)
	var e [spoolEntry]byte
	for range r.events {
		if _, err := io.ReadFull(in, e[:]); err != nil {
			return fail(fmt.Errorf("reading the spool: %w", err))
		}
		s := r.order[binary.LittleEndian.Uint32(e[0:])]
		c := s.cores[binary.LittleEndian.Uint32(e[4:])]
		if len(c.recs) == 0 {
			c.bufFirst = c.placed
		}
		c.recs = append(c.recs, e[8:8+abi.ProfileRecordSize]...)
		c.offs = append(c.offs, e[8+abi.ProfileRecordSize:]...)
		c.placed++
		if len(c.offs) >= per*8 {
			if err := s.flush(c); err != nil {
				return fail(err)
			}
		}
	}
	for _, s := range sorted {
		for _, c := range s.cores {
			if err := s.flush(c); err != nil {
				return fail(err)
			}
			c.recs, c.offs = nil, nil
		}
		size := int64(s.Layout.Size())
		if s.capture, err = capture.FromReaderAt(s.Name, io.NewSectionReader(f, s.base, size), size); err != nil {
			return fail(err)
		}
	}
	return t, nil
}

// flush writes c's buffered records and their event offsets.
func (s *Source) flush(c *core) error {
	if len(c.recs) == 0 {
		return nil
	}
	at := int64(s.Layout.SlotOffset(c.t, c.block)) + abi.CoreHeaderSize + int64(c.bufFirst)*abi.ProfileRecordSize
	if _, err := s.trace.file.WriteAt(c.recs, s.base+at); err != nil {
		return err
	}
	if _, err := s.trace.file.WriteAt(c.offs, s.table+at/abi.ProfileRecordSize*8); err != nil {
		return err
	}
	c.recs, c.offs = c.recs[:0], c.offs[:0]
	return nil
}

func pick(im *invocationMeta, f func(*invocationMeta) *string) *string {
	if im == nil {
		return nil
	}
	return f(im)
}

func firstString(vs ...*string) string {
	for _, v := range vs {
		if v != nil {
			return *v
		}
	}
	return ""
}

func firstFloat(vs ...*float64) *float64 {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

func firstBool(vs ...*bool) bool {
	for _, v := range vs {
		if v != nil {
			return *v
		}
	}
	return false
}

// mergeNote says that s is the MegaKernel part of a merged trace, and
// where merge placed it (its invocation's alignment): the records are
// read from their cycles, which merge keeps; only the events' timestamps
// moved.
func (r *reader) mergeNote(s *Source) string {
	const cycles = "; its records come from their cycles, which merge keeps (it moves only the events' timestamps)"
	for _, a := range r.merge.Alignments {
		if s.Invocation == nil || a.InvocationID == s.Invocation.ID {
			return fmt.Sprintf("a merged trace: its MegaKernel part is read, which merge placed under the framework's %q at %s µs", a.OuterKernelName, a.OuterKernelTs) + cycles
		}
	}
	return "a merged trace: its MegaKernel part is read" + cycles
}
