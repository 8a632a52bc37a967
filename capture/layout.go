package capture

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// MaxFoundCubeSlots is the largest cube slot count the search tries when
// the request does not give one. Captures with more cube slots decode when
// the count is given.
const MaxFoundCubeSlots = 4096

// zeroScanBudget bounds the bytes the search reads, over one resolution,
// looking for the first live header after an unused one. Headers it reads
// otherwise are a few per cube slot count tried, whatever the file size.
const zeroScanBudget = 256 << 20

// regions are the schema's slot regions in buffer order; the resolver
// iterates them and never names one.
var regions = abi.Regions()

// LayoutSource says where a part of a layout came from.
type LayoutSource string

// The layout sources.
const (
	// FromHeaders: read from a header of the capture (the one named in the
	// Evidence), or computed from where that header sits.
	FromHeaders LayoutSource = "headers"
	// FromSize: the only value that makes the layout end with the buffer,
	// for a last region whose headers are all zero.
	FromSize LayoutSource = "size"
	// FromHost: given in the request.
	FromHost LayoutSource = "host"
	// FromPlan: the host plan's, because the capture does not state it.
	FromPlan LayoutSource = "plan"
)

// Plan is the host plan of a capture: what `cycleabi plan` computes from
// a schedule.
type Plan struct {
	// Name labels the plan in messages (the schedule file).
	Name       string
	CubeSlots  uint32
	Capacities abi.Capacities
	// WorkerOn, when set, returns the worker the plan runs on core
	// t/block and the tasks it gives it (0: none run there); a worker
	// with tasks writes records (validate's idle-worker).
	WorkerOn func(t abi.CoreType, block uint32) (worker uint32, tasks int)
}

// Request is what the caller knows about a capture's layout. The zero
// Request knows nothing: the layout is found from the capture alone.
type Request struct {
	// CubeSlots is the cube slot count C; 0 when not given.
	CubeSlots uint32
	// Capacities are the record capacities of every region; nil when not
	// given. Given values override what the headers say, but a request
	// that the headers contradict is refused with both values named.
	Capacities *abi.Capacities
	// Plan is the host plan, nil when there is none. It does not override
	// the headers: it stands in when they state no layout, and chooses
	// among several layouts that fit.
	Plan *Plan
	// GivenBy names CubeSlots and Capacities in messages, as the plural
	// subject of "say" ("the flags"); "" reads "the given values".
	GivenBy string
	// Partial accepts a layout longer than the buffer, for a partial
	// decode of a truncated capture: the layout its headers declare (or
	// the request gives whole) resolves, with Resolved.Missing the bytes
	// the buffer lacks, instead of a truncated problem. Scan it with
	// ScanOptions.Partial.
	Partial bool
}

// givenBy names the given values as the subject of "say".
func (r Request) givenBy() string {
	if r.GivenBy == "" {
		return "the given values"
	}
	return r.GivenBy
}

// givenNote is " by the flags", or "" when the request does not say who
// gave its values.
func (r Request) givenNote() string {
	if r.GivenBy == "" {
		return ""
	}
	return " by " + r.GivenBy
}

// RequestPart names the part of a Request a RequestError is about, so that
// a caller can word it in its own terms (a flag name).
type RequestPart int

// The parts of a request.
const (
	// PartCubeSlots is Request.CubeSlots.
	PartCubeSlots RequestPart = iota + 1
	// PartCapacity is the capacity of RequestError.CoreType's region.
	PartCapacity
	// PartLayout is the layout the request's values make together.
	PartLayout
)

// RequestError reports a request that makes no layout, whatever the
// capture: it is the caller's mistake, not the capture's.
type RequestError struct {
	Part RequestPart
	// CoreType is the region of a PartCapacity error.
	CoreType abi.CoreType
	// Value is the refused value.
	Value uint64
	Err   error
}

func (e *RequestError) Error() string {
	switch e.Part {
	case PartCubeSlots:
		return fmt.Sprintf("cube slot count %d: %v", e.Value, e.Err)
	case PartCapacity:
		return fmt.Sprintf("%s capacity %d: %v", e.CoreType, e.Value, e.Err)
	}
	return e.Err.Error()
}

func (e *RequestError) Unwrap() error { return e.Err }

// CheckCubeSlots returns a *RequestError unless n is a cube slot count a
// layout can have.
func CheckCubeSlots(n uint32) error {
	if n < abi.MinCubeSlots {
		return &RequestError{Part: PartCubeSlots, Value: uint64(n), Err: fmt.Errorf("below the schema's minimum %d", abi.MinCubeSlots)}
	}
	return nil
}

