package capturetest

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A case's directives build the buffer the Builder builds by hand.
func TestParseLayoutCaseBuilds(t *testing.T) {
	lc, err := ParseLayoutCase([]byte(`what it covers
-- capture --
layout cube=24 aic=16 aiv=32   # a comment
enter AIV/3 records=2
set AIV/3 dropped_count=5 entry_cycle=0x1234567890
header @0x40 7/2 capacity=48
append 64 0xff
truncate 16
-- request --
cube-slots 24
capacities aic=16 aiv=32
-- want --
`))
	require.NoError(t, err)
	b := New(24, 16, 32)
	b.Enter(abi.CoreTypeAIV, 3, 1)
	b.Span(abi.CoreTypeAIV, 3, 100, 105, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 0)
	b.Span(abi.CoreTypeAIV, 3, 110, 115, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
	off := b.Slot(abi.CoreTypeAIV, 3).Offset
	binary.LittleEndian.PutUint32(b.Buf[off+abi.CoreHeaderDroppedCountOffset:], 5)
	binary.LittleEndian.PutUint64(b.Buf[off+abi.CoreHeaderEntryCycleOffset:], 0x1234567890)
	h := abi.CoreHeader{EntryCycle: 1, CoreType: 7, BlockID: 2, RecordCapacity: 48}
	h.Append(b.Buf[64:64])
	want := append(b.Bytes(), bytes.Repeat([]byte{0xff}, 64)...)
	want = want[:len(want)-16]
	assert.Equalf(t, want, lc.Bytes, "the case built %d bytes, not the %d the Builder builds (first difference at %d)", len(lc.Bytes), len(want), firstDiff(lc.Bytes, want))
	assert.Equalf(t, uint32(24), lc.Request.CubeSlots, "request %+v", lc.Request)
	if assert.NotNilf(t, lc.Request.Capacities, "request %+v", lc.Request) {
		assert.Equalf(t, abi.Capacities{AIC: 16, AIV: 32}, *lc.Request.Capacities, "request %+v", lc.Request)
	}
	assert.False(t, lc.GoOnly, "Go only")
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A mistake in a case is an error naming its section and line, never a
// panic.
func TestParseLayoutCaseErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"-- capture --\nzeros 64\n-- want --\n", "does not open with what it covers"},
		{"x\n-- capture --\nzeros 64\n", "needs a capture and a want section"},
		{"x\n-- capture --\nzeros 64\n-- expect --\n", `unknown section "expect"`},
		{"x\n-- capture --\nenter AIV/0\n-- want --\n", "section capture: line 1"},
		{"x\n-- capture --\nlayout cube=24 aic=16\n-- want --\n", "no aiv="},
		{"x\n-- capture --\nlayout cube=24 aic=16 aiv=16 drl=3\n-- want --\n", `unknown key "drl"`},
		{"x\n-- capture --\nlayout cube=24 aic=16 aiv=16\n\nset AIV/99 core_type=1\n-- want --\n", "section capture: line 3"},
		{"x\n-- capture --\nlayout cube=24 aic=16 aiv=16\nset AIV/0 padding=1\n-- want --\n", "padding is not a u32 or u64 field"},
		{"x\n-- capture --\nzeros 64\nheader @0x40 AIV/0 capacity=16\n-- want --\n", "the buffer has 64 bytes"},
		{"x\n-- capture --\nzeros 64\ntruncate 65\n-- want --\n", "at most the buffer's 64 bytes"},
		{"x\n-- capture --\nzeros 64\n-- request --\ncube-slots\n-- want --\n", "section request: line 1"},
	} {
		_, err := ParseLayoutCase([]byte(tc.text))
		assert.ErrorContainsf(t, err, tc.want, "%q: error %v, want one saying %q", tc.text, err, tc.want)
	}
}
