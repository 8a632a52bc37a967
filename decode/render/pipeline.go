package render

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
)

// checkInputs checks what every trace format needs of its inputs.
func checkInputs(inputs []Input) error {
	if len(inputs) == 0 {
		return errors.New("no captures to write")
	}
	for i := range inputs {
		if err := inputs[i].Config.check(); err != nil {
			return fmt.Errorf("%s: %w", inputs[i].Decoded.Capture.Name, err)
		}
	}
	ranks := map[uint32]string{}
	for _, in := range inputs {
		if prev, dup := ranks[in.Config.Rank]; dup && in.Config.Invocation == nil {
			return fmt.Errorf("%s and %s both have rank %d (each capture needs its own pid)", prev, in.Decoded.Capture.Name, in.Config.Rank)
		}
		ranks[in.Config.Rank] = in.Decoded.Capture.Name
	}
	return nil
}

// Format lays out a trace: the bytes before the inputs' events, a
// renderer of each input's events, and the bytes after them (which may
// use what the arrows of each input came to). One pipeline (Write) and
// one merge (decode.Decoded.Records) feed every format.
type Format interface {
	Head(inputs []Input) []byte
	Renderer(i int, in *Input) EventRenderer
	Tail(inputs []Input, arrows []flows.Stats) []byte
}

// EventRenderer appends the events of one input: Begin before its first
// record, Record for each record in trace order, End after the last.
type EventRenderer interface {
	Begin(b []byte) []byte
	Record(b []byte, rec *decode.Record) ([]byte, error)
	End(b []byte) ([]byte, error)
	// TimeAnchor is the cycle the input's time 0 stands for.
	TimeAnchor() uint64
	// FlowStats is what the input's arrows came to, once it is written.
	FlowStats() flows.Stats
}

// ParallelRenderer is an EventRenderer whose events need no state carried
// from one record to the next. Formatter returns a function that appends
// the event of one record as Record does, for one goroutine of its own,
// or nil when the input's events must be rendered in record order (the
// JSON's arrows are numbered in it). Write then walks the records on one
// goroutine and formats them in batches on WriteOptions.Formatters.
type ParallelRenderer interface {
	EventRenderer
	Formatter() func(b []byte, rec *decode.Record) []byte
}

// formatters returns n formatters of r, nil when r renders in order.
func formatters(r ParallelRenderer, n int) []func([]byte, *decode.Record) []byte {
	var fs []func([]byte, *decode.Record) []byte
	for range n {
		f := r.Formatter()
		if f == nil {
			return nil
		}
		fs = append(fs, f)
	}
	return fs
}

// Prepare checks what every format needs of its inputs and places them
// (invocations of a rank, AbsoluteTime, InvocationGapUs), reporting the
// invocations that overlap to o.Overlaps: the first step of a writer.
func Prepare(inputs []Input, o *WriteOptions) ([]Placement, error) {
	if err := checkInputs(inputs); err != nil {
		return nil, err
	}
	placements, err := place(inputs, o)
	if err != nil {
		return nil, err
	}
	reportOverlaps(placements, o)
	return placements, nil
}

// Write renders the inputs concurrently in format f and writes them in
// order, through bounded buffers: memory does not grow with the trace.
func Write(w io.Writer, inputs []Input, o WriteOptions, f Format) error {
	par := o.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = min(par, len(inputs))

	formatters := o.Formatters
	if formatters <= 0 {
		// Not GOMAXPROCS/par: captures rendered at once do not run at
		// once (see Formatters).
		formatters = runtime.GOMAXPROCS(0)
	}
	p := pipeline{
		outs:  make([]chan chunk, len(inputs)),
		errs:  make([]error, len(inputs)),
		flows: make([]flows.Stats, len(inputs)),
		done:  make(chan struct{}),
		// Room for every chunk in flight: the writer's two per
		// input and the one being filled.
		free:   make(chan []byte, par*4),
		places: make(chan struct{}, par),

		formatters: formatters,
	}
	for i := range p.outs {
		p.outs[i] = make(chan chunk, 2)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Renderers start in input order: the writer drains input i
		// before i+1, so input i always holds a place. The writer gives
		// the place back once it has written the input, so renderers
		// run at most par inputs ahead of it, however fast they are.
		for i := range inputs {
			select {
			case p.places <- struct{}{}:
			case <-p.done:
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(p.outs[i])
				p.errs[i] = inputs[i].Decoded.WithSlots(func() error { return p.render(i, f.Renderer(i, &inputs[i]), &inputs[i]) })
			}()
		}
	}()
	err := p.write(w, inputs, f, o.Progress)
	if err == nil && len(o.FlowStats) == len(inputs) {
		copy(o.FlowStats, p.flows)
	}
	close(p.done)
	wg.Wait()
	return err
}

