package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
	require.Equal(t, "\rdecoding  25% (250/1000 events, 0.0M events/s)\x1b[K", b.String(), "first draw")
	b.Reset()
	clock = clock.Add(ProgressEvery / 2)
	p.Add(250)
	require.Empty(t, b.String(), "redrawn before ProgressEvery passed")
	p.Add(500)
	require.Equal(t, "\rdecoding 100% (1000/1000 events, 0.0M events/s)\x1b[K", b.String(), "the last records draw")
	b.Reset()
	p.Finish()
	require.Equal(t, "\r\x1b[K", b.String(), "Finish wrote")
}
