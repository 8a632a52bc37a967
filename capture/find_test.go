package capture_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// foundCapture is a random capture a device could write, with what the
// search must find.
type foundCapture struct {
	b     *capturetest.Builder
	bytes []byte // raw or .npy, with any trailing bytes
}

// drawFoundCapture draws a layout (cube slots 24..72 and the counts real
// chips have, capacities 0..512 including a first-region (AIC) capacity
// 0), enters a random set of cores (each region's slot 0 may be idle, the
// whole first region may be), writes records, and appends trailing bytes.
// At least one core of every region after the first enters (for today's
// schema, an AIV core): a zero region start is placed by a live header of
// its own region or the next, and a capture whose last region is all zero
// has no header that tells the cube slot count once bytes trail it.
func drawFoundCapture(t *rapid.T) foundCapture {
	cube := rapid.OneOf(rapid.SampledFrom([]uint32{24, 25, 32, 40, 48, 64}), rapid.Uint32Range(abi.MinCubeSlots, 72)).Draw(t, "cube")
	capacity := func(name string, min int) uint32 {
		return uint32(rapid.IntRange(min, 32).Draw(t, name)) * abi.RecordCapacityAlignment
	}
	regions := abi.Regions()
	first := regions[0].CoreType
	var caps abi.Capacities
	for i, r := range regions {
		// A region after the first holds a record: capacity 16 at least.
		caps.Set(r.CoreType, capacity(strings.ToLower(r.CoreType.String())+"/16", min(i, 1)))
	}
	b := capturetest.NewWith(cube, caps)
	enter := func(s abi.Slot) {
		b.Enter(s.CoreType, s.BlockID, rapid.Uint64Range(1, 1<<40).Draw(t, "entry"))
		for i := range rapid.IntRange(0, int(min(s.Capacity, 3))).Draw(t, "records") {
			start := uint64(1000 + 100*i)
			b.Span(s.CoreType, s.BlockID, start, start+50, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), uint32(i))
		}
	}
	idleFirst := rapid.Bool().Draw(t, first.String()+" region idle")
	for i := range b.Layout.NumSlots() {
		s := b.Layout.Slot(i)
		if s.CoreType == first && idleFirst {
			continue
		}
		if rapid.IntRange(0, 3).Draw(t, "live") == 0 {
			enter(s)
		}
	}
	if !rapid.Bool().Draw(t, first.String()+"/0 idle") && !idleFirst {
		enter(b.Slot(first, 0))
	}
	for _, r := range regions[1:] {
		if !rapid.Bool().Draw(t, r.CoreType.String()+"/0 idle") {
			enter(b.Slot(r.CoreType, 0))
		}
	}
	// One live core with a record, anywhere, in every region after the first.
	for _, r := range regions[1:] {
		last := rapid.Uint32Range(0, b.Layout.SlotCount(r.CoreType)-1).Draw(t, r.CoreType.String()+" with a record")
		s := b.Slot(r.CoreType, last)
		if h, _ := abi.DecodeCoreHeader(b.Buf[s.Offset:]); h.IsZero() {
			b.Enter(r.CoreType, last, 5)
		}
		b.Span(r.CoreType, last, 900, 950, abi.TaskTypeBase+uint32(abi.TaskTypeSwiGLU), 1)
	}
	buf := bytes.Clone(b.Bytes())
	fill := byte(0)
	if rapid.Bool().Draw(t, "garbage after") {
		fill = 0xA5
	}
	after := rapid.IntRange(0, 3000).Draw(t, "bytes after")
	// A large zero tail behind an all-zero first region of capacity > 0 is
	// truly ambiguous (TestAmbiguousIdleAICRegion); not drawn here.
	if (!idleFirst || caps.For(first) == 0) && rapid.IntRange(0, 4).Draw(t, "a large tail") == 0 {
		after += len(buf) * rapid.IntRange(1, 2).Draw(t, "tail in layouts")
	}
	buf = append(buf, bytes.Repeat([]byte{fill}, after)...)
	if rapid.Bool().Draw(t, "npy") {
		buf = capturetest.NPY(buf)
	}
	return foundCapture{b: b, bytes: buf}
}

