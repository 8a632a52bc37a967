package capture_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// small builds a valid capture: AIC/0 with two records, AIV/5 with one,
// and AIV/0 entered without records (the AIV capacity is read from it).
func small() *capturetest.Builder {
	b := capturetest.New(abi.MinCubeSlots, 16, 32)
	b.Enter(abi.CoreTypeAIV, 0, 800)
	b.Enter(abi.CoreTypeAIC, 0, 1000).
		Span(abi.CoreTypeAIC, 0, 1100, 1200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1).
		Span(abi.CoreTypeAIC, 0, 1250, 1300, abi.RuntimeStageTriggerEvent, 1)
	b.Enter(abi.CoreTypeAIV, 5, 900).
		Span(abi.CoreTypeAIV, 5, 950, 990, abi.TaskTypeBase+uint32(abi.TaskTypeSwiGLU), 2)
	return b
}

func problem(t *testing.T, err error) *capture.Problem {
	t.Helper()
	var p *capture.Problem
	require.ErrorAsf(t, err, &p, "want a *capture.Problem, got %v: errors.As(err, &p) = false, want true", err)
	return p
}

func scanBytes(t *testing.T, buf []byte, o capture.Request) (*capture.Summary, error) {
	t.Helper()
	c, err := capture.FromBytes("test.bin", buf)
	require.NoError(t, err)
	l, err := layoutOf(c.Resolve(o))
	if err != nil {
		return nil, err
	}
	return c.Scan(l, capture.ScanOptions{})
}

func TestScanValid(t *testing.T) {
	sum, err := scanBytes(t, small().Bytes(), capture.Request{})
	require.NoError(t, err)
	assert.Equal(t, uint64(3), sum.Records, "sum.Records")
	assert.Equal(t, uint64(900), sum.Anchor, "anchor is the smallest nonzero entry cycle: sum.Anchor")
	require.Len(t, sum.Active, 2, "len(sum.Active)")
	assert.Equal(t, "AIC/0", sum.Active[0].Slot.String(), "sum.Active[0].Slot.String()")
	assert.Equal(t, "AIV/5", sum.Active[1].Slot.String(), "sum.Active[1].Slot.String()")
	assert.Equal(t, (abi.Capacities{AIC: 16, AIV: 32}), sum.Layout.Capacities, "capacities read from the buffer: sum.Layout.Capacities")
}

func TestAnchorFallsBackToStartCycle(t *testing.T) {
	b := small()
	b.Put64(b.HeaderOffset(abi.CoreTypeAIC, 0, abi.CoreHeaderEntryCycleOffset), 0)
	b.Put64(b.HeaderOffset(abi.CoreTypeAIV, 5, abi.CoreHeaderEntryCycleOffset), 0)
	sum, err := scanBytes(t, b.Bytes(), capture.Request{})
	require.NoError(t, err)
	assert.Equal(t, uint64(950), sum.Anchor, "sum.Anchor")
	assert.Equal(t, uint64(950), sum.Earliest, "the smallest start_cycle: sum.Earliest")
}

func TestDroppedCountOfEmptySlotStillCounts(t *testing.T) {
	b := small()
	b.Enter(abi.CoreTypeAIV, 9, 5000)
	b.SetHeader32(abi.CoreTypeAIV, 9, abi.CoreHeaderDroppedCountOffset, 7)
	sum, err := scanBytes(t, b.Bytes(), capture.Request{})
	require.NoError(t, err)
	assert.Equal(t, uint64(7), sum.Dropped, "sum.Dropped")
	assert.Len(t, sum.Active, 2, "a slot without records is not active: len(sum.Active)")
	assert.Equal(t, uint64(900), sum.Anchor, "an entry cycle of a slot without records is not an anchor: sum.Anchor")
}