// chunkSize is the size of the pieces of trace handed from a renderer to
// the writer.
const chunkSize = 256 << 10

type chunk struct {
	b      []byte
	events int
	// job, when set, is a batch of the parallel formatters
	// (renderParallel): its text is ready once job.done is signalled, and
	// the writer hands the job back to job.free once written.
	job *formatJob
}

type pipeline struct {
	outs []chan chunk
	errs []error
	// flows[i] is what input i's arrows came to, set by its renderer
	// before it closes outs[i].
	flows []flows.Stats
	done  chan struct{} // closed when the writer returns
	free  chan []byte   // written chunks, for reuse
	// places holds one token per input being rendered or not yet
	// written: at most par.
	places chan struct{}
	// formatters is the number of goroutines that format one input's
	// events (1: the input's own goroutine does).
	formatters int
}

var errAborted = errors.New("trace writing aborted")

// write drains the renderers' chunks in input order into w, between the
// format's head and tail.
func (p *pipeline) write(w io.Writer, inputs []Input, f Format, progress func(int)) error {
	if _, err := w.Write(f.Head(inputs)); err != nil {
		return err
	}
	for i := range inputs {
		for c := range p.outs[i] {
			if j := c.job; j != nil {
				<-j.done
				c.b, c.events = j.b, len(j.recs)
			}
			if _, err := w.Write(c.b); err != nil {
				return err
			}
			if progress != nil && c.events > 0 {
				progress(c.events)
			}
			if c.job != nil {
				c.job.free <- c.job
				continue
			}
			select {
			case p.free <- c.b[:0]:
			default:
			}
		}
		if err := p.errs[i]; err != nil {
			return err
		}
		<-p.places
	}
	_, err := w.Write(f.Tail(inputs, p.flows))
	return err
}

// send hands a full buffer to the writer and returns an empty one.
func (p *pipeline) send(i int, b []byte, events int) ([]byte, error) {
	select {
	case p.outs[i] <- chunk{b: b, events: events}:
	case <-p.done:
		return nil, errAborted
	}
	select {
	case b = <-p.free:
	default:
		b = make([]byte, 0, chunkSize+chunkSize/4)
	}
	return b, nil
}

// render writes input i's events through r, in chunks.
func (p *pipeline) render(i int, r EventRenderer, in *Input) error {
	b := make([]byte, 0, chunkSize+chunkSize/4)
	b = r.Begin(b)
	events := 0
	var err error
	// The counts of decode.Warnings the walk sees: records that overlap an
	// earlier one of their slot (records of a slot come in start order),
	// or start before their core's entry or the anchor.
	w := &in.Decoded.Warnings
	w.Overlapping, w.BeforeEntry, w.NegativeTS = 0, 0, 0
	active, anchor := len(in.Decoded.Summary.Active), r.TimeAnchor()
	maxEnd := make([]uint64, active)
	started := make([]bool, active)
	note := func(rec *decode.Record) {
		if started[rec.Active] && rec.StartCycle < maxEnd[rec.Active] {
			w.Overlapping++
		}
		started[rec.Active] = true
		maxEnd[rec.Active] = max(maxEnd[rec.Active], rec.EndCycle)
		if rec.StartCycle < rec.EntryCycle {
			w.BeforeEntry++
		}
		if rec.StartCycle < anchor {
			w.NegativeTS++
		}
	}
	if pr, ok := r.(ParallelRenderer); ok && p.formatters > 1 {
		if formats := formatters(pr, p.formatters); formats != nil {
			// Events format in batches on p.formatters goroutines
			// (parallel.go), byte for byte as below.
			if b, err = p.send(i, b, 0); err != nil {
				return err
			}
			if err = p.renderParallel(i, formats, in.Decoded, note); err != nil {
				return err
			}
			if b, err = r.End(b); err != nil {
				return err
			}
			p.flows[i] = r.FlowStats()
			if len(b) > 0 {
				_, err = p.send(i, b, 0)
			}
			return err
		}
	}
	// One Record for the whole walk: &rec passed through the interface
	// would escape, one allocation per record.
	var cur decode.Record
	walkErr := in.Decoded.Records(func(rec decode.Record) bool {
		cur = rec
		note(&cur)
		if b, err = r.Record(b, &cur); err != nil {
			return false
		}
		events++
		if len(b) >= chunkSize {
			b, err = p.send(i, b, events)
			events = 0
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if walkErr != nil {
		return walkErr
	}
	if b, err = r.End(b); err != nil {
		return err
	}
	p.flows[i] = r.FlowStats()
	_, err = p.send(i, b, events)
	return err
}