// Check returns a *RequestError when the request's values make no layout,
// whatever the capture (Resolve checks it first too).
func (r Request) Check() error {
	if r.CubeSlots != 0 {
		if err := CheckCubeSlots(r.CubeSlots); err != nil {
			return err
		}
	}
	if r.Capacities != nil {
		for _, reg := range regions {
			v := r.Capacities.For(reg.CoreType)
			if err := abi.CheckCapacity(uint64(v)); err != nil {
				return &RequestError{Part: PartCapacity, CoreType: reg.CoreType, Value: uint64(v), Err: err}
			}
		}
		if r.CubeSlots != 0 {
			if _, err := abi.NewLayout(r.CubeSlots, *r.Capacities); err != nil {
				return &RequestError{Part: PartLayout, Err: err}
			}
		}
	}
	return nil
}

// Evidence says where one part of a resolved layout came from.
type Evidence struct {
	Source LayoutSource
	// Slot and Off name the header a FromHeaders part was read from (or,
	// with Derived, computed from): "AIV/0" at file offset 0x9610.
	Slot string
	Off  int64
	// Derived: the part was computed from where the header sits, not read
	// from it (the capacity of a region whose headers are all zero, from
	// where the next region's header is).
	Derived bool
}

// Resolved is a capture's layout and how it was found.
type Resolved struct {
	Layout abi.Layout
	// Source is where the capacities come from, as a whole: FromHost when
	// given, FromPlan when the host plan's were used, else FromHeaders.
	Source LayoutSource
	// CubeSlotsFrom says what fixed the cube slot count.
	CubeSlotsFrom Evidence
	// CapacitiesFrom says where each region's capacity came from, in
	// abi.Regions() order.
	CapacitiesFrom []Evidence
	// How says it in a short phrase for a summary line: "found: 32 cube
	// slots from the AIV/0 header at @0x9610".
	How string
	// Hint is what to do when the layout is wrong; "" when nothing
	// suggests it is (the headers agree with it, or it was given).
	Hint string
	// Missing is how many bytes of the layout the buffer lacks: not 0
	// only for a Request.Partial resolution of a truncated capture.
	Missing uint64
}

// Resolve finds the layout of c under the request: a given layout
// (CubeSlots and Capacities) is used as given once the headers do not
// contradict it; otherwise the missing parts are found by the layout
// search (finder.search, whose doc comment states its rules), with the
// host plan standing in where the headers state nothing and choosing
// among layouts that fit equally.
//
// A request that makes no layout is a *RequestError. A capture whose
// layout cannot be resolved is a *Problem: short-buffer, bad-capacity,
// truncated (only when the headers themselves describe a longer buffer),
// layout-mismatch (the request contradicts the headers; both values are
// named), no-layout or ambiguous-layout (with the candidates).
func (c *Capture) Resolve(req Request) (*Resolved, error) {
	if err := req.Check(); err != nil {
		return nil, err
	}
	f := &finder{c: c, size: uint64(c.size)}
	if p := f.shortBuffer(max(req.CubeSlots, abi.MinCubeSlots)); p != nil {
		return nil, p
	}
	if req.CubeSlots == 0 && req.Capacities == nil {
		return f.pick(f.search(0, nil), req)
	}
	// The headers' own layout, to name when the request contradicts it.
	own := f.search(0, nil)
	if fit := own.perfect(); len(fit) == 1 && !req.allows(fit[0]) {
		return nil, f.mismatch(req, fit[0])
	}
	if req.CubeSlots != 0 && req.Capacities != nil {
		return f.given(req, own)
	}
	return f.pick(f.search(req.CubeSlots, req.Capacities), req)
}

// allows reports whether the candidate has the request's given values.
func (r Request) allows(cd *candidate) bool {
	return (r.CubeSlots == 0 || r.CubeSlots == cd.cube) && (r.Capacities == nil || *r.Capacities == cd.caps)
}

