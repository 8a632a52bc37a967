package render

import (
	"sync"

	"github.com/megakernel/cycleabi/decode"
)

// FormatBatch is the number of records handed to a formatter of a
// ParallelRenderer at once: about 470 KiB of JSON trace (310 bytes an
// event without a names file), one chunk for the writer. Smaller batches cost more CPU in hand-offs
// between goroutines (docs/performance.md has the figures).
const FormatBatch = 1536

// formatJob is a batch of records in trace order and, once done is
// signalled, their events.
type formatJob struct {
	recs []decode.Record
	b    []byte
	done chan struct{}
	free chan *formatJob // where the writer returns the job once written
}

// renderParallel renders input i's records as render does, with the
// formatting spread over one goroutine per formats entry: this goroutine walks the
// merge (and counts warnings with note), handing each batch of records to
// the formatters and, in record order, to the writer, which waits for
// the batch's text before writing it and then hands the job back. The
// trace is byte-identical to the serial path's. At most 2×workers batches
// exist, so memory stays bounded (a few MiB). A batch takes three
// hand-offs between goroutines (to a formatter, to the writer, back):
// each may wake a parked thread, which costs more CPU than formatting a
// few records. Dependency arrows keep the serial path: their numbering
// and cap follow record order.
func (p *pipeline) renderParallel(i int, formats []func([]byte, *decode.Record) []byte, d *decode.Decoded, note func(*decode.Record)) error {
	workers := len(formats)
	m, err := d.Walk()
	if err != nil {
		return err
	}
	defer m.Close()
	pool := 2 * workers
	// A batch of a small capture is all of it (and one more, so that the
	// first batch is the last): of a run over thousands of small
	// captures, each allocates what it needs, not a full batch per job.
	batch := FormatBatch
	if n := d.Summary.Records; n < FormatBatch {
		batch = int(n) + 1
	}
	// Jobs are made as the walk needs them, each of a batch or of the
	// records left (and one more), whichever is less: a capture of a
	// batch and a half makes one job and a half, not pool full ones.
	free := make(chan *formatJob, pool)
	made, left := 0, d.Summary.Records
	// Never full: at most pool jobs exist.
	jobs := make(chan *formatJob, pool)

	var wg sync.WaitGroup
	for _, format := range formats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				b := j.b[:0]
				for k := range j.recs {
					b = format(b, &j.recs[k])
				}
				j.b = b
				j.done <- struct{}{}
			}
		}()
	}
	defer wg.Wait()
	defer close(jobs)

	for {
		var cur *formatJob
		select {
		case cur = <-free:
		default:
			if made < pool {
				n := int(min(uint64(batch), left+1))
				cur = &formatJob{recs: make([]decode.Record, 0, n), b: make([]byte, 0, n*400), done: make(chan struct{}, 1), free: free}
				made++
				break
			}
			select {
			case cur = <-free:
			case <-p.done:
				return errAborted
			}
		}
		// The merge fills the batch in place: no record is copied twice.
		recs, walkErr := m.Next(cur.recs[:0])
		cur.recs = recs
		left -= min(left, uint64(len(recs)))
		for k := range recs {
			note(&recs[k])
		}
		if len(recs) > 0 {
			jobs <- cur
			select {
			case p.outs[i] <- chunk{job: cur}:
			case <-p.done:
				return errAborted
			}
		}
		// A batch short of its job's room is the last (see merge.next).
		if walkErr != nil || len(recs) < cap(recs) {
			return walkErr
		}
	}
}