func TestDecodingErrors(t *testing.T) {
	type tc struct {
		name   string
		bend   func(b *capturetest.Builder) []byte
		opts   capture.Request
		code   capture.Code
		slot   string
		record int
		off    func(b *capturetest.Builder) int
		msg    string
	}
	cases := []tc{
		{
			name: "short buffer", code: capture.CodeShortBuffer, record: -1,
			bend: func(b *capturetest.Builder) []byte { return b.Bytes()[:3*24*64-1] },
			off:  func(*capturetest.Builder) int { return 3*24*64 - 1 },
			msg:  "fewer than the 72 core headers",
		},
		{
			name: "unaligned AIC capacity", code: capture.CodeBadCapacity, slot: "AIC/0", record: -1,
			bend: func(b *capturetest.Builder) []byte {
				return b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCapacityOffset, 17).Bytes()
			},
			off: func(b *capturetest.Builder) int {
				return b.HeaderOffset(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCapacityOffset)
			},
			msg: "record_capacity=17",
		},
		{
			name: "AIV capacity past the maximum", code: capture.CodeBadCapacity, slot: "AIV/0", record: -1,
			bend: func(b *capturetest.Builder) []byte {
				b.Enter(abi.CoreTypeAIV, 0, 1)
				return b.SetHeader32(abi.CoreTypeAIV, 0, abi.CoreHeaderRecordCapacityOffset, abi.MaxRecordsPerCore+16).Bytes()
			},
			off: func(b *capturetest.Builder) int {
				return b.HeaderOffset(abi.CoreTypeAIV, 0, abi.CoreHeaderRecordCapacityOffset)
			},
		},
		{
			name: "layout past the end", code: capture.CodeTruncated, record: -1,
			bend: func(b *capturetest.Builder) []byte { return b.Bytes()[:len(b.Bytes())-32] },
			off:  func(b *capturetest.Builder) int { return len(b.Bytes()) - 32 },
			msg:  "(32 missing)",
		},
		{
			// Not "truncated": the headers describe a layout the buffer holds.
			name: "planned layout the headers contradict", code: capture.CodeLayoutMismatch, record: -1,
			opts: capture.Request{Capacities: &abi.Capacities{AIC: 32, AIV: 32}, GivenBy: "the flags"},
			bend: func(b *capturetest.Builder) []byte { return b.Bytes() },
			off: func(b *capturetest.Builder) int {
				return b.HeaderOffset(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCapacityOffset)
			},
			msg: "the headers of AIC/0 and AIV/0 say capacities 16 and 32; the flags say 32 and 32",
		},
		{
			name: "planned layout past the end, as the headers say", code: capture.CodeTruncated, record: -1,
			opts: capture.Request{CubeSlots: 24, Capacities: &abi.Capacities{AIC: 16, AIV: 32}},
			bend: func(b *capturetest.Builder) []byte { return b.Bytes()[:len(b.Bytes())-64] },
			off:  func(b *capturetest.Builder) int { return len(b.Bytes()) - 64 },
			msg:  "(64 missing)",
		},
		{
			name: "cube slots the headers contradict", code: capture.CodeLayoutMismatch, record: -1,
			opts: capture.Request{CubeSlots: 25},
			bend: func(b *capturetest.Builder) []byte { return b.Bytes() },
			off:  func(b *capturetest.Builder) int { return b.HeaderOffset(abi.CoreTypeAIV, 0, 0) },
			msg:  "says 24 cube slots; the given values say 25", // the offset is checked by off
		},
		{
			name: "slot identity", code: capture.CodeSlotIdentity, slot: "AIV/5", record: -1,
			bend: func(b *capturetest.Builder) []byte {
				return b.SetHeader32(abi.CoreTypeAIV, 5, abi.CoreHeaderCoreTypeOffset, uint32(abi.CoreTypeAIC)).Bytes()
			},
			off: func(b *capturetest.Builder) int {
				return b.HeaderOffset(abi.CoreTypeAIV, 5, abi.CoreHeaderCoreTypeOffset)
			},
			msg: "core_type=1 block_id=5, expected AIV/5",
		},
		{
			name: "capacity mismatch", code: capture.CodeCapacityMismatch, slot: "AIV/5", record: -1,
			bend: func(b *capturetest.Builder) []byte {
				return b.SetHeader32(abi.CoreTypeAIV, 5, abi.CoreHeaderRecordCapacityOffset, 16).Bytes()
			},
			off: func(b *capturetest.Builder) int {
				return b.HeaderOffset(abi.CoreTypeAIV, 5, abi.CoreHeaderRecordCapacityOffset)
			},
		},
		{
			name: "reserved nonzero", code: capture.CodeReservedNonzero, slot: "AIC/0", record: -1,
			bend: func(b *capturetest.Builder) []byte {
				return b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderReservedOffset, 1).Bytes()
			},
			off: func(b *capturetest.Builder) int {
				return b.HeaderOffset(abi.CoreTypeAIC, 0, abi.CoreHeaderReservedOffset)
			},
		},
		{
			name: "count over capacity", code: capture.CodeCountOverCapacity, slot: "AIC/0", record: -1,
			bend: func(b *capturetest.Builder) []byte {
				return b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCountOffset, 17).Bytes()
			},
			off: func(b *capturetest.Builder) int {
				return b.HeaderOffset(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCountOffset)
			},
			msg: "record_count=17, expected at most record_capacity 16",
		},
		{
			name: "negative interval", code: capture.CodeNegativeInterval, slot: "AIC/0", record: 1,
			bend: func(b *capturetest.Builder) []byte {
				return b.Put64(b.RecordOffset(abi.CoreTypeAIC, 0, 1, abi.ProfileRecordEndCycleOffset), 1249).Bytes()
			},
			off: func(b *capturetest.Builder) int {
				return b.RecordOffset(abi.CoreTypeAIC, 0, 1, abi.ProfileRecordEndCycleOffset)
			},
			msg: "start_cycle=1250 end_cycle=1249",
		},
		{
			name: "no records", code: capture.CodeNoRecords, record: -1,
			bend: func(*capturetest.Builder) []byte { return capturetest.New(abi.MinCubeSlots, 16, 32).Bytes() },
			off:  func(*capturetest.Builder) int { return 0 },
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := small()
			_, err := scanBytes(t, c.bend(b), c.opts)
			p := problem(t, err)
			assert.Equal(t, c.code, p.Code, "p.Code")
			assert.Equal(t, c.slot, p.Slot, "p.Slot")
			assert.Equal(t, c.record, p.Record, "p.Record")
			assert.Equal(t, int64(c.off(b)), p.Off, "offset")
			assert.Equal(t, "test.bin", p.File, "p.File")
			assert.Contains(t, p.Error(), c.msg, "p.Error()")
			assert.Truef(t, strings.HasPrefix(p.Error(), "test.bin: "+string(c.code)+" "), "%s: strings.HasPrefix(p.Error(), \"test.bin: \"+string(c.code)+\" \") = false, want true", p.Error())
		})
	}
}