// propFound: with no layout given, decode and validate find the layout
// the capture was written with, and decode exactly as with it given.
func propFound(t *rapid.T) {
	fc := drawFoundCapture(t)
	l := fc.b.Layout
	open := func() *capture.Capture {
		c, err := capture.FromBytes("found.bin", fc.bytes)
		require.NoError(t, err)
		return c
	}
	want, err := decode.Decode(open(), capture.Request{CubeSlots: l.CubeSlots, Capacities: &l.Capacities})
	require.NoError(t, err, "with the right layout")
	got, err := decode.Decode(open(), capture.Request{})
	require.NoErrorf(t, err, "with no layout given (written %d cube slots, %+v)", l.CubeSlots, l.Capacities)
	require.Equalf(t, l, got.Summary.Layout, "found (%s)", got.Layout.How)
	require.Equalf(t, fmt.Sprint(*want.Summary), fmt.Sprint(*got.Summary), "summaries differ:\n found %+v\n given %+v", *got.Summary, *want.Summary)
	require.Truef(t, strings.HasPrefix(got.Layout.How, "found: "), "how: %q", got.Layout.How)
	r, err := validate.CheckBytes("found.bin", fc.bytes, validate.Options{})
	require.NoError(t, err, "validate")
	require.True(t, r.OK(), "validate: not OK")
	require.Equal(t, l, r.Layout, "validate: layout")
}

func TestFoundLayout(t *testing.T) { rapid.Check(t, propFound) }

// Each real cube slot count with live first headers is found, and the
// summary says from which header.
func TestFoundCubeSlots(t *testing.T) {
	for _, cube := range []uint32{24, 25, 32, 40, 48, 64} {
		b := capturetest.New(cube, 32, 48)
		b.Enter(abi.CoreTypeAIC, 0, 1).Span(abi.CoreTypeAIC, 0, 2, 3, 1, 0)
		b.Enter(abi.CoreTypeAIV, 0, 1)
		c, err := capture.FromBytes("x.bin", b.Bytes())
		require.NoError(t, err)
		res, err := c.Resolve(capture.Request{})
		require.NoErrorf(t, err, "cube %d", cube)
		assert.Equal(t, b.Layout, res.Layout, "res.Layout")
		aiv0 := b.HeaderOffset(abi.CoreTypeAIV, 0, 0)
		assert.Equal(t, fmt.Sprintf("found: %d cube slots from the AIV/0 header at @%#x", cube, aiv0), res.How, "res.How")
		assert.Equal(t, (capture.Evidence{Source: capture.FromHeaders, Slot: "AIV/0", Off: int64(aiv0)}), res.CubeSlotsFrom, "res.CubeSlotsFrom")
		assert.Empty(t, res.Hint, "res.Hint")
	}
}

// An AIV pipeline: every AIC header is zero and AIC capacity is 0; the
// AIC capacity follows from where AIV/0 sits.
func TestFoundAIVPipeline(t *testing.T) {
	b := capturetest.New(40, 0, 64)
	b.Enter(abi.CoreTypeAIV, 0, 1).Span(abi.CoreTypeAIV, 0, 2, 3, 1, 0)
	c, err := capture.FromBytes("x.bin", append(b.Bytes(), make([]byte, 100)...))
	require.NoError(t, err)
	res, err := c.Resolve(capture.Request{})
	require.NoError(t, err)
	assert.Equal(t, b.Layout, res.Layout, "res.Layout")
	assert.Equal(t, "found: 40 cube slots from the AIV/0 header at @0xa00, AIC capacity 0 from where the AIV/0 header sits (every AIC header is zero)", res.How, "res.How")
	assert.True(t, res.CapacitiesFrom[0].Derived, "res.CapacitiesFrom[0].Derived = false, want true")
}

// Given capacities place a capture whose only live header is a slot of
// the last region, however many regions (all zero) come before it: the
// cube slot count follows from where that header sits.
func TestGivenCapacitiesPlaceTheLastRegion(t *testing.T) {
	regions := abi.Regions()
	last := regions[len(regions)-1].CoreType
	caps := abi.SameCapacities(16)
	b := capturetest.NewWith(40, caps)
	b.Enter(last, 1, 1).Span(last, 1, 2, 3, 1, 0)
	c, err := capture.FromBytes("x.bin", b.Bytes())
	require.NoError(t, err)
	res, err := c.Resolve(capture.Request{Capacities: &caps})
	require.NoError(t, err)
	assert.Equal(t, b.Layout, res.Layout, "res.Layout")
	at := b.HeaderOffset(last, 1, 0)
	assert.Equal(t, (capture.Evidence{Source: capture.FromHeaders, Slot: fmt.Sprintf("%s/1", last), Off: int64(at)}), res.CubeSlotsFrom, "res.CubeSlotsFrom")
}

