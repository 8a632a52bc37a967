package validate

import (
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/capture"
)

// Finding is one thing validate found in a capture: an error (a condition
// under which decode fails, with capture's code) or a warning (a code of
// this package). It is a capture.Problem: the same fields, offsets,
// hints and rendering decode reports.
type Finding struct {
	capture.Problem

	seq uint64 // the order it was found in: ties on Off keep it
}

func fromProblem(p *capture.Problem) Finding { return Finding{Problem: *p} }

// Message is the description without severity, code and place, hint included.
func (f *Finding) Message() string {
	m := f.Problem.Message()
	if f.Hint != "" {
		m += "; hint: " + f.Hint
	}
	return m
}

// String renders the finding as one line of validate's text output:
//
//	error slot-identity AIV/17 @0x1a2c0: core_type=1 block_id=5, expected AIV/17
func (f *Finding) String() string {
	var b strings.Builder
	b.WriteString(f.Severity.String())
	b.WriteByte(' ')
	b.WriteString(string(f.Code))
	b.WriteByte(' ')
	b.WriteString(f.Where())
	b.WriteString(": ")
	b.WriteString(f.Message())
	return b.String()
}

// CodeCount is how often one code was found in a capture.
type CodeCount struct {
	Code     capture.Code
	Severity capture.Severity
	// Count is exact; Kept is how many of them Result.Findings holds
	// (the ones at the lowest offsets, at most the MaxFindings cap).
	Count int
	Kept  int
}

// Truncated reports whether findings of the code were left out.
func (c CodeCount) Truncated() bool { return c.Kept < c.Count }

// codeStats keeps the findings of one code: an exact count and, within the
// cap, the ones at the lowest offsets (found in offset order, almost always,
// so keeping is an append).
type codeStats struct {
	severity capture.Severity
	count    int
	kept     []Finding
	maxAt    int // index in kept of the last finding by (Off, seq)
}

// admits reports whether a finding at off would be kept under limit
// (negative: no limit). A tie with the last kept one is not: it was found
// later.
func (st *codeStats) admits(limit int, off int64) bool {
	return limit < 0 || len(st.kept) < limit || off < st.kept[st.maxAt].Off
}

// collector counts every finding and keeps at most limit per code. The
// codes of Codes() have their stats in an array (the record hook counts
// findings by index, no map lookup per record); any other code in a map.
type collector struct {
	limit     int
	stats     []codeStats
	other     map[capture.Code]*codeStats
	seq       uint64
	onFinding func(*Finding)
}

// numCodes is len(Codes()); codeIndex maps each to its place there.
var (
	numCodes  = len(Codes())
	codeIndex = func() map[capture.Code]int {
		m := map[capture.Code]int{}
		for i, c := range Codes() {
			m[c.Code] = i
		}
		return m
	}()
)

// Indexes of the codes the record hook reports.
var (
	idxBeforeEntry     = codeIndex[CodeBeforeEntry]
	idxOverlap         = codeIndex[CodeOverlap]
	idxUnknownDesc     = codeIndex[CodeUnknownDesc]
	idxUnknownTaskType = codeIndex[CodeUnknownTaskType]
)

func newCollector(limit int, onFinding func(*Finding)) *collector {
	return &collector{limit: limit, stats: make([]codeStats, numCodes), onFinding: onFinding}
}

// statsOf returns the stats of code, made with severity sev the first time.
func (c *collector) statsOf(code capture.Code, sev capture.Severity) *codeStats {
	if i, ok := codeIndex[code]; ok {
		st := &c.stats[i]
		if st.count == 0 && st.kept == nil {
			st.severity = sev
		}
		return st
	}
	if c.other == nil {
		c.other = map[capture.Code]*codeStats{}
	}
	st := c.other[code]
	if st == nil {
		st = &codeStats{severity: sev}
		c.other[code] = st
	}
	return st
}

// want counts one finding of code at off and reports whether the caller
// should build it and pass it to add (building one formats text, which a
// capture with millions of findings cannot afford for each).
func (c *collector) want(code capture.Code, sev capture.Severity, off int64) bool {
	st := c.statsOf(code, sev)
	st.count++
	return c.onFinding != nil || st.admits(c.limit, off)
}

// wantWarning is want for the warning of Codes()[i]: the record hook's
// path, an array index.
func (c *collector) wantWarning(i int, off int64) bool {
	st := &c.stats[i]
	st.severity = capture.Warning
	st.count++
	return c.onFinding != nil || st.admits(c.limit, off)
}

// countOnly counts n warnings of code Codes()[i] that are not kept (the
// block check let them by: wantWarning would have admitted none).
func (c *collector) countOnly(i, n int) {
	if n > 0 {
		st := &c.stats[i]
		st.severity = capture.Warning
		st.count += n
	}
}

// add keeps f, which want admitted.
func (c *collector) add(f Finding) {
	st := c.statsOf(f.Code, f.Severity)
	f.seq = c.seq
	c.seq++
	if c.onFinding != nil {
		c.onFinding(&f)
	}
	if !st.admits(c.limit, f.Off) {
		return
	}
	if c.limit < 0 || len(st.kept) < c.limit {
		st.kept = append(st.kept, f)
		if last := len(st.kept) - 1; last == 0 || !before(&st.kept[last], &st.kept[st.maxAt]) {
			st.maxAt = last
		}
		return
	}
	st.kept[st.maxAt] = f
	st.maxAt = 0
	for i := range st.kept {
		if before(&st.kept[st.maxAt], &st.kept[i]) {
			st.maxAt = i
		}
	}
}

// report counts and keeps f.
func (c *collector) report(f Finding) {
	if c.want(f.Code, f.Severity, f.Off) {
		c.add(f)
	}
}

func before(a, b *Finding) bool {
	if a.Off != b.Off {
		return a.Off < b.Off
	}
	return a.seq < b.seq
}

// finish returns the kept findings in offset order and the counts, errors
// first, each in the order of Codes().
func (c *collector) finish() ([]Finding, []CodeCount) {
	var all []Finding
	counts := make([]CodeCount, 0, 4)
	codes := Codes()
	for i := range c.stats {
		if st := &c.stats[i]; st.count > 0 {
			all = append(all, st.kept...)
			counts = append(counts, CodeCount{Code: codes[i].Code, Severity: st.severity, Count: st.count, Kept: len(st.kept)})
		}
	}
	for code, st := range c.other {
		all = append(all, st.kept...)
		counts = append(counts, CodeCount{Code: code, Severity: st.severity, Count: st.count, Kept: len(st.kept)})
	}
	slices.SortFunc(all, func(a, b Finding) int {
		if before(&a, &b) {
			return -1
		}
		if before(&b, &a) {
			return 1
		}
		return 0
	})
	rank := codeRank()
	slices.SortFunc(counts, func(a, b CodeCount) int {
		if a.Severity != b.Severity {
			return int(a.Severity) - int(b.Severity)
		}
		if ra, rb := rankOf(rank, a.Code), rankOf(rank, b.Code); ra != rb {
			return ra - rb
		}
		return strings.Compare(string(a.Code), string(b.Code))
	})
	return all, counts
}

func codeRank() map[capture.Code]int {
	m := map[capture.Code]int{}
	for i, c := range Codes() {
		m[c.Code] = i
	}
	return m
}

func rankOf(rank map[capture.Code]int, c capture.Code) int {
	if r, ok := rank[c]; ok {
		return r
	}
	return len(rank)
}
