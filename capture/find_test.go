package capture_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
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
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	want, err := decode.Decode(open(), capture.Request{CubeSlots: l.CubeSlots, Capacities: &l.Capacities})
	if err != nil {
		t.Fatalf("with the right layout: %v", err)
	}
	got, err := decode.Decode(open(), capture.Request{})
	if err != nil {
		t.Fatalf("with no layout given (written %d cube slots, %+v): %v", l.CubeSlots, l.Capacities, err)
	}
	if got.Summary.Layout != l {
		t.Fatalf("found %+v, written %+v (%s)", got.Summary.Layout, l, got.Layout.How)
	}
	if fmt.Sprint(*got.Summary) != fmt.Sprint(*want.Summary) {
		t.Fatalf("summaries differ:\n found %+v\n given %+v", *got.Summary, *want.Summary)
	}
	if !strings.HasPrefix(got.Layout.How, "found: ") {
		t.Fatalf("how: %q", got.Layout.How)
	}
	r, err := validate.CheckBytes("found.bin", fc.bytes, validate.Options{})
	if err != nil || !r.OK() || r.Layout != l {
		t.Fatalf("validate: %v, layout %+v (written %+v)", err, r.Layout, l)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Resolve(capture.Request{})
		if err != nil {
			t.Fatalf("cube %d: %v", cube, err)
		}
		if !reflect.DeepEqual(res.Layout, b.Layout) {
			t.Errorf("res.Layout = %v, want %v", res.Layout, b.Layout)
		}
		aiv0 := b.HeaderOffset(abi.CoreTypeAIV, 0, 0)
		if want := fmt.Sprintf("found: %d cube slots from the AIV/0 header at @%#x", cube, aiv0); res.How != want {
			t.Errorf("res.How = %q, want %q", res.How, want)
		}
		if want := (capture.Evidence{Source: capture.FromHeaders, Slot: "AIV/0", Off: int64(aiv0)}); !reflect.DeepEqual(res.CubeSlotsFrom, want) {
			t.Errorf("res.CubeSlotsFrom = %v, want %v", res.CubeSlotsFrom, want)
		}
		if res.Hint != "" {
			t.Errorf("res.Hint = %q, want empty", res.Hint)
		}
	}
}