func TestScanCollectsEveryProblem(t *testing.T) {
	b := small()
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderReservedOffset, 3)
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCountOffset, 99)
	b.Put64(b.RecordOffset(abi.CoreTypeAIV, 5, 0, abi.ProfileRecordEndCycleOffset), 1)
	c, err := capture.FromBytes("x.bin", b.Bytes())
	require.NoError(t, err)
	l, err := layoutOf(c.Resolve(capture.Request{}))
	require.NoError(t, err)
	var codes []capture.Code
	records := 0
	sum, err := c.Scan(l, capture.ScanOptions{
		Problem: func(p *capture.Problem) bool { codes = append(codes, p.Code); return true },
		Record:  func(*capture.SlotScan, int, int64, *abi.ProfileRecord) { records++ },
	})
	require.NoError(t, err)
	assert.Equal(t, []capture.Code{capture.CodeReservedNonzero, capture.CodeCountOverCapacity, capture.CodeNegativeInterval}, codes, "codes")
	assert.Equal(t, 16+1, records, "a count over capacity walks the records the capacity holds: records")
	assert.Equal(t, uint64(17), sum.Records, "sum.Records")
}

func TestUnsortedSlotIsMarked(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 10)
	b.Enter(abi.CoreTypeAIV, 0, 10)
	b.Enter(abi.CoreTypeAIV, 1, 10).Span(abi.CoreTypeAIV, 1, 50, 60, 1, 0).Span(abi.CoreTypeAIV, 1, 20, 30, 1, 0)
	b.Enter(abi.CoreTypeAIV, 2, 10).Span(abi.CoreTypeAIV, 2, 20, 30, 1, 0).Span(abi.CoreTypeAIV, 2, 20, 25, 1, 0)
	sum, err := scanBytes(t, b.Bytes(), capture.Request{})
	require.NoError(t, err)
	assert.False(t, sum.Active[0].Sorted, "sum.Active[0].Sorted = true, want false")
	assert.True(t, sum.Active[1].Sorted, "equal start cycles are in order: sum.Active[1].Sorted = false, want true")
}

