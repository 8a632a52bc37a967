package export

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/export/internal/pq"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// recordsTable is the records table's schema and where its record
// fields' values are in a record's wire bytes; errRecords says why it
// could not be made (a field of the schema's record that is no integer).
var recordsTable, recordFields, errRecords = recordsSchema()

// errNsRange reports a record too far from the anchor for int64
// nanoseconds (about 292 years).
var errNsRange = errors.New("is more than 2^63 ns from the anchor")

// recordWriter writes a capture's records in trace order as the walk hands
// them over, encoding row groups on every CPU. The walk fills a row group's
// rows (a job) and queues it; an encoder encodes a queued job's row group
// in memory (encoding and compressing it: nearly all the work), and the
// finished row groups are appended to the capture's file in the walk's
// order. There is one encoder goroutine per CPU but one, and the walk
// encodes a queued job itself when it has no free job to fill, so that as
// many goroutines work as there are CPUs and none waits while there is
// work. A fixed number of jobs bounds memory at any capture size.
type recordWriter struct {
	d      *decode.Decoded
	o      analyze.Options
	inv    invocation
	l      *analyze.Labeler
	anchor uint64
	scale  nsScale
	// byTask: the labels depend on the task too (names file task stages,
	// or a schedule's task types), not only on the descriptor.
	byTask    bool
	cache     *[4096]labels
	coreIndex map[abi.CoreType]uint8
	coreNames []string
	coreType  abi.CoreType
	core      uint8

	pw  *pq.Writer
	job *rowGroupJob // the job the walk fills
	seq uint64       // jobs handed over so far
	enc *encoder     // the walk's own

	mu      sync.Mutex
	changed sync.Cond // a job queued or finished, or the writer closed
	queue   []*rowGroupJob
	free    []*rowGroupJob
	// pending are the handed-over jobs not yet committed, by seq; next is
	// the seq of the first of them.
	pending map[uint64]*rowGroupJob
	next    uint64
	err     error
	closed  bool
	done    sync.WaitGroup
}

// rowGroupJob is one row group on its way through the writer.
type rowGroupJob struct {
	seq    uint64
	rows   []row
	labels []labels // what rows' label indexes point at
	group  pq.RowGroup
	ready  bool // encoded into group (or given up after an error)
}

// row is a record as the walk keeps it for an encoder: its fields and
// times, and indexes of its labels in the job and of its core type.
type row struct {
	rec            abi.ProfileRecord
	startNs, endNs int64
	block, label   uint32
	core           uint8
}

// labels are what a record shows besides its fields, computed once per
// descriptor (and task, when they depend on it) and kept in a
// direct-mapped table: a million records make a few hundred strings. A
// job holds a copy of the labels its rows use, made the first time one of
// its rows uses them (inJob and index).
type labels struct {
	desc, task      uint32
	ok              bool
	name, kind      string
	taskType, stage string
	inJob           uint64 // seq+1 of the job holding a copy, 0 for none
	index           uint32 // the copy's index in that job
}

// encoder encodes jobs' row groups, with the columns' data it fills from
// a job's rows and the dictionaries of the job's labels.
type encoder struct {
	pq     *pq.Encoder
	data   []pq.Data // a Data per column of the records table
	wire   []byte
	labels [4]labelDict // name, kind, task type, stage
	defs   [2][]uint8   // task type's and stage's definition levels
	inv    invocationBuf
}

// labelDict is a label column's dictionary in a job: its distinct
// strings, and each of the job's labels' index among them (noLabel for
// null: an optional label that is "").
type labelDict struct {
	strings []string
	index   map[string]uint32
	of      []uint32
}

const noLabel = math.MaxUint32

// recordPool is the memory of a records writer, kept for the next one: the
// walk's label cache, the jobs and the encoders with their writers' column
// buffers. An export of many small captures then allocates them once.
type recordPool struct {
	cache    *[4096]labels
	batches  [][]decode.Record // the feed's
	jobs     []*rowGroupJob
	encoders []*encoder
}

