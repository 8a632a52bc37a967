package layoutsearch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// The wording: the decision turned into the Result, with how the layout
// was found, or into the Problem; and every rejection.

// word turns the decision into the result or the problem.
func (f *finder) word(d decision, req Request) (*Result, *Problem) {
	switch d.verdict {
	case vShortBuffer:
		return nil, f.shortBuffer(d.cube)
	case vMismatch:
		return nil, f.mismatch(req, d.cd)
	case vGiven:
		return f.givenLayout(d.l, d.missing, req), nil
	case vGivenDeclared:
		return nil, f.truncated(d.l.Size(), "the layout given"+req.givenNote()+", which its headers declare too, "+paren(d.l))
	case vGivenTooLong:
		return nil, f.givenTooLong(req, d.l, d.own)
	case vResolved:
		return f.resolved(d, req), nil
	case vTruncated:
		why := "the layout its headers declare " + paren(d.cd.layout)
		if d.among > 1 {
			why = fmt.Sprintf("the layout host plan %s picks among the %d its headers support %s", req.Plan.Name, d.among, paren(d.cd.layout))
		}
		return nil, f.truncated(d.cd.size, why)
	case vAmbiguous:
		return nil, f.ambiguous(d.cands, d.fit, req)
	case vProblem:
		return nil, d.problem
	case vPlan:
		return f.plan(d, req), nil
	case vNoRecords:
		return nil, f.noRecords()
	}
	return nil, f.noLayout(d.s)
}

// givenLayout is the result of a request that gives the whole layout l.
func (f *finder) givenLayout(l abi.Layout, missing uint64, req Request) *Result {
	from := make([]Evidence, len(regions))
	for i := range from {
		from[i] = Evidence{Source: FromHost}
	}
	return &Result{Layout: l, Source: FromHost, CubeSlotsFrom: Evidence{Source: FromHost}, CapacitiesFrom: from,
		How: "given" + req.givenNote(), Missing: missing}
}

// resolved is the result of a candidate, with how it was found, how the
// host plan picked it and, for a partial capture, how many bytes it lacks.
func (f *finder) resolved(d decision, req Request) *Result {
	cd := d.cd
	res := &Result{Layout: cd.layout, Source: FromHeaders, CubeSlotsFrom: cd.cubeFrom, CapacitiesFrom: cd.from}
	if req.Capacities != nil {
		res.Source = FromHost
	}
	res.How = f.how(cd, req)
	switch {
	case d.among > 0 && d.fit:
		res.How += fmt.Sprintf("; host plan %s picks it among %d layouts that fit", req.Plan.Name, d.among)
	case d.among > 0:
		res.How += fmt.Sprintf("; host plan %s picks it among %d candidates", req.Plan.Name, d.among)
	}
	if d.missing > 0 {
		res.Missing = d.missing
		res.How += fmt.Sprintf("; the file is truncated, %d bytes short of it", res.Missing)
	}
	return res
}