func TestNPY(t *testing.T) {
	raw := small().Bytes()
	want, err := scanBytes(t, raw, capture.Request{})
	require.NoError(t, err)

	t.Run("u1", func(t *testing.T) {
		c, err := capture.FromBytes("x.npy", capturetest.NPY(raw))
		require.NoError(t, err)
		assert.Equal(t, capture.Format(capture.NPY), c.Format, "c.Format")
		assert.Equal(t, int64(len(raw)), c.Size(), "c.Size()")
		assert.Equal(t, int64(128), c.Base, "c.Base")
		l, err := layoutOf(c.Resolve(capture.Request{}))
		require.NoError(t, err)
		got, err := c.Scan(l, capture.ScanOptions{})
		require.NoError(t, err)
		assert.Equal(t, want, got)
	})
	t.Run("u4 2-D C order", func(t *testing.T) {
		n := len(raw) / 4
		hdr := "{'descr': '<u4', 'fortran_order': False, 'shape': (" + strconv.Itoa(n/8) + ", 8), }"
		c, err := capture.FromBytes("x.npy", capturetest.NPYWithHeader(hdr, raw))
		require.NoError(t, err)
		assert.Equal(t, int64(len(raw)), c.Size(), "c.Size()")
	})
	t.Run("trailing bytes after the array are not the buffer", func(t *testing.T) {
		c, err := capture.FromBytes("x.npy", append(capturetest.NPY(raw), 1, 2, 3))
		require.NoError(t, err)
		assert.Equal(t, int64(len(raw)), c.Size(), "c.Size()")
		mem, ok := c.InMemory()
		require.True(t, ok, "ok = false, want true")
		assert.Equal(t, []byte(mem), []byte(raw), "InMemory is the buffer, without the bytes after the array: bytes.Equal(raw, mem) = false, want true")
	})
	t.Run("truncated", func(t *testing.T) {
		f := capturetest.NPY(raw)
		_, err := capture.FromBytes("x.npy", f[:len(f)-100])
		p := problem(t, err)
		assert.Equal(t, capture.Code(capture.CodeTruncated), p.Code, "p.Code")
		assert.Contains(t, p.Error(), "(100 missing)", "p.Error()")
	})
	for name, hdr := range map[string]string{
		"fortran 2-D":   "{'descr': '<u4', 'fortran_order': True, 'shape': (2, 3), }",
		"object dtype":  "{'descr': '|O', 'fortran_order': False, 'shape': (3,), }",
		"garbage":       "{'descr': '|u1', 'fortran_order': False, 'shape': (3,",
		"negative dim":  "{'descr': '|u1', 'fortran_order': False, 'shape': (-3,), }",
		"no shape":      "{'descr': '|u1', 'fortran_order': False}",
		"list not dict": "[1, 2]",
		// 2^64+1-byte items: a size that wraps to 1 in 64 bits.
		"huge structured": "{'descr': [('a', '|u1', (1048576, 1048576, 1048576, 16)), ('b', '|u1')], 'fortran_order': False, 'shape': (64,), }",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := capture.FromBytes("x.npy", capturetest.NPYWithHeader(hdr, make([]byte, 64)))
			p := problem(t, err)
			assert.Equal(t, capture.Code(capture.CodeBadNPY), p.Code, "p.Code")
		})
	}
	t.Run("detected by magic, not name", func(t *testing.T) {
		c, err := capture.FromBytes("capture.bin", capturetest.NPY(raw))
		require.NoError(t, err)
		assert.Equal(t, capture.Format(capture.NPY), c.Format, "c.Format")
		c, err = capture.FromBytes("capture.npy", raw)
		require.NoError(t, err)
		assert.Equal(t, capture.Format(capture.Raw), c.Format, "c.Format")
	})
}

