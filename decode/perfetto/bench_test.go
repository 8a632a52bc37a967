package perfetto

import (
	"testing"

	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
)

// BenchmarkFormats writes the 32 MB capture as JSON and as Perfetto
// protobuf, side by side (-count runs each sub-benchmark that many times
// in a row; for the two to alternate, so a busy machine slows both alike,
// run the test binary in a loop, as docs/performance.md shows). cpu-ms is
// the process's user+sys CPU time per op, steadier than ns/op when other
// work shares the machine.
func BenchmarkFormats(b *testing.B) {
	b.Run("json", func(b *testing.B) { benchFormat(b, chromejson.Write) })
	b.Run("perfetto", func(b *testing.B) { benchFormat(b, Write) })
}

// benchFormat decodes the 32 MB capture from memory and writes it with
// write, as decode/chromejson's BenchmarkDecode does with the JSON writer.
func benchFormat(b *testing.B, write decodetest.WriteFunc) {
	decodetest.BenchWrite(b, "32MB", "memory", false, decodetest.DefaultConfig(), write)
}
