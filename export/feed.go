package export

import "github.com/megakernel/cycleabi/decode"

// feedBatch is how many records the records' walk hands the analysis at
// once: enough that a hand-over is rare, few enough that the batches in
// flight stay small (feedBatches of them, 64 bytes a record) and in the
// CPU's cache (docs/performance.md).
const (
	feedBatch   = 4096
	feedBatches = 4
)

// feed hands the records of the records' walk on to the analysis, which
// runs on a goroutine of its own (analyze.AnalyzeWalk): the capture is
// merged into trace order once for both, where a walk of each merged it
// twice, the costliest part of reading it. Batches go round between the
// two (full, then free again), so a fixed number of them bounds memory.
type feed struct {
	batch      []decode.Record // the walk's, being filled
	full, free chan []decode.Record
}

// newFeed returns a feed of the batches in p, made the first time.
func newFeed(p *recordPool) *feed {
	for len(p.batches) < feedBatches {
		p.batches = append(p.batches, make([]decode.Record, 0, feedBatch))
	}
	f := &feed{batch: p.batches[0][:0], full: make(chan []decode.Record, feedBatches), free: make(chan []decode.Record, feedBatches)}
	for _, b := range p.batches[1:] {
		f.free <- b[:0]
	}
	return f
}

// add queues r for the analysis.
func (f *feed) add(r *decode.Record) {
	f.batch = append(f.batch, *r)
	if len(f.batch) == cap(f.batch) {
		f.full <- f.batch
		f.batch = <-f.free
	}
}

// close hands over the last batch and ends the analysis' walk.
func (f *feed) close() {
	if len(f.batch) > 0 {
		f.full <- f.batch
	}
	close(f.full)
}

// walk yields the records handed over, until the feed is closed or yield
// returns false; it is the analysis' decode.Decoded.Records.
func (f *feed) walk(yield func(decode.Record) bool) error {
	for b := range f.full {
		for i := range b {
			if !yield(b[i]) {
				f.free <- b[:0]
				return nil
			}
		}
		f.free <- b[:0]
	}
	return nil
}

// drain takes the batches the analysis left, for it may return before
// the feed is closed (an error, or a walk it stopped).
func (f *feed) drain() {
	for b := range f.full {
		f.free <- b[:0]
	}
}