func TestOpenFileMatchesBytes(t *testing.T) {
	raw := small().Bytes()
	dir := t.TempDir()
	for _, f := range []struct{ name, data string }{{"r.bin", string(raw)}, {"r.npy", string(capturetest.NPY(raw))}} {
		path := filepath.Join(dir, f.name)
		require.NoError(t, os.WriteFile(path, []byte(f.data), 0o644))
		c, err := capture.Open(path)
		require.NoError(t, err)
		_, inMem := c.InMemory()
		assert.False(t, inMem, "a file is read as needed, not loaded: inMem = true, want false")
		l, err := layoutOf(c.Resolve(capture.Request{}))
		require.NoError(t, err)
		var starts []uint64
		_, err = c.Scan(l, capture.ScanOptions{Record: func(_ *capture.SlotScan, _ int, _ int64, r *abi.ProfileRecord) {
			starts = append(starts, r.StartCycle)
		}})
		require.NoError(t, err)
		assert.Equal(t, []uint64{1100, 1250, 950}, starts, "starts")
		recs := make([]abi.ProfileRecord, 2)
		_, err = c.ReadRecords(l.Slot(0), 0, recs, nil)
		require.NoError(t, err)
		assert.Equal(t, uint64(1300), recs[1].EndCycle, "recs[1].EndCycle")
		require.NoError(t, c.Close())
	}
	_, err := capture.Open(filepath.Join(dir, "missing.bin"))
	assert.ErrorIsf(t, err, os.ErrNotExist, "error %v, want one matching %v", err, os.ErrNotExist)
}

func TestCubeSlotsBelowMinimumIsAnOptionError(t *testing.T) {
	c, err := capture.FromBytes("x.bin", small().Bytes())
	require.NoError(t, err)
	_, err = layoutOf(c.Resolve(capture.Request{CubeSlots: abi.MinCubeSlots - 1}))
	require.Error(t, err, "got no error, want one")
	var p *capture.Problem
	assert.False(t, errors.As(err, &p), "a bad option is not a problem of the capture: errors.As(err, &p) = true, want false")
}

func TestReadAtBounds(t *testing.T) {
	raw := small().Bytes()
	c, err := capture.FromBytes("x.npy", capturetest.NPY(raw))
	require.NoError(t, err)
	p := make([]byte, 8)
	n, err := c.ReadAt(p, int64(len(raw))-4)
	assert.Equal(t, 4, n, "n")
	assert.Error(t, err, "got no error, want one")
	_, err = c.ReadAt(p, -1)
	assert.Error(t, err, "got no error, want one")
	n, err = c.ReadAt(p, 0)
	require.NoError(t, err)
	assert.Equal(t, []byte(p[:n]), []byte(raw[:8]), "bytes.Equal(raw[:8], p[:n]) = false, want true")
}

// A truncated .npy says exactly the payload its header declares, whatever
// the dtype: no clamping to the file size.
func TestNPYTruncatedExact(t *testing.T) {
	raw := small().Bytes() // 41472 bytes today; a multiple of 64, as every buffer is
	n := len(raw)
	for _, tc := range []struct {
		descr string
		shape string
		want  uint64
	}{
		{"|u1", fmt.Sprintf("(%d,)", n), uint64(n)},
		{"<u8", fmt.Sprintf("(%d,)", n/8), uint64(n)},
		{"<u4", fmt.Sprintf("(%d, 16)", n/64), uint64(n)},
		{"|V32", fmt.Sprintf("(%d,)", n/32), uint64(n)},
	} {
		hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", tc.descr, tc.shape)
		f := capturetest.NPYWithHeader(hdr, raw)
		half := f[:len(f)-len(raw)/2]
		_, err := capture.FromBytes("x.npy", half)
		p := problem(t, err)
		assert.Equalf(t, capture.Code(capture.CodeTruncated), p.Code, "%s: p.Code", tc.descr)
		present := uint64(len(raw) - len(raw)/2)
		assert.Containsf(t, p.Msg, fmt.Sprintf("declares %d payload bytes, %d are present (%d missing)", tc.want, present, tc.want-present), "%s: p.Msg", tc.descr)
	}
	// Only a product past 64 bits saturates.
	hdr := "{'descr': '<u8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"
	_, err := capture.FromBytes("x.npy", capturetest.NPYWithHeader(hdr, raw))
	assert.Contains(t, problem(t, err).Msg, "declares 18446744073709551615 payload bytes", "problem(t, err).Msg")
	hdr = "{'descr': '<u8', 'fortran_order': False, 'shape': (1152921504606846976,), }" // 2^60 * 8 = 2^63
	_, err = capture.FromBytes("x.npy", capturetest.NPYWithHeader(hdr, raw))
	assert.Contains(t, problem(t, err).Msg, "declares 9223372036854775808 payload bytes", "problem(t, err).Msg")
}

