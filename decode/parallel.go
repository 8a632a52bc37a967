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

	var cur *formatJob
	dispatch := func() {
		order <- cur
		jobs <- cur
		cur = nil
	}
	walkErr := d.Records(func(rec Record) bool {
		if cur == nil {
			select {
			case cur = <-free:
			case <-quit:
				return false
			}
		}
		// note sees the copy: &rec would move every record to the heap.
		cur.recs = append(cur.recs, rec)
		note(&cur.recs[len(cur.recs)-1])
		if len(cur.recs) == formatBatch {
			dispatch()
		}
		return true
	})
	if cur != nil && len(cur.recs) > 0 {
		dispatch()
	}
	close(jobs)
	close(order)
	err := <-sent
	wg.Wait()
	if err != nil {
		return err
	}
	return walkErr
}