// Several layouts fit: an error listing them, never a silent pick. A
// buffer whose only live header is AIC/0, with its AIV region all zero,
// fits every cube slot count whose AIV stride divides what is left.
func TestAmbiguousLayout(t *testing.T) {
	// Search for a file size two cube slot counts C fill: C AIC slots of
	// capacity 16 and 2C AIV slots of one capacity (a multiple of the
	// alignment, 0 included), in the schema's header and record sizes.
	const hdr, rec, align = uint64(abi.CoreHeaderSize), uint64(abi.ProfileRecordSize), uint64(abi.RecordCapacityAlignment)
	aicStride := hdr + 16*rec
	var size uint64
	var fits []uint32
	for s := 3 * 24 * aicStride; s < 1<<20 && len(fits) < 2; s += hdr {
		fits = fits[:0]
		for c := uint64(24); c <= s/(3*hdr); c++ {
			rest := s - c*aicStride
			if s >= c*aicStride && rest%(2*c) == 0 && rest/(2*c) >= hdr && (rest/(2*c)-hdr)%(align*rec) == 0 {
				fits = append(fits, uint32(c))
			}
		}
		size = s
	}
	require.GreaterOrEqual(t, len(fits), 2, "len(fits)")
	buf := make([]byte, size)
	h := abi.CoreHeader{EntryCycle: 1, RecordCount: 1, CoreType: abi.CoreTypeAIC, RecordCapacity: 16}
	h.Append(buf[:0])
	c, err := capture.FromBytes("x.bin", buf)
	require.NoError(t, err)
	_, err = c.Resolve(capture.Request{})
	p := problem(t, err)
	assert.Equal(t, capture.Code(capture.CodeAmbiguousLayout), p.Code, "p.Code")
	assert.Contains(t, p.Msg, "layouts fit the headers and the file size", "p.Msg")
	for _, cube := range fits {
		assert.Contains(t, p.Msg, fmt.Sprintf("(%d cube slots, AIC capacity 16, AIV capacity", cube), "p.Msg")
	}
	assert.Contains(t, p.Msg, "from the file size", "p.Msg")
	assert.NotContainsf(t, p.Error(), "--", "capture never names a flag: p.Error(), want no %q", "--")

	// The host plan picks among them, and says so.
	plan := &capture.Plan{Name: "p.yaml", CubeSlots: fits[0]}
	plan.Capacities.AIC = 16
	plan.Capacities.AIV = uint32(((size/uint64(fits[0])-aicStride)/2 - hdr) / rec)
	res, err := c.Resolve(capture.Request{Plan: plan})
	require.NoError(t, err)
	assert.Equal(t, fits[0], res.Layout.CubeSlots, "res.Layout.CubeSlots")
	assert.Contains(t, res.How, "host plan p.yaml picks it among", "res.How")
}

// An all-zero AIC region states no AIC capacity: 24 cube slots of a large
// AIC capacity put AIV/0 where more cube slots of capacity 16 do (in
// today's sizes, 24 of capacity 64 where 88 of 16 do), and a zero tail
// holds the larger layout's extra AIV slots. Both fit; both are listed.
func TestAmbiguousIdleAICRegion(t *testing.T) {
	const hdr, rec = uint64(abi.CoreHeaderSize), uint64(abi.ProfileRecordSize)
	stride16 := hdr + 16*rec
	var capA, cube2 uint64
	for a := uint64(32); a <= 4096 && cube2 == 0; a += abi.RecordCapacityAlignment {
		if region := 24 * (hdr + a*rec); region%stride16 == 0 {
			capA, cube2 = a, region/stride16
		}
	}
	require.NotEqual(t, uint64(0), cube2, "no AIC capacity puts AIV/0 where a capacity of 16 does: cube2 = 0, want non-zero")
	b := capturetest.New(24, uint32(capA), 16)
	b.Enter(abi.CoreTypeAIV, 0, 1).Span(abi.CoreTypeAIV, 0, 2, 3, 1, 0)
	tail := max(len(b.Bytes()), int(3*cube2*stride16)-len(b.Bytes()))
	c, err := capture.FromBytes("x.bin", append(b.Bytes(), make([]byte, tail)...))
	require.NoError(t, err)
	_, err = c.Resolve(capture.Request{})
	p := problem(t, err)
	assert.Equal(t, capture.Code(capture.CodeAmbiguousLayout), p.Code, "p.Code")
	assert.Contains(t, p.Msg, fmt.Sprintf("(24 cube slots, AIC capacity %d, AIV capacity 16)", capA), "p.Msg")
	assert.Contains(t, p.Msg, fmt.Sprintf("(%d cube slots, AIC capacity 16, AIV capacity 16)", cube2), "p.Msg")
	// Without the tail, only the written layout fits.
	c, err = capture.FromBytes("x.bin", b.Bytes())
	require.NoError(t, err)
	res, err := c.Resolve(capture.Request{})
	require.NoError(t, err)
	assert.Equal(t, b.Layout, res.Layout, "res.Layout")
}

