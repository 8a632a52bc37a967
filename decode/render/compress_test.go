package render

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// gunzipOneMember inflates b with the standard library's reader, which
// checks the CRC-32 and size of the trailer, and fails unless b is exactly
// one gzip member.
func gunzipOneMember(t require.TestingT, b []byte) []byte {
	r := bytes.NewReader(b)
	zr, err := gzip.NewReader(r)
	require.NoError(t, err, "gzip header")
	zr.Multistream(false)
	got, err := io.ReadAll(zr)
	require.NoError(t, err, "inflating")
	require.Zero(t, r.Len(), "bytes after the first gzip member")
	return got
}

// traceLike is text like a trace's: repetitive, with numbers that vary.
func traceLike(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for b.Len() < n {
		fmt.Fprintf(&b, `{"name":"task %d","ph":"X","ts":%d.%03d,"dur":%d,"pid":%d,"tid":%d},`+"\n",
			rng.IntN(300), rng.IntN(1e7), rng.IntN(1000), rng.IntN(5000), rng.IntN(8), rng.IntN(72))
	}
	return b.Bytes()[:n]
}

// TestParallelGzipIsOneMemberOfTheInput: whatever the sizes of the writes
// (across segment boundaries or not, nothing at all) and the number of
// goroutines, the output is one gzip member that inflates to the input.
func TestParallelGzipIsOneMemberOfTheInput(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(rapid.IntRange(1, 4).Draw(t, "procs")))
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 2))
		var want, got bytes.Buffer
		z := newParallelGzip(&got)
		for i := range rapid.IntRange(0, 6).Draw(t, "writes") {
			n := rapid.SampledFrom([]int{0, 1, 1000, segmentSize - 1, segmentSize, 2*segmentSize + 7}).Draw(t, fmt.Sprint("n", i))
			p := traceLike(rng, n)
			want.Write(p)
			k, err := z.Write(p)
			require.Equal(t, n, k, "Write")
			require.NoError(t, err, "Write")
		}
		require.NoError(t, z.Close())
		out := gunzipOneMember(t, got.Bytes())
		require.Equalf(t, want.String(), string(out), "inflated %d bytes, want %d (or different bytes)", len(out), want.Len())
	})
}

// TestParallelGzipSize: segments primed with the tail before them compress
// within 1% of one deflate stream at the same level.
func TestParallelGzipSize(t *testing.T) {
	in := traceLike(rand.New(rand.NewPCG(1, 2)), 12*segmentSize+12345)
	var par, one bytes.Buffer
	z := newParallelGzip(&par)
	z.Write(in)
	require.NoError(t, z.Close())
	zw, _ := kgzip.NewWriterLevel(&one, kgzip.BestSpeed)
	zw.Write(in)
	zw.Close()
	assert.LessOrEqualf(t, par.Len(), one.Len()+one.Len()/100, "parallel gzip bytes, one stream: %d", one.Len())
	t.Logf("parallel gzip: %d bytes, one stream: %d", par.Len(), one.Len())
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// TestParallelGzipReportsWriteError: a write error of the output comes
// back from Close, and nothing blocks on the way.
func TestParallelGzipReportsWriteError(t *testing.T) {
	boom := errors.New("disk full")
	z := newParallelGzip(failWriter{boom})
	for range 10 {
		z.Write(make([]byte, segmentSize))
	}
	require.ErrorIsf(t, z.Close(), boom, "Close, want %v", boom)
}
