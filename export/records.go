package export

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/parquet-go/parquet-go"
)

// recordOptions are the records table's writer options besides the
// capture's metadata: the record fields' columns (recordFieldTags), and no
// bounds (min and max) of the string columns' pages, in the page headers
// or the page index: finding them looks up and compares every value,
// which cost more than dictionary-encoding the column, and a row group of
// records in trace order holds nearly every name, kind and core anyway, so
// no engine could skip one by its bounds.
var recordOptions = func() []parquet.WriterOption {
	var opts []parquet.WriterOption
	for _, t := range recordFieldTags {
		opts = append(opts, t)
	}
	for _, c := range []string{"core_type", "name", "kind", "task_type", "stage", "direction"} {
		opts = append(opts, parquet.SkipPageBounds(c), parquet.SkipPageStatistics(c))
	}
	return opts
}()

// encoderOptions are those of the encoders' writers: the records table's
// options without the capture's metadata, which the row groups they write
// do not carry, so that an encoder serves every capture of an export.
var encoderOptions = append(slices.Clip(tableOptions), recordOptions...)

// errNsRange reports a record too far from the anchor for int64
// nanoseconds (about 292 years).
var errNsRange = errors.New("is more than 2^63 ns from the anchor")

// recordWriter writes a capture's records in trace order as the walk hands
// them over, encoding row groups on every CPU. The walk fills a row group's
// rows (a job) and queues it; an encoder writes a queued job as a Parquet
// file of its own in memory (encoding and compressing it: nearly all the
// work), and the finished row groups are copied, column chunks as they
// are, into the capture's file in the walk's order (parquet-go's verbatim
// copy of a file's row group). There is one encoder goroutine per CPU but
// one, and the walk encodes a queued job itself when it has no free job to
// fill, so that as many goroutines work as there are CPUs and none waits
// while there is work. A fixed number of jobs bounds memory at any capture
// size.
type recordWriter struct {
	d          *decode.Decoded
	o          analyze.Options
	inv        Invocation
	l          *analyze.Labeler
	anchor     uint64
	nsPerCycle float64
	// byTask: the labels depend on the task too (names file task stages,
	// or a schedule's task types), not only on the descriptor.
	byTask    bool
	cache     *[4096]labels
	coreIndex map[abi.CoreType]uint8
	coreNames []string
	coreType  abi.CoreType
	core      uint8

	pw  *parquet.GenericWriter[Record]
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
	file   bytes.Buffer
	ready  bool // encoded into file (or given up after an error)
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

// encoder writes jobs as Parquet files through writers of its own, one
// per Go row type.
type encoder struct {
	full rowEncoder[Record]
	bare rowEncoder[bareRecord]
}

// rowEncoder is an encoder's writer of rows of type T, and the rows it
// fills from a job's.
type rowEncoder[T any] struct {
	w       *parquet.GenericWriter[T]
	scratch []T
}

// encodeRows is how many rows an encoder turns into Records (or
// bareRecords) at once.
const encodeRows = 256

// recordPool is the memory of a records writer, kept for the next one: the
// walk's label cache, the jobs and the encoders with their writers' column
// buffers. An export of many small captures then allocates them once.
type recordPool struct {
	cache    *[4096]labels
	batches  [][]decode.Record // the feed's
	jobs     []*rowGroupJob
	encoders []*encoder
}

func newRecordWriter(pw *parquet.GenericWriter[Record], p *recordPool, d *decode.Decoded, o analyze.Options, inv Invocation) *recordWriter {
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
		p.encoders = append(p.encoders, &encoder{})
	}
	w := &recordWriter{d: d, o: o, inv: inv, l: analyze.NewLabeler(o.Names, o.Deps), anchor: d.Summary.Anchor,
		nsPerCycle: 1000 / o.FrequencyMHz, byTask: o.Deps != nil || (o.Names != nil && o.Names.Tasks.Len() > 0),
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
	j.file.Reset()
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
			w.err = copyRowGroups(w.pw, j.file.Bytes())
		}
		w.free = append(w.free, j)
	}
}

// encode writes j's rows as a Parquet file into j.file: as bareRecords
// for a capture outside a window, whose invocation columns are all null.
func (e *encoder) encode(w *recordWriter, j *rowGroupJob) error {
	if w.inv.InvocationID == nil && w.inv.Step == nil && w.inv.Direction == "" {
		return encodeRowsAs(&e.bare, j, func(recs []bareRecord, rows []row) {
			for i := range recs {
				r, lb, b := &rows[i], &j.labels[rows[i].label], &recs[i]
				b.CoreType, b.BlockID, b.ProfileRecord, b.StartNs, b.EndNs = w.coreNames[r.core], r.block, r.rec, r.startNs, r.endNs
				b.Name, b.Kind, b.TaskType, b.Stage = lb.name, lb.kind, lb.taskType, lb.stage
			}
		})
	}
	return encodeRowsAs(&e.full, j, func(recs []Record, rows []row) {
		for i := range recs {
			r, lb := &rows[i], &j.labels[rows[i].label]
			recs[i] = Record{CoreType: w.coreNames[r.core], BlockID: r.block, ProfileRecord: r.rec,
				Name: lb.name, Kind: lb.kind, TaskType: lb.taskType, Stage: lb.stage,
				StartNs: r.startNs, EndNs: r.endNs, Invocation: w.inv}
		}
	})
}

// encodeRowsAs writes j's rows as a Parquet file into j.file, encodeRows
// at a time made Ts by fill (recs as many as rows; a bareRecord's fields
// fill leaves alone stay zero).
func encodeRowsAs[T any](e *rowEncoder[T], j *rowGroupJob, fill func(recs []T, rows []row)) error {
	if e.w == nil {
		e.w = parquet.NewGenericWriter[T](&j.file, encoderOptions...)
		e.scratch = make([]T, encodeRows)
	} else {
		e.w.Reset(&j.file)
	}
	var err error
	for rows := j.rows; len(rows) > 0 && err == nil; {
		n := min(len(rows), encodeRows)
		recs := e.scratch[:n]
		fill(recs, rows[:n])
		_, err = e.w.Write(recs)
		rows = rows[n:]
	}
	if cerr := e.w.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyRowGroups appends the row groups of the Parquet file b to pw.
func copyRowGroups(pw *parquet.GenericWriter[Record], b []byte) error {
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return err
	}
	for _, rg := range f.RowGroups() {
		if _, err := pw.WriteRowGroup(rg); err != nil {
			return err
		}
	}
	return nil
}

// ns is a cycle's time from the anchor in ns, and whether int64 holds it.
func (w *recordWriter) ns(cycle uint64) (int64, bool) {
	var v float64
	if cycle >= w.anchor {
		v = float64(cycle-w.anchor) * w.nsPerCycle
	} else {
		v = -float64(w.anchor-cycle) * w.nsPerCycle
	}
	v = math.Round(v)
	return int64(v), v >= -(1<<63) && v < 1<<63
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