// plan is the result of the host plan's layout standing in.
func (f *finder) plan(d decision, req Request) *Result {
	from := make([]Evidence, len(regions))
	for i := range from {
		from[i] = d.capsFrom
	}
	name := req.Plan.Name
	return &Result{Layout: d.l, Source: d.capsFrom.Source, CubeSlotsFrom: d.cubeFrom, CapacitiesFrom: from,
		How:  fmt.Sprintf("from host plan %s: the headers state no layout", name),
		Hint: fmt.Sprintf("the headers state no layout, so host plan %s's was used; if it is wrong, give the cube slot count and capacities the capture was written with", name)}
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

// paren renders a layout as "(24 cube slots, AIC capacity 16, AIV capacity 16)".
func paren(l abi.Layout) string { return "(" + l.String() + ")" }

// how renders how a candidate was found: "found: 24 cube slots from the
// AIV/0 header at @0xc600" (examples/moe_layer.bin's).
func (f *finder) how(cd *candidate, req Request) string {
	parts := []string{howCube(cd, req)}
	if req.Capacities != nil {
		parts = append(parts, "capacities given"+req.givenNote())
	} else {
		parts = f.howCapacities(parts, cd)
	}
	return strings.Join(parts, ", ")
}

// strconv and concatenation, not fmt, in how: it runs for every capture
// decoded, and fmt's printer pool makes allocation counts jitter under the
// race detector.
func num(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
func at(off int64) string { return "@0x" + strconv.FormatInt(off, 16) }

// howCube says what fixed the cube slot count.
func howCube(cd *candidate, req Request) string {
	switch e := cd.cubeFrom; e.Source {
	case FromHost:
		return num(cd.cube) + " cube slots given" + req.givenNote()
	case FromSize:
		return "found: " + num(cd.cube) + " cube slots from the file size"
	default:
		return "found: " + num(cd.cube) + " cube slots from the " + e.Slot + " header at " + at(e.Off)
	}
}

// howCapacities appends to parts where each capacity came from that was
// not its region's slot-0 header.
func (f *finder) howCapacities(parts []string, cd *candidate) []string {
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
	return parts
}

// mismatch is the problem of a request the headers contradict: the
// headers found a layout (fit) that differs from the given values.
func (f *finder) mismatch(req Request, fit *candidate) *Problem {
	off := f.buf.Base
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
	return &Problem{Code: CodeLayoutMismatch, Off: off,
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
		parts = append(parts, capacitiesVersus(req, cd))
	}
	if len(parts) == 0 {
		return "the headers declare " + paren(cd.layout)
	}
	return strings.Join(parts, "; ")
}

// capacitiesVersus names the capacities the headers say and the ones given.
func capacitiesVersus(req Request, cd *candidate) string {
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
	return fmt.Sprintf("the headers of %s say %s %s; %s say %s", strings.Join(slots, " and "), noun,
		strings.Join(said, " and "), req.givenBy(), strings.Join(given, " and "))
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
	return &Problem{Code: CodeAmbiguousLayout, Off: f.buf.Base, Msg: b.String(),
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
func (f *finder) noLayout(s search) *Problem {
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
	return &Problem{Code: CodeNoLayout, Off: f.buf.Base, Msg: b.String(),
		Hint: "give the cube slot count and capacities the host planned"}
}

// maxListed bounds the candidates and rejections a message lists.
const maxListed = 4

func (f *finder) truncated(need uint64, why string) *Problem {
	return &Problem{Code: CodeTruncated, Off: f.buf.Base + int64(f.size),
		Msg: fmt.Sprintf("capture is truncated: %s: %d bytes needed, %d present (%d missing)", why, need, f.size, need-f.size)}
}

// shortBuffer is the problem of a buffer too short for the headers of
// cube cube slots.
func (f *finder) shortBuffer(cube uint32) *Problem {
	headers, _ := abi.NewLayout(cube, abi.Capacities{})
	return &Problem{Code: CodeShortBuffer, Off: f.buf.Base + int64(f.size),
		Msg: fmt.Sprintf("buffer has %d bytes, fewer than the %d core headers of %d cube slots need (%d)", f.size, headers.NumSlots(), cube, headers.Size())}
}

// givenTooLong is the problem of a given layout longer than the buffer
// whose headers do not declare it.
func (f *finder) givenTooLong(req Request, l abi.Layout, own search) *Problem {
	msg := fmt.Sprintf("the layout given%s %s needs %d bytes, the buffer has %d", req.givenNote(), paren(l), l.Size(), f.size)
	if len(own.cands) == 1 {
		msg += "; " + f.saysVersus(req, own.cands[0])
	} else {
		msg += "; its headers do not declare that layout"
	}
	return &Problem{Code: CodeLayoutMismatch, Off: f.buf.Base, Msg: msg,
		Hint: "check that the capture and the layout come from the same run"}
}

// noRecords is the problem of a buffer with no live header at all.
func (f *finder) noRecords() *Problem {
	return &Problem{Code: CodeNoRecords, Off: f.buf.Base,
		Msg: "capture contains no records: every byte of it is zero; check that the profiler was active and the profiled operator completed"}
}

// String words why a cube slot count was ruled out, for no-layout.
func (r *rejection) String(f *finder) string {
	first := abi.Slot{CoreType: regions[r.region].CoreType}.String()
	t := regions[r.region].CoreType
	switch r.kind {
	case rPastEnd:
		return fmt.Sprintf("%s would start past the end of the buffer", first)
	case rWrongStart:
		return fmt.Sprintf("the header where %s would start, @%#x, names %s", first, f.file(r.at), headerName(r.h))
	case rBudget:
		return fmt.Sprintf("%s is unused and no live header follows within %d MiB", first, zeroScanBudget>>20)
	case rZeroMiddle:
		return fmt.Sprintf("every header from %s on is zero, so the capacities of its region and the next cannot be read", first)
	case rNoSizeFit:
		return fmt.Sprintf("every %s header is zero and no %s capacity makes the layout end with the buffer", t, t)
	case rBadCapacity:
		return fmt.Sprintf("%s is unused and the first live header after it, @%#x, states capacity %d, which no layout has", first, f.file(r.at), r.h.RecordCapacity)
	case rMisplaced:
		return fmt.Sprintf("%s is unused and the first live header after it, @%#x, names %s, which this layout does not put there", first, f.file(r.at), headerName(r.h))
	case rNoDerived:
		return fmt.Sprintf("every %s header is zero, and no %s capacity puts %s at @%#x", t, t, headerName(r.h), f.file(r.at))
	case rOtherRegion:
		return fmt.Sprintf("%s is unused and the first live header after it, @%#x, names %s", first, f.file(r.at), headerName(r.h))
	case rNotLayout:
		return "its capacities make no layout"
	}
	return "no header past the first region is live, so nothing fixes the cube slot count"
}

// RejectionTexts words, for each reason the search rules a cube slot count
// out, the rejection of region 0 at offset 0 by a zero header, for
// capture's TestLayoutCases, which makes a pattern of each and requires a
// case to show it. Left out: rBudget, which takes a buffer of more than
// zeroScanBudget bytes; and rZeroMiddle and rNotLayout, which today's
// schema cannot show (with two regions, a buffer whose first header and
// every header after it are zero is no-records; every capacity the walk
// takes is checked, and no count it tries overflows a layout).
func RejectionTexts() []string {
	f := &finder{}
	var out []string
	for kind := rPastEnd; kind <= rUnpinned; kind++ {
		if kind == rBudget || kind == rZeroMiddle && len(regions) == 2 || kind == rNotLayout {
			continue
		}
		out = append(out, (&rejection{kind: kind}).String(f))
	}
	return out
}
