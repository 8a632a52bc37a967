package capture

import (
	"github.com/megakernel/cycleabi/capture/internal/layoutsearch"
)

// MaxFoundCubeSlots is the largest cube slot count the search tries when
// the request does not give one. Captures with more cube slots decode when
// the count is given.
const MaxFoundCubeSlots = layoutsearch.MaxCubeSlots

// Resolve finds the layout of c under the request: a given layout
// (CubeSlots and Capacities) is used as given once the headers do not
// contradict it; otherwise the missing parts are found by the layout
// search (package capture/internal/layoutsearch: the evidence of the
// headers, the rules, the decision, the wording), with the host plan
// standing in where the headers state nothing and choosing among layouts
// that fit equally.
//
// A request that makes no layout is a *RequestError. A capture whose
// layout cannot be resolved is a *Problem: short-buffer, bad-capacity,
// truncated (only when the headers themselves describe a longer buffer),
// layout-mismatch (the request contradicts the headers; both values are
// named), no-records, no-layout or ambiguous-layout (with the candidates).
func (c *Capture) Resolve(req Request) (*Resolved, error) {
	if err := req.Check(); err != nil {
		return nil, err
	}
	q := layoutsearch.Request{CubeSlots: req.CubeSlots, Capacities: req.Capacities, GivenBy: req.GivenBy, Partial: req.Partial}
	if p := req.Plan; p != nil {
		q.Plan = &layoutsearch.Plan{Name: p.Name, CubeSlots: p.CubeSlots, Capacities: p.Capacities}
	}
	res, p := layoutsearch.Resolve(layoutsearch.Buffer{Size: uint64(c.size), Base: c.Base, View: c.view}, q)
	if p != nil {
		return nil, &Problem{File: c.Name, Code: Code(p.Code), Off: p.Off, Slot: p.Slot, Record: -1,
			Value: p.Value, Expected: p.Expected, Msg: p.Msg, Hint: p.Hint}
	}
	from := make([]Evidence, len(res.CapacitiesFrom))
	for i, e := range res.CapacitiesFrom {
		from[i] = evidence(e)
	}
	return &Resolved{Layout: res.Layout, Source: LayoutSource(res.Source), CubeSlotsFrom: evidence(res.CubeSlotsFrom),
		CapacitiesFrom: from, How: res.How, Hint: res.Hint, Missing: res.Missing}, nil
}

// evidence is the Evidence of the search's.
func evidence(e layoutsearch.Evidence) Evidence {
	return Evidence{Source: LayoutSource(e.Source), Slot: e.Slot, Off: e.Off, Derived: e.Derived}
}
