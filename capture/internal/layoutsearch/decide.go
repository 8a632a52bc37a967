package layoutsearch

import (
	"fmt"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// The decision: from the request and the candidates the search found to
// the layout, or to the problem that says why there is none. A given
// layout (cube slot count and capacities) is used as given once the
// headers do not contradict it; otherwise the one candidate that fits is
// the layout, the host plan picks among several, and stands in when the
// headers state nothing. The messages are words.go's.

// decide is Resolve.
func (f *finder) decide(req Request) (*Result, *Problem) {
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

// given resolves a request that gives the whole layout; own is what the
// headers alone support.
func (f *finder) given(req Request, own search) (*Result, *Problem) {
	l, _ := abi.NewLayout(req.CubeSlots, *req.Capacities) // checked by the caller
	from := make([]Evidence, len(regions))
	for i := range from {
		from[i] = Evidence{Source: FromHost}
	}
	res := &Result{Layout: l, Source: FromHost, CubeSlotsFrom: Evidence{Source: FromHost}, CapacitiesFrom: from,
		How: "given" + req.givenNote()}
	if l.Size() <= f.size {
		return res, nil
	}
	// Too long for the buffer: truncated only when the headers say so
	// (or, for a partial decode, say nothing of a layout).
	declared := len(own.cands) == 0 && req.Partial
	for _, cd := range own.cands {
		declared = declared || cd.cube == l.CubeSlots && cd.caps == l.Capacities
	}
	switch {
	case declared && req.Partial:
		res.Missing = l.Size() - f.size
		return res, nil
	case declared:
		return nil, f.truncated(l.Size(), "the layout given"+req.givenNote()+", which its headers declare too, "+paren(l))
	}
	return nil, f.givenTooLong(req, l, own)
}

// pick chooses the layout among the search's candidates, or says why it
// cannot: the candidates that fit first, then those that come close, then
// the host plan or the reason nothing was found.
func (f *finder) pick(s search, req Request) (*Result, *Problem) {
	if fit := s.perfect(); len(fit) > 0 {
		return f.pickFit(fit, req)
	}
	if len(s.cands) > 0 {
		return f.pickClose(s.cands, req)
	}
	if p := s.onlyProblem(); p != nil {
		return nil, p
	}
	if req.Plan != nil {
		if res, ok := f.planLayout(req); ok {
			return res, nil
		}
	}
	if s.allZero {
		return nil, f.noRecords()
	}
	return nil, f.noLayout(s, req)
}

// pickFit chooses among the candidates that fit: the only one, or the host
// plan's among several.
func (f *finder) pickFit(fit []*candidate, req Request) (*Result, *Problem) {
	if len(fit) == 1 {
		return f.resolved(fit[0], req, ""), nil
	}
	if cd := planned(req.Plan, fit); cd != nil {
		return f.resolved(cd, req, fmt.Sprintf("; host plan %s picks it among %d layouts that fit", req.Plan.Name, len(fit))), nil
	}
	return nil, f.ambiguous(fit, true, req)
}

// pickClose chooses among candidates none of which fits: the only layout
// the headers support, though some disagree with it (the scan reports each
// one that does) or the buffer is short, or the host plan's among several.
// A layout the buffer is too short for is a truncated capture, never a
// layout to scan.
func (f *finder) pickClose(cands []*candidate, req Request) (*Result, *Problem) {
	cd, note := cands[0], ""
	if len(cands) > 1 {
		if cd = planned(req.Plan, cands); cd == nil {
			return nil, f.ambiguous(cands, false, req)
		}
		note = fmt.Sprintf("; host plan %s picks it among %d candidates", req.Plan.Name, len(cands))
	}
	switch {
	case cd.size <= f.size:
		return f.resolved(cd, req, note), nil
	case req.Partial:
		return f.partial(cd, req, note), nil
	}
	why := "the layout its headers declare " + paren(cd.layout)
	if len(cands) > 1 {
		why = fmt.Sprintf("the layout host plan %s picks among the %d its headers support %s", req.Plan.Name, len(cands), paren(cd.layout))
	}
	return nil, f.truncated(cd.size, why)
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
func planned(p *Plan, cands []*candidate) *candidate {
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

// planLayout is the host plan's layout, with the request's given parts;
// false when it makes no layout or the buffer is too short for it.
func (f *finder) planLayout(req Request) (*Result, bool) {
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
	if err != nil || l.Size() > f.size {
		return nil, false
	}
	from := make([]Evidence, len(regions))
	for i := range from {
		from[i] = capsFrom
	}
	return &Result{Layout: l, Source: capsFrom.Source, CubeSlotsFrom: cubeFrom, CapacitiesFrom: from,
		How:  fmt.Sprintf("from host plan %s: the headers state no layout", p.Name),
		Hint: fmt.Sprintf("the headers state no layout, so host plan %s's was used; if it is wrong, give the cube slot count and capacities the capture was written with", p.Name)}, true
}

// partial is resolved for a candidate longer than the buffer, which a
// Request.Partial takes as the layout of a truncated capture.
func (f *finder) partial(cd *candidate, req Request, note string) *Result {
	res := f.resolved(cd, req, note)
	res.Missing = cd.size - f.size
	res.How += fmt.Sprintf("; the file is truncated, %d bytes short of it", res.Missing)
	return res
}

// resolved turns a candidate into the result, with how it was found.
func (f *finder) resolved(cd *candidate, req Request, note string) *Result {
	res := &Result{Layout: cd.layout, Source: FromHeaders, CubeSlotsFrom: cd.cubeFrom, CapacitiesFrom: cd.from}
	if req.Capacities != nil {
		res.Source = FromHost
	}
	res.How = f.how(cd, req) + note
	return res
}
