package cli

import (
	"bytes"
	"testing"
	"time"
)

// TestProgressLine: the line is redrawn at most every ProgressEvery (and
// always at the end of the work), says the share, count and rate, and is
// erased by Finish.
func TestProgressLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	clock := time.Unix(1000, 0)
	p := NewProgress(&b, 1000, func() time.Time { return clock })
	clock = clock.Add(time.Second)
	p.Add(250)
	if want := "\rdecoding  25% (250/1000 events, 0.0M events/s)\x1b[K"; b.String() != want {
		t.Fatalf("first draw %q, want %q", b.String(), want)
	}
	b.Reset()
	clock = clock.Add(ProgressEvery / 2)
	p.Add(250)
	if b.Len() != 0 {
		t.Fatalf("redrawn %q before ProgressEvery passed", b.String())
	}
	p.Add(500)
	if want := "\rdecoding 100% (1000/1000 events, 0.0M events/s)\x1b[K"; b.String() != want {
		t.Fatalf("the last records draw %q, want %q", b.String(), want)
	}
	b.Reset()
	p.Finish()
	if b.String() != "\r\x1b[K" {
		t.Fatalf("Finish wrote %q", b.String())
	}
}