// fortran_order must be a boolean literal.
func TestNPYFortranOrderIsBoolean(t *testing.T) {
	raw := small().Bytes()
	for _, v := range []string{"'True'", "1", "None", "'False'"} {
		hdr := fmt.Sprintf("{'descr': '|u1', 'fortran_order': %s, 'shape': (%d,), }", v, len(raw))
		_, err := capture.FromBytes("x.npy", capturetest.NPYWithHeader(hdr, raw))
		p := problem(t, err)
		assert.Equalf(t, capture.Code(capture.CodeBadNPY), p.Code, "%s: p.Code", v)
		assert.Contains(t, p.Msg, "fortran_order is "+v+", not True or False", "p.Msg")
	}
	hdr := fmt.Sprintf("{'descr': '|u1', 'shape': (%d,), }", len(raw))
	_, err := capture.FromBytes("x.npy", capturetest.NPYWithHeader(hdr, raw))
	assert.Contains(t, problem(t, err).Msg, "fortran_order is missing", "problem(t, err).Msg")
}

// Bytes after the array and a big-endian dtype are warnings; the capture
// reads.
func TestNPYWarnings(t *testing.T) {
	raw := small().Bytes()
	hdr := fmt.Sprintf("{'descr': '>u8', 'fortran_order': False, 'shape': (%d,), }", len(raw)/8)
	f := append(capturetest.NPYWithHeader(hdr, raw), 1, 2, 3)
	c, err := capture.FromBytes("x.npy", f)
	require.NoError(t, err)
	require.Len(t, c.Warnings, 2, "len(c.Warnings)")
	assert.Equal(t, capture.Code(capture.CodeBytesAfterLayout), c.Warnings[0].Code, "c.Warnings[0].Code")
	assert.Equal(t, int64(len(f)-3), c.Warnings[0].Off, "c.Warnings[0].Off")
	assert.Contains(t, c.Warnings[0].Msg, "3 bytes follow the .npy array", "c.Warnings[0].Msg")
	assert.Equal(t, capture.Code(capture.CodeNPYByteOrder), c.Warnings[1].Code, "c.Warnings[1].Code")
	assert.Contains(t, c.Warnings[1].Msg, "read as stored", "c.Warnings[1].Msg")
	for _, d := range []string{"|u1", "<u8", ">u1", "|V32", ">S8"} {
		hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", d, len(raw))
		c, err := capture.FromBytes("x.npy", capturetest.NPYWithHeader(hdr, raw[:0]))
		if err == nil {
			assert.Emptyf(t, c.Warnings, "%s: c.Warnings", d)
		}
	}
}

// Text is not a capture, and says so before anything about fields.
func TestNotACapture(t *testing.T) {
	for text, kind := range map[string]string{
		`{"num_workers": 48, "tasks": []}`: "JSON",
		"num_workers: 48\ntasks: []\n":     "YAML",
		"---\nstages: {}\n":                "YAML",
		"hello, world\n":                   "text",
		"# cycleabi\n\nA README.\n":        "text (YAML or Markdown)",
		"# a schedule\nnum_workers: 48\n":  "text (YAML or Markdown)",
		"  \n\t\n":                         "blank text",
		strings.Repeat("é", 400):           "text",
	} {
		_, err := capture.FromBytes("x.bin", []byte(text))
		p := problem(t, err)
		assert.Equalf(t, capture.Code(capture.CodeNotACapture), p.Code, "%s: p.Code", text)
		assert.Containsf(t, p.Msg, "not a capture: the file is "+kind, "%s: p.Msg", text)
	}
	// A capture always holds zero bytes in its first header; so does a
	// garbage file with one.
	for _, b := range [][]byte{small().Bytes(), {'{', 0, '}'}} {
		_, err := capture.FromBytes("x.bin", b)
		assert.NoError(t, err)
	}
}
