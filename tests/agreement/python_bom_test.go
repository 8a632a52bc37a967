package agreement_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPythonReadsCaptureWhoseEntryCycleLooksLikeABOM: read_capture reads a
// capture whose AIC/0 entry cycle begins with a byte-order mark (16- and
// 32-bit, either order, and UTF-8's) or gzip's magic as the capture it is,
// raw and .npy, from a path and from bytes, and reads what Go reads.
func TestPythonReadsCaptureWhoseEntryCycleLooksLikeABOM(t *testing.T) {
	var jobs []*pyJob
	for _, bom := range []string{"\xff\xfe", "\xfe\xff", "\xff\xfe\x00\x00", "\x00\x00\xfe\xff", "\xef\xbb\xbf", "\x1f\x8b\x08"} {
		var pre [8]byte
		copy(pre[:], bom)
		entry := binary.LittleEndian.Uint64(pre[:])
		b := capturetest.New(24, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, entry).Span(abi.CoreTypeAIC, 0, entry+100, entry+200, abi.TaskTypeBase, 1)
		raw := b.Bytes()
		require.Truef(t, bytes.HasPrefix(raw, []byte(bom)), "the capture starts % x, not % x", raw[:min(8, len(raw))], bom)
		for _, as := range []string{"path", "bytes"} {
			jobs = append(jobs,
				&pyJob{label: "raw starting " + bom + " as " + as, data: raw, As: as},
				&pyJob{label: ".npy starting " + bom + " as " + as, data: capturetest.NPY(raw), As: as})
		}
	}
	results := runReader(t, genPy, jobs)
	assert.Equal(t, len(jobs), compareWithGo(t, jobs, results))
	for i, r := range results {
		assert.Nilf(t, r.Error, "%q: Python refuses it", jobs[i].label)

	}
}