// A host plan that picks, among several layouts the headers support, one
// the buffer is too short for finds a truncated capture: the two layouts
// of TestAmbiguousIdleAICRegion, cut short of both.
func TestPlanPicksTruncatedLayout(t *testing.T) {
	const hdr, rec = uint64(abi.CoreHeaderSize), uint64(abi.ProfileRecordSize)
	stride16 := hdr + 16*rec
	var capA uint64
	for a := uint64(32); a <= 4096 && capA == 0; a += abi.RecordCapacityAlignment {
		if (24*(hdr+a*rec))%stride16 == 0 {
			capA = a
		}
	}
	require.NotEqual(t, uint64(0), capA, "capA = 0, want non-zero")
	b := capturetest.New(24, uint32(capA), 16)
	b.Enter(abi.CoreTypeAIV, 0, 1).Span(abi.CoreTypeAIV, 0, 2, 3, 1, 0)
	c, err := capture.FromBytes("x.bin", b.Bytes()[:len(b.Bytes())-int(stride16)])
	require.NoError(t, err)
	plan := &capture.Plan{Name: "p.yaml", CubeSlots: 24, Capacities: b.Layout.Capacities}
	res, err := c.Resolve(capture.Request{Plan: plan})
	require.Errorf(t, err, "resolved %+v: got no error, want one", res)
	p := problem(t, err)
	assert.Equal(t, capture.Code(capture.CodeTruncated), p.Code, "p.Code")
	assert.Contains(t, p.Msg, "the layout host plan p.yaml picks among the 2 its headers support (24 cube slots", "p.Msg")
}

// No layout fits: an error saying why for the cube slot counts tried.
func TestNoLayout(t *testing.T) {
	b := capturetest.New(24, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1)
	b.Enter(abi.CoreTypeAIV, 0, 1).Span(abi.CoreTypeAIV, 0, 2, 3, 1, 0)
	// AIV/0's header claims to be AIC/9: no cube slot count puts an AIV
	// header where the AIV region starts.
	b.SetHeader32(abi.CoreTypeAIV, 0, abi.CoreHeaderCoreTypeOffset, uint32(abi.CoreTypeAIC))
	b.SetHeader32(abi.CoreTypeAIV, 0, abi.CoreHeaderBlockIDOffset, 9)
	c, err := capture.FromBytes("x.bin", b.Bytes())
	require.NoError(t, err)
	_, err = c.Resolve(capture.Request{})
	p := problem(t, err)
	assert.Equal(t, capture.Code(capture.CodeNoLayout), p.Code, "p.Code")
	assert.Contains(t, p.Msg, fmt.Sprintf("24 cube slots: the header where AIV/0 would start, @%#x, names AIC/9", b.HeaderOffset(abi.CoreTypeAIV, 0, 0)), "p.Msg")
	assert.Contains(t, p.Hint, "give the cube slot count and capacities", "p.Hint")

	// Given the cube slot count, the header is read all the same and the
	// scan names it.
	res, err := c.Resolve(capture.Request{CubeSlots: 24})
	require.NoError(t, err)
	_, err = c.Scan(res.Layout, capture.ScanOptions{})
	assert.Equal(t, capture.Code(capture.CodeSlotIdentity), problem(t, err).Code, "problem(t, err).Code")
}

// A buffer with no live header says so as no-records, not as a layout
// problem.
func TestAllZero(t *testing.T) {
	c, err := capture.FromBytes("x.bin", make([]byte, 50000))
	require.NoError(t, err)
	_, err = c.Resolve(capture.Request{})
	assert.Equal(t, capture.Code(capture.CodeNoRecords), problem(t, err).Code, "problem(t, err).Code")
}

