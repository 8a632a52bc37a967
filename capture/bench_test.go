package capture_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/require"
)

// BenchmarkResolve times finding the layout of a 32 MB capture read from
// a file (every slot full, capacity 13904: the search tries every cube
// slot count up to 4096, most of them past the end): the cost decode and
// validate pay before the scan.
func BenchmarkResolve(b *testing.B) {
	bld := capturetest.New(abi.MinCubeSlots, 13904, 13904)
	for i := range bld.Layout.NumSlots() {
		s := bld.Layout.Slot(i)
		bld.Enter(s.CoreType, s.BlockID, 1)
		for j := range 100 {
			bld.Span(s.CoreType, s.BlockID, uint64(10+j*10), uint64(15+j*10), abi.RuntimeStageWaitDependency, 0)
		}
	}
	path := filepath.Join(b.TempDir(), "b.bin")
	require.NoError(b, os.WriteFile(path, bld.Bytes(), 0o644))
	c, err := capture.Open(path)
	require.NoError(b, err)
	defer c.Close()
	b.SetBytes(c.Size())
	for b.Loop() {
		_, err := c.Resolve(capture.Request{})
		require.NoError(b, err)
	}
}
