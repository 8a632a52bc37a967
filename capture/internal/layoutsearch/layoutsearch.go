// Package layoutsearch finds a capture's layout from its core headers and
// its size: the layout search of cycleabi, behind capture.Resolve.
// docs/layout.md states its rules in the order they are applied, by
// function name; gen/py's find_layout mirrors them (tests/agreement holds
// it to this search, and both run the cases of capture/testdata/layout).
//
// The files read in the order a resolution's data flows through them,
// and each calls only its own functions and those of the files before it
// (tests/imports' TestLayoutSearchReadsOneWay):
//
//   - evidence.go: what the buffer says — its headers, read once each,
//     and the zero scan that finds the first live header after an unused
//     one;
//   - search.go: what the search finds — the candidates, the counts ruled
//     out, the state of a walk;
//   - rules.go: the rules, and the pass (search) that tries each cube slot
//     count and applies them to the evidence, region by region, to make
//     the candidate layouts;
//   - decide.go: the decision — the one candidate that fits, the host
//     plan's among several, the given layout, or why there is none — as
//     data (a decision), wording nothing;
//   - words.go: the wording: the decision turned into the Result or the
//     Problem, and every rejection;
//   - this file: Resolve, which decides and words the decision.
//
// The package knows nothing of package capture: it reads a Buffer and
// answers a Request with a Result or a Problem, which capture turns into
// its Resolved and *Problem.
package layoutsearch

import "github.com/megakernel/cycleabi/gen/go/abi"

// regions are the schema's slot regions in buffer order; the search
// iterates them and never names one.
var regions = abi.Regions()

// MaxCubeSlots is the largest cube slot count the search tries when the
// request does not give one.
const MaxCubeSlots = 4096

// Buffer is the capture the search reads.
type Buffer struct {
	// Size is the buffer's length in bytes.
	Size uint64
	// Base is the file offset of the buffer's first byte: every offset a
	// message names is a file offset.
	Base int64
	// View returns the n bytes at buffer offset off, inside the buffer: a
	// slice of the buffer, or read into buf (grown if needed).
	View func(off int64, n int, buf []byte) ([]byte, error)
}

// Source says where a part of a layout came from.
type Source string

// The sources, as capture.LayoutSource names them.
const (
	FromHeaders Source = "headers"
	FromSize    Source = "size"
	FromHost    Source = "host"
	FromPlan    Source = "plan"
)

// Evidence says where one part of a resolved layout came from
// (capture.Evidence).
type Evidence struct {
	Source  Source
	Slot    string
	Off     int64
	Derived bool
}

// Plan is the host plan's layout, with the name messages give it.
type Plan struct {
	Name       string
	CubeSlots  uint32
	Capacities abi.Capacities
}

// Request is what the caller knows of the layout (capture.Request,
// already checked: its values make a layout).
type Request struct {
	CubeSlots  uint32
	Capacities *abi.Capacities
	Plan       *Plan
	GivenBy    string
	Partial    bool
}

// Result is the layout found and how (capture.Resolved).
type Result struct {
	Layout         abi.Layout
	Source         Source
	CubeSlotsFrom  Evidence
	CapacitiesFrom []Evidence
	How            string
	Hint           string
	Missing        uint64
}

// Code is the code of a Problem, as capture.Code spells it.
type Code string

// The codes of the problems the search gives.
const (
	CodeTruncated       Code = "truncated"
	CodeShortBuffer     Code = "short-buffer"
	CodeBadCapacity     Code = "bad-capacity"
	CodeNoRecords       Code = "no-records"
	CodeLayoutMismatch  Code = "layout-mismatch"
	CodeNoLayout        Code = "no-layout"
	CodeAmbiguousLayout Code = "ambiguous-layout"
)

// Problem is why no layout resolves: a capture.Problem of the buffer, with
// no record.
type Problem struct {
	Code Code
	// Off is a file offset.
	Off      int64
	Slot     string
	Value    string
	Expected string
	Msg      string
	Hint     string
}

// Resolve finds the layout of the buffer under the request: a given layout
// (CubeSlots and Capacities) is used as given once the headers do not
// contradict it; otherwise the search finds the missing parts, with the
// host plan standing in where the headers state nothing and choosing
// among layouts that fit equally.
//
// A capture whose layout cannot be resolved is a Problem: short-buffer,
// bad-capacity, truncated (only when the headers themselves describe a
// longer buffer), layout-mismatch (the request contradicts the headers;
// both values are named), no-records, no-layout or ambiguous-layout (with
// the candidates).
func Resolve(b Buffer, req Request) (*Result, *Problem) {
	f := &finder{buf: b, size: b.Size}
	return f.word(f.decide(req), req)
}
