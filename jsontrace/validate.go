package jsontrace

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/validate"
)

// Validate checks the rebuilt capture as validate checks a capture (o's
// layout request is replaced by the rebuilt layout) and points every
// finding at the trace: the byte offset of the event of the record it is
// about, or of the core's first event for a finding about a core.
// Reading the trace already refused what decode would (a record ending
// before it starts, more records than the capacity); what is left are
// warnings, such as overlapping records or unknown descriptors.
func (s *Source) Validate(o validate.Options) (*validate.Result, error) {
	req := s.Request()
	req.Plan = o.Layout.Plan
	o.Layout = req
	res, err := validate.Check(s.capture, o)
	if err != nil {
		return nil, err
	}
	res.File = s.Name
	res.Dropped = s.Dropped
	for i := range res.Findings {
		p := &res.Findings[i].Problem
		p.File = s.Name
		if p.Record >= 0 {
			if off, ok := s.EventOffset(p.Off); ok {
				p.Off = off
				continue
			}
		}
		p.Off = 0
		for _, c := range s.cores {
			if c.String() == p.Slot {
				p.Off = c.first.Offset
			}
		}
	}
	// Record order and event order mostly agree; the findings go by
	// their new offsets.
	slices.SortStableFunc(res.Findings, func(a, b validate.Finding) int { return cmp.Compare(a.Off, b.Off) })
	if s.Dropped > 0 {
		// The capture's own dropped-total warning, without the per-core
		// counts a trace does not hold.
		res.Findings = append([]validate.Finding{{Problem: capture.Problem{File: s.Name, Severity: capture.Warning,
			Code: validate.CodeDroppedTotal, Off: 0, Record: -1,
			Value:    fmt.Sprintf("%d records dropped (the trace's droppedRecordCount; which cores dropped them is not in a trace)", s.Dropped),
			Expected: "0; plan larger capacities"}}}, res.Findings...)
		res.Counts = append(res.Counts, validate.CodeCount{Code: validate.CodeDroppedTotal, Severity: capture.Warning, Count: 1, Kept: 1})
	}
	if s.cutNames > 0 {
		// The names cut to the cap on a name, at their events.
		var cut []validate.Finding
		for _, c := range s.cuts {
			cut = append(cut, validate.Finding{Problem: capture.Problem{File: s.Name, Severity: capture.Warning,
				Code: validate.CodeNameCapped, Off: c.at.Offset, Record: -1, Value: c.msg, Expected: "a name of at most 4,096 bytes"}})
		}
		if m := o.MaxFindings; m > 0 && len(cut) > m {
			cut = cut[:m]
		}
		res.Findings = append(res.Findings, cut...)
		slices.SortStableFunc(res.Findings, func(a, b validate.Finding) int { return cmp.Compare(a.Off, b.Off) })
		res.Counts = append(res.Counts, validate.CodeCount{Code: validate.CodeNameCapped, Severity: capture.Warning, Count: s.cutNames, Kept: len(cut)})
	}
	if s.trace != nil && len(s.trace.Sources) > 0 && s.trace.Sources[0] == s {
		// What the metadata lists and no event holds, said once, on the
		// trace's first capture.
		var missing []validate.Finding
		for _, m := range s.trace.Missing {
			missing = append(missing, validate.Finding{Problem: capture.Problem{File: s.Name, Severity: capture.Warning,
				Code: validate.CodeMissingCapture, Off: s.trace.metaAt.Offset, Record: -1, Value: m, Expected: "its events"}})
		}
		if len(missing) > 0 {
			res.Findings = append(missing, res.Findings...)
			res.Counts = append(res.Counts, validate.CodeCount{Code: validate.CodeMissingCapture, Severity: capture.Warning, Count: len(missing), Kept: len(missing)})
		}
	}
	return res, nil
}