// A request the headers contradict is refused with both values; a
// request that makes no layout is the caller's error, in the caller's
// terms (RequestError names the part, never a flag).
func TestRequestProblems(t *testing.T) {
	b := capturetest.New(32, 64, 64)
	b.Enter(abi.CoreTypeAIC, 0, 1).Span(abi.CoreTypeAIC, 0, 2, 3, 1, 0)
	b.Enter(abi.CoreTypeAIV, 0, 1)
	c, err := capture.FromBytes("x.bin", b.Bytes())
	require.NoError(t, err)
	_, err = c.Resolve(capture.Request{CubeSlots: 32, Capacities: &abi.Capacities{AIC: 80, AIV: 80}, GivenBy: "the flags"})
	p := problem(t, err)
	assert.Equal(t, capture.Code(capture.CodeLayoutMismatch), p.Code, "p.Code")
	assert.Equal(t, "the headers of AIC/0 and AIV/0 say capacities 64 and 64; the flags say 80 and 80", p.Msg, "p.Msg")
	_, err = c.Resolve(capture.Request{CubeSlots: 24})
	p = problem(t, err)
	assert.Equal(t, capture.Code(capture.CodeLayoutMismatch), p.Code, "p.Code")
	assert.Equal(t, fmt.Sprintf("the AIV/0 header at @%#x says 32 cube slots; the given values say 24", b.HeaderOffset(abi.CoreTypeAIV, 0, 0)), p.Msg, "p.Msg")

	// The right values agree: given, and said so.
	res, err := c.Resolve(capture.Request{CubeSlots: 32, Capacities: &abi.Capacities{AIC: 64, AIV: 64}, GivenBy: "the flags"})
	require.NoError(t, err)
	assert.Equal(t, "given by the flags", res.How, "res.How")
	assert.Equal(t, capture.LayoutSource(capture.FromHost), res.Source, "res.Source")

	for _, req := range []capture.Request{
		{CubeSlots: abi.MinCubeSlots - 1},
		{Capacities: &abi.Capacities{AIC: 17}},
		{Capacities: &abi.Capacities{AIV: abi.MaxRecordsPerCore + 16}},
	} {
		_, err := c.Resolve(req)
		var re *capture.RequestError
		require.ErrorAsf(t, err, &re, "%+v: error %v (%T), want one that is a %T", req, err, err, re)
		var p *capture.Problem
		assert.False(t, errors.As(err, &p), "errors.As(err, &p) = true, want false")
		assert.NotContainsf(t, err.Error(), "--", "err.Error(), want no %q", "--")
	}
	_, err = c.Resolve(capture.Request{Capacities: &abi.Capacities{AIC: 17}})
	var re *capture.RequestError
	require.ErrorAsf(t, err, &re, "error %v (%T), want one that is a %T", err, err, re)
	assert.Equal(t, capture.RequestPart(capture.PartCapacity), re.Part, "re.Part")
	assert.Equal(t, abi.CoreType(abi.CoreTypeAIC), re.CoreType, "re.CoreType")
	assert.Equal(t, uint64(17), re.Value, "re.Value")
}

// A damaged AIV/0 header (it names AIC/9) does not hide the layout when
// a later AIV header places it: the scan then reports the damaged one.
func TestDamagedFirstHeader(t *testing.T) {
	b := capturetest.New(32, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1).Span(abi.CoreTypeAIC, 0, 2, 3, 1, 0)
	b.Enter(abi.CoreTypeAIV, 0, 1).Span(abi.CoreTypeAIV, 0, 2, 3, 1, 0)
	b.Enter(abi.CoreTypeAIV, 3, 1)
	b.SetHeader32(abi.CoreTypeAIV, 0, abi.CoreHeaderCoreTypeOffset, uint32(abi.CoreTypeAIC))
	b.SetHeader32(abi.CoreTypeAIV, 0, abi.CoreHeaderBlockIDOffset, 9)
	c, err := capture.FromBytes("x.bin", b.Bytes())
	require.NoError(t, err)
	res, err := c.Resolve(capture.Request{})
	require.NoError(t, err)
	assert.Equal(t, b.Layout, res.Layout, "res.Layout")
	aiv3 := b.HeaderOffset(abi.CoreTypeAIV, 3, 0)
	assert.Equal(t, fmt.Sprintf("found: 32 cube slots from the AIV/3 header at @%#x, AIV capacity 16 from the AIV/3 header at @%#x (AIV/0 has a damaged header)", aiv3, aiv3), res.How, "res.How")
	_, err = c.Scan(res.Layout, capture.ScanOptions{})
	p := problem(t, err)
	assert.Equal(t, capture.Code(capture.CodeSlotIdentity), p.Code, "p.Code")
	assert.Equal(t, "AIV/0", p.Slot, "p.Slot")
}
