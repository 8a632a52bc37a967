package layoutsearch

import (
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// The decision: from the request and the candidates the search found to a
// decision, data that words.go turns into the Result or the Problem. A
// given layout (cube slot count and capacities) is used as given once the
// headers do not contradict it; otherwise the one candidate that fits is
// the layout, the host plan picks among several, and stands in when the
// headers state nothing. The decision runs the search; it words nothing.

// verdict is what a decision concludes.
type verdict uint8

// The verdicts, each with the fields of decision it sets.
const (
	_ verdict = iota
	// vShortBuffer: the buffer cannot hold the headers of cube cube slots.
	vShortBuffer
	// vMismatch: the request contradicts the one layout that fits the
	// headers, cd.
	vMismatch
	// vGiven: the given layout l, with missing bytes for a partial
	// capture whose headers declare it too.
	vGiven
	// vGivenDeclared: the given layout l is longer than the buffer, and
	// the headers declare it too: truncated.
	vGivenDeclared
	// vGivenTooLong: the given layout l is longer than the buffer, and
	// the headers (own) do not declare it.
	vGivenTooLong
	// vResolved: candidate cd, which the host plan picked among among
	// candidates (0: it was the only one) that fit (fit) or come close;
	// missing bytes for a partial capture.
	vResolved
	// vTruncated: candidate cd (picked as for vResolved) is longer than
	// the buffer.
	vTruncated
	// vAmbiguous: several candidates, cands, that all fit (fit) or all
	// come close, and nothing picks one.
	vAmbiguous
	// vProblem: problem, the bad capacity that alone stopped the search.
	vProblem
	// vPlan: the host plan's layout l stands in, its cube slot count from
	// cubeFrom and its capacities from capsFrom.
	vPlan
	// vNoRecords: no live header at all.
	vNoRecords
	// vNoLayout: the search s found no candidate.
	vNoLayout
)

// decision is what decide concludes: a verdict and the data its wording
// needs.
type decision struct {
	verdict            verdict
	cube               uint32
	l                  abi.Layout
	cd                 *candidate
	cands              []*candidate
	fit                bool
	among              int
	missing            uint64
	own, s             search
	problem            *Problem
	cubeFrom, capsFrom Evidence
}

// decide is Resolve's decision.
func (f *finder) decide(req Request) decision {
	if cube := max(req.CubeSlots, abi.MinCubeSlots); f.short(cube) {
		return decision{verdict: vShortBuffer, cube: cube}
	}
	if req.CubeSlots == 0 && req.Capacities == nil {
		return f.pick(f.search(0, nil), req)
	}
	// The headers' own layout, to name when the request contradicts it.
	own := f.search(0, nil)
	if fit := own.perfect(); len(fit) == 1 && !req.allows(fit[0]) {
		return decision{verdict: vMismatch, cd: fit[0]}
	}
	if req.CubeSlots != 0 && req.Capacities != nil {
		return f.given(req, own)
	}
	return f.pick(f.search(req.CubeSlots, req.Capacities), req)
}

// short reports whether the buffer is too short for the core headers of
// cube cube slots.
func (f *finder) short(cube uint32) bool {
	headers, _ := abi.NewLayout(cube, abi.Capacities{})
	return f.size < headers.Size()
}

// allows reports whether the candidate has the request's given values.
func (r Request) allows(cd *candidate) bool {
	return (r.CubeSlots == 0 || r.CubeSlots == cd.cube) && (r.Capacities == nil || *r.Capacities == cd.caps)
}

// given decides a request that gives the whole layout; own is what the
// headers alone support.
func (f *finder) given(req Request, own search) decision {
	l, _ := abi.NewLayout(req.CubeSlots, *req.Capacities) // checked by the caller
	if l.Size() <= f.size {
		return decision{verdict: vGiven, l: l}
	}
	// Too long for the buffer: truncated only when the headers say so
	// (or, for a partial decode, say nothing of a layout).
	declared := len(own.cands) == 0 && req.Partial
	for _, cd := range own.cands {
		declared = declared || cd.cube == l.CubeSlots && cd.caps == l.Capacities
	}
	switch {
	case declared && req.Partial:
		return decision{verdict: vGiven, l: l, missing: l.Size() - f.size}
	case declared:
		return decision{verdict: vGivenDeclared, l: l}
	}
	return decision{verdict: vGivenTooLong, l: l, own: own}
}

// pick chooses the layout among the search's candidates, or says why it
// cannot: the candidates that fit first, then those that come close, then
// the host plan or the reason nothing was found.
func (f *finder) pick(s search, req Request) decision {
	if fit := s.perfect(); len(fit) > 0 {
		return pickFit(fit, req)
	}
	if len(s.cands) > 0 {
		return f.pickClose(s.cands, req)
	}
	if p := s.onlyProblem(); p != nil {
		return decision{verdict: vProblem, problem: p}
	}
	if req.Plan != nil {
		if d, ok := f.planLayout(req); ok {
			return d
		}
	}
	if s.allZero {
		return decision{verdict: vNoRecords}
	}
	return decision{verdict: vNoLayout, s: s}
}

// pickFit chooses among the candidates that fit: the only one, or the host
// plan's among several.
func pickFit(fit []*candidate, req Request) decision {
	if len(fit) == 1 {
		return decision{verdict: vResolved, cd: fit[0]}
	}
	if cd := planned(req.Plan, fit); cd != nil {
		return decision{verdict: vResolved, cd: cd, among: len(fit), fit: true}
	}
	return decision{verdict: vAmbiguous, cands: fit, fit: true}
}

// pickClose chooses among candidates none of which fits: the only layout
// the headers support, though some disagree with it (the scan reports each
// one that does) or the buffer is short, or the host plan's among several.
// A layout the buffer is too short for is a truncated capture, never a
// layout to scan.
func (f *finder) pickClose(cands []*candidate, req Request) decision {
	d := decision{verdict: vResolved, cd: cands[0]}
	if len(cands) > 1 {
		if d.cd = planned(req.Plan, cands); d.cd == nil {
			return decision{verdict: vAmbiguous, cands: cands}
		}
		d.among = len(cands)
	}
	switch {
	case d.cd.size <= f.size:
	case req.Partial:
		d.missing = d.cd.size - f.size
	default:
		d.verdict = vTruncated
	}
	return d
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
func (f *finder) planLayout(req Request) (decision, bool) {
	p := req.Plan
	cube, caps := p.CubeSlots, p.Capacities
	d := decision{verdict: vPlan, cubeFrom: Evidence{Source: FromPlan}, capsFrom: Evidence{Source: FromPlan}}
	if req.CubeSlots != 0 {
		cube, d.cubeFrom = req.CubeSlots, Evidence{Source: FromHost}
	}
	if req.Capacities != nil {
		caps, d.capsFrom = *req.Capacities, Evidence{Source: FromHost}
	}
	l, err := abi.NewLayout(cube, caps)
	if err != nil || l.Size() > f.size {
		return decision{}, false
	}
	d.l = l
	return d, true
}