// given resolves a request that gives the whole layout.
func (f *finder) given(req Request, own search) (*Resolved, error) {
	l, _ := abi.NewLayout(req.CubeSlots, *req.Capacities) // checked by req.Check
	from := make([]Evidence, len(regions))
	for i := range from {
		from[i] = Evidence{Source: FromHost}
	}
	res := &Resolved{Layout: l, Source: FromHost, CubeSlotsFrom: Evidence{Source: FromHost}, CapacitiesFrom: from,
		How: "given" + req.givenNote()}
	if l.Size() <= f.size {
		return res, nil
	}
	// Too long for the buffer: truncated only when the headers say so
	// (or, for a partial decode, say nothing of a layout).
	if req.Partial && len(own.cands) == 0 {
		res.Missing = l.Size() - f.size
		return res, nil
	}
	for _, cd := range own.cands {
		if cd.cube == l.CubeSlots && cd.caps == l.Capacities {
			if req.Partial {
				res.Missing = l.Size() - f.size
				return res, nil
			}
			return nil, f.truncated(l.Size(), "the layout given"+req.givenNote()+", which its headers declare too, "+paren(l))
		}
	}
	msg := fmt.Sprintf("the layout given%s %s needs %d bytes, the buffer has %d", req.givenNote(), paren(l), l.Size(), f.size)
	if len(own.cands) == 1 {
		msg += "; " + f.saysVersus(req, own.cands[0])
	} else {
		msg += "; its headers do not declare that layout"
	}
	return nil, &Problem{File: f.c.Name, Code: CodeLayoutMismatch, Off: f.c.Base, Record: -1, Msg: msg,
		Hint: "check that the capture and the layout come from the same run"}
}

// pick chooses the layout among the search's candidates, or says why it
// cannot.
func (f *finder) pick(s search, req Request) (*Resolved, error) {
	plan := req.Plan
	fit := s.perfect()
	switch {
	case len(fit) == 1:
		return f.resolved(fit[0], req, ""), nil
	case len(fit) > 1:
		if cd := s.planned(plan, fit); cd != nil {
			return f.resolved(cd, req, fmt.Sprintf("; host plan %s picks it among %d layouts that fit", plan.Name, len(fit))), nil
		}
		return nil, f.ambiguous(fit, req)
	}
	switch {
	case len(s.cands) == 1:
		// The only layout the headers support, though some disagree with
		// it: the scan reports each one that does, or the buffer is short.
		cd := s.cands[0]
		if cd.size > f.size {
			if req.Partial {
				return f.partial(cd, req, ""), nil
			}
			return nil, f.truncated(cd.size, "the layout its headers declare "+paren(cd.layout))
		}
		return f.resolved(cd, req, ""), nil
	case len(s.cands) > 1:
		if cd := s.planned(plan, s.cands); cd != nil {
			// As for the one candidate: a layout the buffer is too short
			// for is a truncated capture, never a layout to scan.
			note := fmt.Sprintf("; host plan %s picks it among %d candidates", plan.Name, len(s.cands))
			if cd.size > f.size {
				if req.Partial {
					return f.partial(cd, req, note), nil
				}
				return nil, f.truncated(cd.size, fmt.Sprintf("the layout host plan %s picks among the %d its headers support %s", plan.Name, len(s.cands), paren(cd.layout)))
			}
			return f.resolved(cd, req, note), nil
		}
		return nil, f.ambiguous(s.cands, req)
	}
	if p := s.onlyProblem(); p != nil {
		return nil, p
	}
	if plan != nil {
		if l, err := f.planLayout(req); err == nil {
			return l, nil
		}
	}
	if s.allZero {
		return nil, &Problem{File: f.c.Name, Code: CodeNoRecords, Off: f.c.Base, Record: -1,
			Msg: "capture contains no records: every byte of it is zero; check that the profiler was active and the profiled operator completed"}
	}
	return nil, f.noLayout(s, req)
}

// planLayout is the host plan's layout, with the request's given parts.
func (f *finder) planLayout(req Request) (*Resolved, error) {
	p := req.Plan
	cube, caps := p.CubeSlots, p.Capacities
	cubeFrom, capsFrom := Evidence{Source: FromPlan}, Evidence{Source: FromPlan}
	if req.CubeSlots != 0 {
		cube, cubeFrom = req.CubeSlots, Evidence{Source: FromHost}
	}
	if req.Capacities != nil {
		caps, capsFrom = *req.Capacities, Evidence{Source: FromHost}
	}
	l, err := abi.NewLayout(cube, caps)
	if err != nil {
		return nil, err
	}
	if l.Size() > f.size {
		return nil, errors.New("too long")
	}
	from := make([]Evidence, len(regions))
	for i := range from {
		from[i] = capsFrom
	}
	return &Resolved{Layout: l, Source: capsFrom.Source, CubeSlotsFrom: cubeFrom, CapacitiesFrom: from,
		How:  fmt.Sprintf("from host plan %s: the headers state no layout", p.Name),
		Hint: fmt.Sprintf("the headers state no layout, so host plan %s's was used; if it is wrong, give the cube slot count and capacities the capture was written with", p.Name)}, nil
}