func newRecordWriter(pw *pq.Writer, p *recordPool, d *decode.Decoded, o analyze.Options, inv invocation) *recordWriter {
	encoders := runtime.GOMAXPROCS(0) - 1
	if p.cache == nil {
		p.cache = new([4096]labels)
	}
	clear(p.cache[:])
	// Two jobs per goroutine: one being encoded, one filled or queued.
	for len(p.jobs) < 2*(encoders+1) {
		p.jobs = append(p.jobs, &rowGroupJob{rows: make([]row, 0, RowGroupRows)})
	}
	for len(p.encoders) < encoders+1 {
		p.encoders = append(p.encoders, &encoder{pq: pq.NewEncoder()})
	}
	w := &recordWriter{d: d, o: o, inv: inv, l: analyze.NewLabeler(o.Names, o.Deps), anchor: d.Summary.Anchor,
		scale: newNsScale(o.FrequencyMHz), byTask: o.Deps != nil || (o.Names != nil && o.Names.Tasks.Len() > 0),
		cache: p.cache, coreIndex: map[abi.CoreType]uint8{}, pw: pw, pending: map[uint64]*rowGroupJob{},
		free: slices.Clone(p.jobs), enc: p.encoders[0]}
	w.changed.L = &w.mu
	for i, t := range abi.CoreTypes() {
		w.coreIndex[t] = uint8(i)
		w.coreNames = append(w.coreNames, t.String())
	}
	w.coreType = abi.CoreTypes()[0]
	w.job = w.take()
	w.job.seq = 0
	w.done.Add(encoders)
	for _, e := range p.encoders[1 : encoders+1] {
		go func() {
			defer w.done.Done()
			w.mu.Lock()
			defer w.mu.Unlock()
			for {
				for len(w.queue) == 0 && !w.closed {
					w.changed.Wait()
				}
				if len(w.queue) == 0 {
					return
				}
				w.encodeQueued(e)
			}
		}()
	}
	return w
}

// take returns a free job, emptied.
func (w *recordWriter) take() *rowGroupJob {
	j := w.free[len(w.free)-1]
	w.free = w.free[:len(w.free)-1]
	j.rows, j.labels, j.ready = j.rows[:0], j.labels[:0], false
	return j
}

// encodeQueued encodes the first queued job and commits what is ready; w.mu
// is held, and released while encoding.
func (w *recordWriter) encodeQueued(e *encoder) {
	j := w.queue[0]
	w.queue = w.queue[1:]
	failed := w.err != nil
	w.mu.Unlock()
	var err error
	if !failed {
		err = e.encode(w, j)
	}
	w.mu.Lock()
	j.ready = true
	if err != nil && w.err == nil {
		w.err = err
	}
	w.commitReady()
	w.changed.Broadcast()
}

// commitReady copies the encoded row groups that are next in order into
// the file and frees their jobs; w.mu is held.
func (w *recordWriter) commitReady() {
	for {
		j := w.pending[w.next]
		if j == nil || !j.ready {
			return
		}
		delete(w.pending, w.next)
		w.next++
		if w.err == nil {
			w.err = w.pw.Append(&j.group)
		}
		w.free = append(w.free, j)
	}
}