// An AIV pipeline: every AIC header is zero and AIC capacity is 0; the
// AIC capacity follows from where AIV/0 sits.
func TestFoundAIVPipeline(t *testing.T) {
	b := capturetest.New(40, 0, 64)
	b.Enter(abi.CoreTypeAIV, 0, 1).Span(abi.CoreTypeAIV, 0, 2, 3, 1, 0)
	c, err := capture.FromBytes("x.bin", append(b.Bytes(), make([]byte, 100)...))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Resolve(capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Layout, b.Layout) {
		t.Errorf("res.Layout = %v, want %v", res.Layout, b.Layout)
	}
	if res.How != "found: 40 cube slots from the AIV/0 header at @0xa00, AIC capacity 0 from where the AIV/0 header sits (every AIC header is zero)" {
		t.Errorf("res.How = %q, want %q", res.How, "found: 40 cube slots from the AIV/0 header at @0xa00, AIC capacity 0 from where the AIV/0 header sits (every AIC header is zero)")
	}
	if !res.CapacitiesFrom[0].Derived {
		t.Errorf("res.CapacitiesFrom[0].Derived = false, want true")
	}
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
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Resolve(capture.Request{Capacities: &caps})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Layout, b.Layout) {
		t.Errorf("res.Layout = %v, want %v", res.Layout, b.Layout)
	}
	at := b.HeaderOffset(last, 1, 0)
	if want := (capture.Evidence{Source: capture.FromHeaders, Slot: fmt.Sprintf("%s/1", last), Off: int64(at)}); !reflect.DeepEqual(res.CubeSlotsFrom, want) {
		t.Errorf("res.CubeSlotsFrom = %v, want %v", res.CubeSlotsFrom, want)
	}
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
	if got := len(fits); got < 2 {
		t.Fatalf("len(fits) = %v, want >= %v", got, 2)
	}
	buf := make([]byte, size)
	h := abi.CoreHeader{EntryCycle: 1, RecordCount: 1, CoreType: abi.CoreTypeAIC, RecordCapacity: 16}
	h.Append(buf[:0])
	c, err := capture.FromBytes("x.bin", buf)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(capture.Request{})
	p := problem(t, err)
	if p.Code != capture.CodeAmbiguousLayout {
		t.Errorf("p.Code = %q, want %q", p.Code, capture.CodeAmbiguousLayout)
	}
	if want := "layouts fit the headers and the file size"; !strings.Contains(p.Msg, want) {
		t.Errorf("p.Msg = %q, want it to contain %q", p.Msg, want)
	}
	for _, cube := range fits {
		if want := fmt.Sprintf("(%d cube slots, AIC capacity 16, AIV capacity", cube); !strings.Contains(p.Msg, want) {
			t.Errorf("p.Msg = %q, want it to contain %q", p.Msg, want)
		}
	}
	if !strings.Contains(p.Msg, "from the file size") {
		t.Errorf("p.Msg = %q, want it to contain %q", p.Msg, "from the file size")
	}
	if got := p.Error(); strings.Contains(got, "--") {
		t.Errorf("capture never names a flag: p.Error() = %q, want no %q", got, "--")
	}

	// The host plan picks among them, and says so.
	plan := &capture.Plan{Name: "p.yaml", CubeSlots: fits[0]}
	plan.Capacities.AIC = 16
	plan.Capacities.AIV = uint32(((size/uint64(fits[0])-aicStride)/2 - hdr) / rec)
	res, err := c.Resolve(capture.Request{Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	if res.Layout.CubeSlots != fits[0] {
		t.Errorf("res.Layout.CubeSlots = %v, want %v", res.Layout.CubeSlots, fits[0])
	}
	if !strings.Contains(res.How, "host plan p.yaml picks it among") {
		t.Errorf("res.How = %q, want it to contain %q", res.How, "host plan p.yaml picks it among")
	}
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
	if cube2 == 0 {
		t.Fatalf("no AIC capacity puts AIV/0 where a capacity of 16 does: cube2 = 0, want non-zero")
	}
	b := capturetest.New(24, uint32(capA), 16)
	b.Enter(abi.CoreTypeAIV, 0, 1).Span(abi.CoreTypeAIV, 0, 2, 3, 1, 0)
	tail := max(len(b.Bytes()), int(3*cube2*stride16)-len(b.Bytes()))
	c, err := capture.FromBytes("x.bin", append(b.Bytes(), make([]byte, tail)...))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(capture.Request{})
	p := problem(t, err)
	if p.Code != capture.CodeAmbiguousLayout {
		t.Errorf("p.Code = %q, want %q", p.Code, capture.CodeAmbiguousLayout)
	}
	if want := fmt.Sprintf("(24 cube slots, AIC capacity %d, AIV capacity 16)", capA); !strings.Contains(p.Msg, want) {
		t.Errorf("p.Msg = %q, want it to contain %q", p.Msg, want)
	}
	if want := fmt.Sprintf("(%d cube slots, AIC capacity 16, AIV capacity 16)", cube2); !strings.Contains(p.Msg, want) {
		t.Errorf("p.Msg = %q, want it to contain %q", p.Msg, want)
	}
	// Without the tail, only the written layout fits.
	c, err = capture.FromBytes("x.bin", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Resolve(capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Layout, b.Layout) {
		t.Errorf("res.Layout = %v, want %v", res.Layout, b.Layout)
	}
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
	if capA == 0 {
		t.Fatalf("capA = 0, want non-zero")
	}
	b := capturetest.New(24, uint32(capA), 16)
	b.Enter(abi.CoreTypeAIV, 0, 1).Span(abi.CoreTypeAIV, 0, 2, 3, 1, 0)
	c, err := capture.FromBytes("x.bin", b.Bytes()[:len(b.Bytes())-int(stride16)])
	if err != nil {
		t.Fatal(err)
	}
	plan := &capture.Plan{Name: "p.yaml", CubeSlots: 24, Capacities: b.Layout.Capacities}
	res, err := c.Resolve(capture.Request{Plan: plan})
	if err == nil {
		t.Fatalf("resolved %+v: got no error, want one", res)
	}
	p := problem(t, err)
	if p.Code != capture.CodeTruncated {
		t.Errorf("p.Code = %q, want %q", p.Code, capture.CodeTruncated)
	}
	if want := "the layout host plan p.yaml picks among the 2 its headers support (24 cube slots"; !strings.Contains(p.Msg, want) {
		t.Errorf("p.Msg = %q, want it to contain %q", p.Msg, want)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(capture.Request{})
	p := problem(t, err)
	if p.Code != capture.CodeNoLayout {
		t.Errorf("p.Code = %q, want %q", p.Code, capture.CodeNoLayout)
	}
	if want := fmt.Sprintf("24 cube slots: the header where AIV/0 would start, @%#x, names AIC/9", b.HeaderOffset(abi.CoreTypeAIV, 0, 0)); !strings.Contains(p.Msg, want) {
		t.Errorf("p.Msg = %q, want it to contain %q", p.Msg, want)
	}
	if want := "give the cube slot count and capacities"; !strings.Contains(p.Hint, want) {
		t.Errorf("p.Hint = %q, want it to contain %q", p.Hint, want)
	}

	// Given the cube slot count, the header is read all the same and the
	// scan names it.
	res, err := c.Resolve(capture.Request{CubeSlots: 24})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Scan(res.Layout, capture.ScanOptions{})
	if got := problem(t, err).Code; got != capture.CodeSlotIdentity {
		t.Errorf("problem(t, err).Code = %q, want %q", got, capture.CodeSlotIdentity)
	}
}

// A buffer with no live header says so as no-records, not as a layout
// problem.
func TestAllZero(t *testing.T) {
	c, err := capture.FromBytes("x.bin", make([]byte, 50000))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(capture.Request{})
	if got := problem(t, err).Code; got != capture.CodeNoRecords {
		t.Errorf("problem(t, err).Code = %q, want %q", got, capture.CodeNoRecords)
	}
}

// A request the headers contradict is refused with both values; a
// request that makes no layout is the caller's error, in the caller's
// terms (RequestError names the part, never a flag).
func TestRequestProblems(t *testing.T) {
	b := capturetest.New(32, 64, 64)
	b.Enter(abi.CoreTypeAIC, 0, 1).Span(abi.CoreTypeAIC, 0, 2, 3, 1, 0)
	b.Enter(abi.CoreTypeAIV, 0, 1)
	c, err := capture.FromBytes("x.bin", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(capture.Request{CubeSlots: 32, Capacities: &abi.Capacities{AIC: 80, AIV: 80}, GivenBy: "the flags"})
	p := problem(t, err)
	if p.Code != capture.CodeLayoutMismatch {
		t.Errorf("p.Code = %q, want %q", p.Code, capture.CodeLayoutMismatch)
	}
	if p.Msg != "the headers of AIC/0 and AIV/0 say capacities 64 and 64; the flags say 80 and 80" {
		t.Errorf("p.Msg = %q, want %q", p.Msg, "the headers of AIC/0 and AIV/0 say capacities 64 and 64; the flags say 80 and 80")
	}
	_, err = c.Resolve(capture.Request{CubeSlots: 24})
	p = problem(t, err)
	if p.Code != capture.CodeLayoutMismatch {
		t.Errorf("p.Code = %q, want %q", p.Code, capture.CodeLayoutMismatch)
	}
	if want := fmt.Sprintf("the AIV/0 header at @%#x says 32 cube slots; the given values say 24", b.HeaderOffset(abi.CoreTypeAIV, 0, 0)); p.Msg != want {
		t.Errorf("p.Msg = %q, want %q", p.Msg, want)
	}

	// The right values agree: given, and said so.
	res, err := c.Resolve(capture.Request{CubeSlots: 32, Capacities: &abi.Capacities{AIC: 64, AIV: 64}, GivenBy: "the flags"})
	if err != nil {
		t.Fatal(err)
	}
	if res.How != "given by the flags" {
		t.Errorf("res.How = %q, want %q", res.How, "given by the flags")
	}
	if res.Source != capture.FromHost {
		t.Errorf("res.Source = %q, want %q", res.Source, capture.FromHost)
	}

	for _, req := range []capture.Request{
		{CubeSlots: abi.MinCubeSlots - 1},
		{Capacities: &abi.Capacities{AIC: 17}},
		{Capacities: &abi.Capacities{AIV: abi.MaxRecordsPerCore + 16}},
	} {
		_, err := c.Resolve(req)
		var re *capture.RequestError
		if !errors.As(err, &re) {
			t.Fatalf("%+v: error %v (%T), want one that is a %T", req, err, err, re)
		}
		var p *capture.Problem
		if errors.As(err, &p) {
			t.Errorf("errors.As(err, &p) = true, want false")
		}
		if got := err.Error(); strings.Contains(got, "--") {
			t.Errorf("err.Error() = %q, want no %q", got, "--")
		}
	}
	_, err = c.Resolve(capture.Request{Capacities: &abi.Capacities{AIC: 17}})
	var re *capture.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("error %v (%T), want one that is a %T", err, err, re)
	}
	if re.Part != capture.PartCapacity {
		t.Errorf("re.Part = %v, want %v", re.Part, capture.PartCapacity)
	}
	if re.CoreType != abi.CoreTypeAIC {
		t.Errorf("re.CoreType = %v, want %v", re.CoreType, abi.CoreTypeAIC)
	}
	if re.Value != 17 {
		t.Errorf("re.Value = %v, want 17", re.Value)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Resolve(capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Layout, b.Layout) {
		t.Errorf("res.Layout = %v, want %v", res.Layout, b.Layout)
	}
	aiv3 := b.HeaderOffset(abi.CoreTypeAIV, 3, 0)
	if want := fmt.Sprintf("found: 32 cube slots from the AIV/3 header at @%#x, AIV capacity 16 from the AIV/3 header at @%#x (AIV/0 has a damaged header)", aiv3, aiv3); res.How != want {
		t.Errorf("res.How = %q, want %q", res.How, want)
	}
	_, err = c.Scan(res.Layout, capture.ScanOptions{})
	p := problem(t, err)
	if p.Code != capture.CodeSlotIdentity {
		t.Errorf("p.Code = %q, want %q", p.Code, capture.CodeSlotIdentity)
	}
	if p.Slot != "AIV/0" {
		t.Errorf("p.Slot = %q, want %q", p.Slot, "AIV/0")
	}
}
