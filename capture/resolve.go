package capture

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// Resolve finds the layout of c under the request: a given layout
// (CubeSlots and Capacities) is used as given once the headers do not
// contradict it; otherwise the missing parts are found by the layout
// search (finder.search in find.go, applying the rules of rules.go), with
// the host plan standing in where the headers state nothing and choosing
// among layouts that fit equally. This file holds the whole resolution
// from the request to the result or problem; the search never sees the
// request, only the cube slot count and capacities it gives.
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
		return nil, f.ambiguous(fit, true, req)
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
		return nil, f.ambiguous(s.cands, false, req)
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

// perfect returns the candidates that fit: every header agrees, and the
// buffer holds the layout.
func (s search) perfect() []*candidate {
	var fit []*candidate
	for _, cd := range s.cands {
		if cd.fits(s.size) {
			fit = append(fit, cd)
		}
	}
	return fit
}

// planned returns the one of cands that is the host plan's layout, if any.
func (s search) planned(p *Plan, cands []*candidate) *candidate {
	if p == nil {
		return nil
	}
	for _, cd := range cands {
		if cd.cube == p.CubeSlots && cd.caps == p.Capacities {
			return cd
		}
	}
	return nil
}

// onlyProblem returns the bad-capacity problem when it is the one thing
// that stopped every cube slot count the headers support.
func (s search) onlyProblem() *Problem {
	if len(s.problems) == 1 {
		return s.problems[0]
	}
	return nil
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

// ambiguous is the problem of several candidate layouts, which either all
// fit the headers and the file size or (fit false) all miss somewhere.
func (f *finder) ambiguous(cands []*candidate, fit bool, req Request) *Problem {
	var b strings.Builder
	if fit {
		fmt.Fprintf(&b, "%d layouts fit the headers and the file size", len(cands))
	} else {
		fmt.Fprintf(&b, "no layout fits the headers and the file size; %d come close", len(cands))
	}
	b.WriteString(", and nothing tells them apart: ")
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

// describe renders a candidate and what it would need, for a message
// listing several.
func (cd *candidate) describe(f *finder, req Request) string {
	s := fmt.Sprintf("%s, %s", paren(cd.layout), f.how(cd, req))
	switch {
	case cd.mismatches > 0:
		s += fmt.Sprintf(": would need %s", cd.first)
		if cd.mismatches > 1 {
			s += fmt.Sprintf(" (and %d more headers to change)", cd.mismatches-1)
		}
	case cd.size > f.size:
		s += fmt.Sprintf(": would need %d more bytes", cd.size-f.size)
	}
	return s
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
