package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progressMinRecords is the work below which no progress line is shown.
const progressMinRecords = 1 << 18

// ProgressEvery is how often the progress line is redrawn at most.
const ProgressEvery = 100 * time.Millisecond

// progress is decode's one-line progress report on a terminal: the share of
// the records written, the count and the rate, redrawn in place at most
// every progressEvery and erased when the work ends. It replaced a progress
// bar library that linked net/http (and so crypto/tls) into every command
// for this one line.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	total uint64
	done  uint64
	start time.Time
	last  time.Time
	now   func() time.Time
}

// ProgressBar returns a progress line over records on stderr when stderr is
// a terminal and the work is long enough to watch; nil otherwise.
func ProgressBar(stderr io.Writer, records uint64) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || records < progressMinRecords {
		return nil
	}
	return NewProgress(f, records, time.Now)
}

func NewProgress(w io.Writer, total uint64, now func() time.Time) *progress {
	t := now()
	return &progress{w: w, total: total, start: t, now: now}
}

// Add counts n more records done and redraws the line when it is due.
func (p *progress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += uint64(n)
	t := p.now()
	if t.Sub(p.last) < ProgressEvery && p.done < p.total {
		return
	}
	p.last = t
	rate := ""
	if s := t.Sub(p.start).Seconds(); s > 0 {
		rate = fmt.Sprintf(", %.1fM events/s", float64(p.done)/s/1e6)
	}
	pct := 100 * float64(p.done) / float64(max(p.total, 1))
	fmt.Fprintf(p.w, "\rdecoding %3.0f%% (%d/%d events%s)\x1b[K", pct, p.done, p.total, rate)
}

// Finish erases the line, so what follows starts on a clean one.
func (p *progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\x1b[K")
}
