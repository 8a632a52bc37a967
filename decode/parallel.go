package decode

import "sync"

// formatBatch is the number of records handed to a formatter at once:
// about 270 KiB of trace, so a batch's text is one chunk for the writer.
const formatBatch = 768

// formatJob is a batch of records in trace order and, once done is
// signalled, their events.
type formatJob struct {
	recs []Record
	b    []byte
	done chan struct{}
}

// renderParallel renders input i's records as render does, with the
// formatting spread over workers goroutines: this goroutine walks the
// merge (and counts warnings with note), handing batches of records to
// the formatters, each with its own renderer; a sender goroutine hands
// the batches' text to the writer in record order. The trace is
// byte-identical to the serial path's. At most 3×workers batches exist,
// so memory stays bounded (a few MiB). Dependency arrows keep the serial
// path: their numbering and cap follow record order.
func (p *pipeline) renderParallel(i int, r *renderer, d *Decoded, workers int, note func(*Record)) error {
	m, err := d.newMerge()
	if err != nil {
		return err
	}
	defer m.close()
	pool := 3 * workers
	free := make(chan *formatJob, pool)
	for range pool {
		free <- &formatJob{recs: make([]Record, 0, formatBatch), done: make(chan struct{}, 1)}
	}
	// Neither channel fills: at most pool jobs exist.
	jobs := make(chan *formatJob, pool)
	order := make(chan *formatJob, pool)

	var wg sync.WaitGroup
	for range workers {
		fr := *r
		fr.descs = new([1 << descCacheBits]*descText)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				b := j.b[:0]
				for k := range j.recs {
					b = fr.appendEvent(b, &j.recs[k])
				}
				j.b = b
				j.done <- struct{}{}
			}
		}()
	}

	quit := make(chan struct{}) // closed when the writer stopped taking chunks
	sent := make(chan error, 1)
	go func() {
		var err error
		for j := range order {
			<-j.done
			if err == nil {
				if j.b, err = p.send(i, j.b, len(j.recs)); err != nil {
					close(quit)
				}
			}
			j.recs = j.recs[:0]
			free <- j
		}
		sent <- err
	}()

	var walkErr error
	for walkErr == nil {
		var cur *formatJob
		select {
		case cur = <-free:
		case <-quit:
		}
		if cur == nil {
			break
		}
		// The merge fills the batch in place: no record is copied twice.
		cur.recs, walkErr = m.next(cur.recs[:0])
		for k := range cur.recs {
			note(&cur.recs[k])
		}
		n := len(cur.recs)
		if n > 0 {
			order <- cur
			jobs <- cur
		} else {
			free <- cur
		}
		if n < formatBatch {
			break
		}
	}
	close(jobs)
	close(order)
	err = <-sent
	wg.Wait()
	if err != nil {
		return err
	}
	return walkErr
}