// encode encodes j's rows as a row group into j.group.
func (e *encoder) encode(w *recordWriter, j *rowGroupJob) error {
	if e.data == nil {
		e.data = make([]pq.Data, recordsTable.Leaves())
	}
	for i := range e.data {
		d := &e.data[i]
		*d = pq.Data{Ints: d.Ints[:0], Strings: d.Strings[:0], Index: d.Index[:0]}
	}
	// The columns in recordsSchema's order: core type, block, the record's
	// fields, the four labels, the two times, the invocation's.
	cols := e.data
	core, block := &cols[0], &cols[1]
	fields, rest := cols[2:2+len(recordFields)], cols[2+len(recordFields):]
	labelCols, startNs, endNs := rest[:len(e.labels)], &rest[len(e.labels)], &rest[len(e.labels)+1]
	core.Strings = append(core.Strings, w.coreNames...)
	for k := range e.labels {
		e.labels[k].build(j.labels, k, k >= 2)
		labelCols[k].Strings = append(labelCols[k].Strings, e.labels[k].strings...)
		if k >= 2 {
			labelCols[k].Def = e.defs[k-2][:0]
		}
	}
	for i := range j.rows {
		r := &j.rows[i]
		core.Index = append(core.Index, uint32(r.core))
		block.Ints = append(block.Ints, uint64(r.block))
		e.wire = r.rec.Append(e.wire[:0])
		for f, rf := range recordFields {
			fields[f].Ints = append(fields[f].Ints, wireValue(e.wire[rf.offset:], rf.size))
		}
		for k := range e.labels {
			c, x := &labelCols[k], e.labels[k].of[r.label]
			if k >= 2 {
				c.Def = append(c.Def, b2u8(x != noLabel))
			}
			if x != noLabel {
				c.Index = append(c.Index, x)
			}
		}
		startNs.Ints = append(startNs.Ints, uint64(r.startNs))
		endNs.Ints = append(endNs.Ints, uint64(r.endNs))
	}
	e.defs[0], e.defs[1] = labelCols[2].Def, labelCols[3].Def
	w.inv.fill(cols[len(cols)-len(invocationColumns):], len(j.rows), &e.inv)
	return e.pq.Encode(recordsTable, cols, len(j.rows), &j.group)
}

// build makes the dictionary of label k (name, kind, task type, stage) of
// a job's labels; "" is null where nullable.
func (d *labelDict) build(labels []labels, k int, nullable bool) {
	d.strings, d.of = d.strings[:0], d.of[:0]
	if d.index == nil {
		d.index = map[string]uint32{}
	}
	clear(d.index)
	for i := range labels {
		s := labels[i].label(k)
		if nullable && s == "" {
			d.of = append(d.of, noLabel)
			continue
		}
		x, ok := d.index[s]
		if !ok {
			x = uint32(len(d.strings))
			d.index[s] = x
			d.strings = append(d.strings, s)
		}
		d.of = append(d.of, x)
	}
}

// label is label k of the record: 0 name, 1 kind, 2 task type, 3 stage.
func (l *labels) label(k int) string {
	return [...]string{l.name, l.kind, l.taskType, l.stage}[k]
}