// partial is resolved for a candidate longer than the buffer, which a
// Request.Partial takes as the layout of a truncated capture.
func (f *finder) partial(cd *candidate, req Request, note string) *Resolved {
	res := f.resolved(cd, req, note)
	res.Missing = cd.size - f.size
	res.How += fmt.Sprintf("; the file is truncated, %d bytes short of it", res.Missing)
	return res
}

// resolved turns a candidate into the result, with how it was found.
func (f *finder) resolved(cd *candidate, req Request, note string) *Resolved {
	res := &Resolved{Layout: cd.layout, Source: FromHeaders, CubeSlotsFrom: cd.cubeFrom, CapacitiesFrom: cd.from}
	if req.Capacities != nil {
		res.Source = FromHost
	}
	res.How = f.how(cd, req) + note
	return res
}

// how renders how a candidate was found: "found: 32 cube slots from the
// AIV/0 header at @0x9610".
func (f *finder) how(cd *candidate, req Request) string {
	// strconv and concatenation, not fmt: this runs for every capture
	// decoded, and fmt's printer pool makes allocation counts jitter
	// under the race detector.
	num := func(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
	at := func(off int64) string { return "@0x" + strconv.FormatInt(off, 16) }
	var parts []string
	switch e := cd.cubeFrom; e.Source {
	case FromHost:
		parts = append(parts, num(cd.cube)+" cube slots given"+req.givenNote())
	case FromSize:
		parts = append(parts, "found: "+num(cd.cube)+" cube slots from the file size")
	default:
		parts = append(parts, "found: "+num(cd.cube)+" cube slots from the "+e.Slot+" header at "+at(e.Off))
	}
	if req.Capacities != nil {
		parts = append(parts, "capacities given"+req.givenNote())
	} else {
		for i, e := range cd.from {
			t := regions[i].CoreType
			capacity := func() string { return t.String() + " capacity " + num(cd.caps.For(t)) }
			first := abi.Slot{CoreType: t}.String()
			switch {
			case e.Source == FromSize:
				parts = append(parts, capacity()+" from the file size")
			case e.Derived:
				parts = append(parts, capacity()+" from where the "+e.Slot+" header sits (every "+t.String()+" header is zero)")
			case e.Slot != first:
				state := "is unused"
				if h := f.header(cd.layout.SlotOffset(t, 0)); !h.IsZero() {
					state = "has a damaged header"
				}
				parts = append(parts, capacity()+" from the "+e.Slot+" header at "+at(e.Off)+" ("+first+" "+state+")")
			}
		}
	}
	return strings.Join(parts, ", ")
}

// mismatch is the problem of a request the headers contradict: the
// headers found a layout (fit) that differs from the given values.
func (f *finder) mismatch(req Request, fit *candidate) *Problem {
	off := f.c.Base
	if req.CubeSlots != 0 && req.CubeSlots != fit.cube && fit.cubeFrom.Source == FromHeaders {
		off = fit.cubeFrom.Off
	} else if req.Capacities != nil {
		for i, reg := range regions {
			if e := fit.from[i]; req.Capacities.For(reg.CoreType) != fit.caps.For(reg.CoreType) && e.Source == FromHeaders {
				off = e.Off
				if !e.Derived {
					off += abi.CoreHeaderRecordCapacityOffset
				}
				break
			}
		}
	}
	return &Problem{File: f.c.Name, Code: CodeLayoutMismatch, Off: off, Record: -1,
		Msg:  f.saysVersus(req, fit),
		Hint: "the capture was written with another layout than the one given; give none to decode it as written (" + f.how(fit, Request{}) + ")"}
}

// saysVersus names each given value the headers contradict, with both
// values: "the headers of AIC/0 and AIV/0 say capacities 64 and 64; the
// flags say 80 and 80".
func (f *finder) saysVersus(req Request, cd *candidate) string {
	var parts []string
	if req.CubeSlots != 0 && req.CubeSlots != cd.cube {
		what := "the file size says"
		if e := cd.cubeFrom; e.Source == FromHeaders {
			what = fmt.Sprintf("the %s header at @%#x says", e.Slot, e.Off)
		}
		parts = append(parts, fmt.Sprintf("%s %d cube slots; %s say %d", what, cd.cube, req.givenBy(), req.CubeSlots))
	}
	if req.Capacities != nil && *req.Capacities != cd.caps {
		var slots, said, given []string
		for i, reg := range regions {
			e := cd.from[i]
			switch {
			case e.Source == FromHeaders && !e.Derived:
				slots = append(slots, e.Slot)
			case e.Source == FromHeaders:
				slots = append(slots, "where "+e.Slot+" sits")
			default:
				slots = append(slots, "the file size")
			}
			said = append(said, fmt.Sprint(cd.caps.For(reg.CoreType)))
			given = append(given, fmt.Sprint(req.Capacities.For(reg.CoreType)))
		}
		noun := "capacity"
		if len(regions) > 1 {
			noun = "capacities"
		}
		parts = append(parts, fmt.Sprintf("the headers of %s say %s %s; %s say %s", strings.Join(slots, " and "), noun,
			strings.Join(said, " and "), req.givenBy(), strings.Join(given, " and ")))
	}
	if len(parts) == 0 {
		return "the headers declare " + paren(cd.layout)
	}
	return strings.Join(parts, "; ")
}

// ambiguous is the problem of several layouts that fit.
func (f *finder) ambiguous(cands []*candidate, req Request) *Problem {
	var b strings.Builder
	fmt.Fprintf(&b, "%d layouts fit the headers and the file size, and nothing tells them apart: ", len(cands))
	for i, cd := range cands {
		if i > 0 {
			b.WriteString("; ")
		}
		if i == maxListed {
			fmt.Fprintf(&b, "and %d more", len(cands)-i)
			break
		}
		b.WriteString(cd.describe(f, req))
	}
	return &Problem{File: f.c.Name, Code: CodeAmbiguousLayout, Off: f.c.Base, Record: -1, Msg: b.String(),
		Hint: "give the cube slot count and capacities the host planned"}
}

// noLayout is the problem of a search that found no candidate.
func (f *finder) noLayout(s search, req Request) *Problem {
	var b strings.Builder
	b.WriteString("no layout fits the headers and the file size")
	if s.tried > 0 {
		fmt.Fprintf(&b, " (cube slot counts %d to %d tried)", s.first, s.first+uint32(s.tried)-1)
	}
	for i, r := range s.rejects {
		if i == maxListed {
			fmt.Fprintf(&b, "; and %d more", len(s.rejects)-i+s.moreRejects)
			break
		}
		if r.last > r.cube {
			fmt.Fprintf(&b, "; %d to %d cube slots: %s", r.cube, r.last, r.r.String(f))
		} else {
			fmt.Fprintf(&b, "; %d cube slots: %s", r.cube, r.r.String(f))
		}
	}
	return &Problem{File: f.c.Name, Code: CodeNoLayout, Off: f.c.Base, Record: -1, Msg: b.String(),
		Hint: "give the cube slot count and capacities the host planned"}
}

// maxListed bounds the candidates and rejections a message lists.
const maxListed = 4

func (f *finder) truncated(need uint64, why string) *Problem {
	return &Problem{File: f.c.Name, Code: CodeTruncated, Off: f.c.Base + int64(f.size), Record: -1,
		Msg: fmt.Sprintf("capture is truncated: %s: %d bytes needed, %d present (%d missing)", why, need, f.size, need-f.size)}
}

// shortBuffer is the problem of a buffer too short for the headers of
// cube cube slots, nil when it is not.
func (f *finder) shortBuffer(cube uint32) *Problem {
	headers, _ := abi.NewLayout(cube, abi.Capacities{})
	if need := headers.Size(); f.size < need {
		return &Problem{File: f.c.Name, Code: CodeShortBuffer, Off: f.c.Base + int64(f.size), Record: -1,
			Msg: fmt.Sprintf("buffer has %d bytes, fewer than the %d core headers of %d cube slots need (%d)", f.size, headers.NumSlots(), cube, need)}
	}
	return nil
}

// paren renders a layout as "(24 cube slots, AIC capacity 16, AIV capacity 16)".
func paren(l abi.Layout) string { return "(" + l.String() + ")" }

// BytesAfterLayout is the bytes-after-layout warning of a buffer longer
// than the resolved layout res (validate's finding, and decode's warning,
// in the same words); nil when the buffer ends with the layout.
func (c *Capture) BytesAfterLayout(res *Resolved) *Problem {
	l := res.Layout
	if uint64(c.Size()) <= l.Size() {
		return nil
	}
	return &Problem{File: c.Name, Severity: Warning, Code: CodeBytesAfterLayout, Off: c.Base + int64(l.Size()), Record: -1,
		Value:    fmt.Sprintf("%d extra bytes", uint64(c.Size())-l.Size()),
		Expected: fmt.Sprintf("the buffer to end with the layout's %d bytes (%s); decode ignores the extra", l.Size(), l),
		Hint:     res.Hint}
}