// wireValue is the little-endian integer of size bytes at b.
func wireValue(b []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// ns is a cycle's time from the anchor in ns, and whether int64 holds it.
func (w *recordWriter) ns(cycle uint64) (int64, bool) {
	if cycle >= w.anchor {
		return w.scale.ns(cycle-w.anchor, false)
	}
	return w.scale.ns(w.anchor-cycle, true)
}

// nsScale turns cycles into nanoseconds exactly: d cycles at f MHz are
// d·1000/f ns rounded to the nearest (half away from zero), f read as the
// exact value of its float64 (a dyadic rational), with no float64 on the
// way, which is 20 ns off at 2^53 cycles. mul/div is 1000/f in lowest
// terms; when either does not fit 64 bits (a frequency such as 0.001 MHz,
// whose float64 has a denominator of 2^62), big holds it instead.
type nsScale struct {
	mul, div uint64
	big      *big.Rat
}

func newNsScale(mhz float64) nsScale {
	f := new(big.Rat)
	if f.SetFloat64(mhz) == nil || f.Sign() <= 0 {
		return nsScale{} // no frequency: every time is out of range
	}
	r := new(big.Rat).Quo(big.NewRat(1000, 1), f)
	if r.Num().IsUint64() && r.Denom().IsUint64() {
		return nsScale{mul: r.Num().Uint64(), div: r.Denom().Uint64()}
	}
	return nsScale{big: r}
}

// ns is d cycles in ns, negated when neg, and whether int64 holds it.
func (s nsScale) ns(d uint64, neg bool) (int64, bool) {
	var q uint64
	switch {
	case s.big != nil:
		n := new(big.Int).Mul(new(big.Int).SetUint64(d), s.big.Num())
		n, rem := n.QuoRem(n, s.big.Denom(), new(big.Int))
		if rem.Lsh(rem, 1).Cmp(s.big.Denom()) >= 0 {
			n.Add(n, big.NewInt(1))
		}
		if !n.IsUint64() {
			return 0, false
		}
		q = n.Uint64()
	case s.div == 0:
		return 0, false
	default:
		hi, lo := bits.Mul64(d, s.mul)
		if hi >= s.div {
			return 0, false // the quotient needs more than 64 bits
		}
		var rem uint64
		q, rem = bits.Div64(hi, lo, s.div)
		if rem >= s.div-rem { // half or more: away from zero
			if q == math.MaxUint64 {
				return 0, false
			}
			q++
		}
	}
	if neg {
		if q > 1<<63 {
			return 0, false
		}
		return -int64(q-1) - 1, true // -2^63 too
	}
	if q >= 1<<63 {
		return 0, false
	}
	return int64(q), true
}

// add takes the next record of the walk.
func (w *recordWriter) add(r *decode.Record) error {
	task := uint32(0)
	if w.byTask {
		task = r.TaskID
	}
	lb := &w.cache[(r.DescID*0x9E3779B1^task*0x85EBCA6B)>>20]
	if !lb.ok || lb.desc != r.DescID || lb.task != task {
		*lb = labels{desc: r.DescID, task: task, ok: true, name: w.o.Names.EventName(&r.ProfileRecord, false, ""), kind: w.l.Kind(&r.ProfileRecord)}
		lb.taskType, lb.stage = w.l.TaskType(&r.ProfileRecord), w.l.Stage(&r.ProfileRecord)
	}
	start, ok1 := w.ns(r.StartCycle)
	end, ok2 := w.ns(r.EndCycle)
	if !ok1 || !ok2 {
		cycle := r.EndCycle
		if !ok1 {
			cycle = r.StartCycle
		}
		return fmt.Errorf("record @%#x (%s/%d): cycle %d %w %d", w.d.FileOffset(r), r.CoreType, r.BlockID, cycle, errNsRange, w.anchor)
	}
	if r.CoreType != w.coreType {
		w.coreType, w.core = r.CoreType, w.coreIndex[r.CoreType]
	}
	j := w.job
	if lb.inJob != j.seq+1 {
		lb.inJob, lb.index = j.seq+1, uint32(len(j.labels))
		j.labels = append(j.labels, *lb)
	}
	j.rows = append(j.rows, row{rec: r.ProfileRecord, startNs: start, endNs: end, block: r.BlockID, label: lb.index, core: w.core})
	if len(j.rows) == RowGroupRows {
		return w.send()
	}
	return nil
}

// send queues the filled job and takes a free one to fill, encoding queued
// jobs while there is none; it returns the first error of an encoder.
func (w *recordWriter) send() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queue = append(w.queue, w.job)
	w.pending[w.seq] = w.job
	w.seq++
	w.changed.Broadcast()
	for len(w.free) == 0 {
		if len(w.queue) > 0 {
			w.encodeQueued(w.enc)
		} else {
			w.changed.Wait()
		}
	}
	w.job = w.take()
	w.job.seq = w.seq
	return w.err
}

// close hands over the last row group, helps encode until every job is
// committed and stops the encoders; err is the walk's, returned first.
func (w *recordWriter) close(err error) error {
	if err == nil && len(w.job.rows) > 0 {
		err = w.send()
	}
	w.mu.Lock()
	if err != nil && w.err == nil {
		// Stop: what is queued is given up, not encoded.
		w.err = err
	}
	for len(w.pending) > 0 {
		if len(w.queue) > 0 {
			w.encodeQueued(w.enc)
		} else {
			w.changed.Wait()
		}
	}
	w.closed = true
	w.changed.Broadcast()
	if err == nil {
		err = w.err
	}
	w.mu.Unlock()
	w.done.Wait()
	return err
}
