package analyze

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Delta compares one number of a base and a new analysis.
type Delta struct {
	Base float64 `json:"base"`
	New  float64 `json:"new"`
	// Abs is New − Base; RelPct is Abs over Base in percent, nil when
	// Base is 0.
	Abs    float64  `json:"abs"`
	RelPct *float64 `json:"rel_pct"`
	// exact says the numbers are the integers ib and in (cycles,
	// counts): written exactly, where a float64 rounds past 2^53.
	exact  bool
	ib, in uint64
}

func delta(base, new float64) Delta {
	d := Delta{Base: base, New: new, Abs: new - base}
	if base != 0 {
		r := 100 * d.Abs / base
		d.RelPct = &r
	}
	return d
}

// intDelta compares two integers: the float64 fields hold them rounded
// (for sorting and percentages), the text and JSON show them exactly.
func intDelta(base, new uint64) Delta {
	d := delta(float64(base), float64(new))
	d.exact, d.ib, d.in = true, base, new
	return d
}

// texts returns Base, New and Abs as exact decimal integers (Abs signed,
// "+" when positive); ok is false when the delta is not of integers.
func (d Delta) texts() (base, new, abs string, ok bool) {
	if !d.exact {
		return "", "", "", false
	}
	base, new = strconv.FormatUint(d.ib, 10), strconv.FormatUint(d.in, 10)
	switch {
	case d.in > d.ib:
		abs = "+" + strconv.FormatUint(d.in-d.ib, 10)
	case d.in < d.ib:
		abs = "-" + strconv.FormatUint(d.ib-d.in, 10)
	default:
		abs = "0"
	}
	return base, new, abs, true
}

// MarshalJSON writes the delta; integers exactly (2^64−1 as
// 18446744073709551615, not 18446744073709551616).
func (d Delta) MarshalJSON() ([]byte, error) {
	type plain Delta
	if !d.exact {
		return json.Marshal(plain(d))
	}
	base, new, abs, _ := d.texts()
	abs = strings.TrimPrefix(abs, "+")
	rel := []byte("null")
	if d.RelPct != nil {
		var err error
		if rel, err = json.Marshal(*d.RelPct); err != nil {
			return nil, err
		}
	}
	return fmt.Appendf(nil, `{"base":%s,"new":%s,"abs":%s,"rel_pct":%s}`, base, new, abs, rel), nil
}

// GroupDiff compares one task type or stage.
type GroupDiff struct {
	Name string `json:"name"`
	// InBase and InNew say which sides have the group.
	InBase      bool  `json:"in_base"`
	InNew       bool  `json:"in_new"`
	Count       Delta `json:"count"`
	TotalCycles Delta `json:"total_cycles"`
	MeanCycles  Delta `json:"mean_cycles"`
	P90Cycles   Delta `json:"p90_cycles"`
}

// RankDiff compares one rank.
type RankDiff struct {
	Rank uint32 `json:"rank"`
	// Invocation is the new side's invocation, when the sections are
	// invocations of a window (paired by rank and invocation id).
	Invocation  *Invocation `json:"invocation,omitempty"`
	BaseCapture string      `json:"base_capture"`
	NewCapture  string      `json:"new_capture"`
	Makespan    Delta       `json:"makespan_cycles"`
	// Records and Dropped compare the records read and those the device
	// dropped (a change in what was dropped changes every figure).
	Records   Delta            `json:"records"`
	Dropped   Delta            `json:"dropped"`
	BusyPct   map[string]Delta `json:"busy_pct"`
	Imbalance map[string]Delta `json:"imbalance"`
	// TaskTypes and Stages by the largest absolute change in total first.
	TaskTypes []GroupDiff `json:"task_types"`
	Stages    []GroupDiff `json:"stages"`
}

// Diff compares two reports rank by rank.
type Diff struct {
	BaseABIFingerprint string `json:"base_abi_fingerprint"`
	NewABIFingerprint  string `json:"new_abi_fingerprint"`
	// InputDifferences says where the analyses' inputs differ, one line
	// per flag (InputDifferences); empty when they are the same.
	InputDifferences []string   `json:"input_differences,omitempty"`
	Ranks            []RankDiff `json:"ranks"`
}

// ABIMismatch is a diff of analyses of different ABIs.
type ABIMismatch struct{ Base, New string }

// Error says which fingerprints differ and how to compare them anyway.
func (e *ABIMismatch) Error() string {
	return fmt.Sprintf("base was analyzed with ABI fingerprint %s, new with %s: their numbers may not mean the same (--allow-abi-mismatch compares them anyway)", e.Base, e.New)
}

// Compare diffs base against new. Sections are paired by rank number and,
// for invocations of a window, invocation id; when each report has one
// section, with each other. Reports of different ABI fingerprints are an
// *ABIMismatch unless allowMismatch.
func Compare(base, new *Report, allowMismatch bool) (*Diff, error) {
	if base.ABIFingerprint != new.ABIFingerprint && !allowMismatch {
		return nil, &ABIMismatch{Base: base.ABIFingerprint, New: new.ABIFingerprint}
	}
	d := &Diff{BaseABIFingerprint: base.ABIFingerprint, NewABIFingerprint: new.ABIFingerprint,
		InputDifferences: InputDifferences(base, new)}
	if len(base.Ranks) == 1 && len(new.Ranks) == 1 {
		d.Ranks = append(d.Ranks, compareRank(base.Ranks[0], new.Ranks[0]))
		return d, nil
	}
	byKey := map[sectionKey]*Rank{}
	for _, k := range new.Ranks {
		if prev, dup := byKey[keyOf(k)]; dup {
			return nil, fmt.Errorf("the new analysis has %s twice (%s and %s)", k.label(), prev.Capture, k.Capture)
		}
		byKey[keyOf(k)] = k
	}
	seen := map[sectionKey]*Rank{}
	for _, b := range base.Ranks {
		if prev, dup := seen[keyOf(b)]; dup {
			return nil, fmt.Errorf("the base analysis has %s twice (%s and %s)", b.label(), prev.Capture, b.Capture)
		}
		seen[keyOf(b)] = b
		n, ok := byKey[keyOf(b)]
		if !ok {
			return nil, fmt.Errorf("%s (%s) is not in the new analysis", b.label(), b.Capture)
		}
		delete(byKey, keyOf(b))
		d.Ranks = append(d.Ranks, compareRank(b, n))
	}
	for _, n := range new.Ranks {
		if _, left := byKey[keyOf(n)]; left {
			return nil, fmt.Errorf("%s (%s) is not in the base analysis", n.label(), n.Capture)
		}
	}
	return d, nil
}

// sectionKey pairs the sections of two reports: a rank, and the
// invocation id when the section is an invocation.
type sectionKey struct {
	rank uint32
	inv  bool
	id   int64
}

func keyOf(k *Rank) sectionKey {
	if k.Invocation == nil {
		return sectionKey{rank: k.Rank}
	}
	return sectionKey{rank: k.Rank, inv: true, id: k.Invocation.ID}
}

func compareRank(b, n *Rank) RankDiff {
	d := RankDiff{Rank: n.Rank, Invocation: n.Invocation, BaseCapture: b.Capture, NewCapture: n.Capture,
		Makespan: intDelta(b.MakespanCycles, n.MakespanCycles),
		Records:  intDelta(b.Records, n.Records), Dropped: intDelta(b.Dropped, n.Dropped),
		BusyPct: map[string]Delta{}, Imbalance: map[string]Delta{}}
	regions := map[string]bool{}
	for r := range b.Regions {
		regions[r] = true
	}
	for r := range n.Regions {
		regions[r] = true
	}
	get := func(k *Rank, r string) Totals {
		if t := k.Regions[r]; t != nil {
			return *t
		}
		return Totals{}
	}
	for r := range regions {
		d.BusyPct[r] = delta(get(b, r).BusyPct, get(n, r).BusyPct)
		d.Imbalance[r] = delta(get(b, r).Imbalance, get(n, r).Imbalance)
	}
	if b.Totals != nil && n.Totals != nil {
		d.BusyPct["rank"] = delta(b.Totals.BusyPct, n.Totals.BusyPct)
		d.Imbalance["rank"] = delta(b.Totals.Imbalance, n.Totals.Imbalance)
	}
	d.TaskTypes = compareGroups(b.TaskTypes, n.TaskTypes)
	d.Stages = compareGroups(b.Stages, n.Stages)
	return d
}

func compareGroups(base, new []Stat) []GroupDiff {
	type pair struct{ b, n *Stat }
	m := map[string]*pair{}
	for i := range base {
		m[base[i].Name] = &pair{b: &base[i]}
	}
	for i := range new {
		if p := m[new[i].Name]; p != nil {
			p.n = &new[i]
		} else {
			m[new[i].Name] = &pair{n: &new[i]}
		}
	}
	var out []GroupDiff
	for name, p := range m {
		var b, n Stat
		if p.b != nil {
			b = *p.b
		}
		if p.n != nil {
			n = *p.n
		}
		out = append(out, GroupDiff{Name: name, InBase: p.b != nil, InNew: p.n != nil,
			Count:       intDelta(b.Count, n.Count),
			TotalCycles: intDelta(b.TotalCycles, n.TotalCycles),
			MeanCycles:  delta(b.MeanCycles, n.MeanCycles),
			P90Cycles:   intDelta(b.P90Cycles, n.P90Cycles)})
	}
	slices.SortFunc(out, func(x, y GroupDiff) int {
		return cmp.Or(cmp.Compare(math.Abs(y.TotalCycles.Abs), math.Abs(x.TotalCycles.Abs)), cmp.Compare(x.Name, y.Name))
	})
	return out
}

// IsZero reports whether nothing changed.
func (d *Diff) IsZero() bool {
	for _, r := range d.Ranks {
		ds := []Delta{r.Makespan, r.Records, r.Dropped}
		for _, x := range r.BusyPct {
			ds = append(ds, x)
		}
		for _, x := range r.Imbalance {
			ds = append(ds, x)
		}
		for _, g := range append(slices.Clone(r.TaskTypes), r.Stages...) {
			if !g.InBase || !g.InNew {
				return false
			}
			ds = append(ds, g.Count, g.TotalCycles, g.MeanCycles, g.P90Cycles)
		}
		for _, x := range ds {
			if x.Abs != 0 || x.ib != x.in {
				return false
			}
		}
	}
	return true
}

// LooksLikeJSON reports whether data starts (after white space) with '{':
// a report, never a capture (whose first bytes are a core header).
func LooksLikeJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// WriteJSON writes the diff as one indented JSON document.
func (d *Diff) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

func fmtDelta(d Delta, prec int) []string {
	rel := "-"
	if d.RelPct != nil {
		rel = strconv.FormatFloat(*d.RelPct, 'f', 1, 64) + "%"
		if *d.RelPct > 0 {
			rel = "+" + rel
		}
	}
	if base, new, abs, ok := d.texts(); ok && prec == 0 {
		return []string{base, new, abs, rel}
	}
	abs := strconv.FormatFloat(d.Abs, 'f', prec, 64)
	if math.Abs(d.Abs) < 0.5*math.Pow10(-prec) {
		abs = strconv.FormatFloat(0, 'f', prec, 64) // not "-0.000"
	} else if d.Abs > 0 {
		abs = "+" + abs
	}
	return []string{strconv.FormatFloat(d.Base, 'f', prec, 64), strconv.FormatFloat(d.New, 'f', prec, 64), abs, rel}
}

// label names a compared section: "rank 0", or "rank 0 invocation 1 (step 3, backward)".
func (r *RankDiff) label() string {
	return (&Rank{Rank: r.Rank, Invocation: r.Invocation}).label()
}

func (r *RankDiff) tables(top int) []*table {
	sum := &table{title: "Summary", head: []string{"metric", "base", "new", "Δ", "Δ %"}}
	sum.rows = append(sum.rows, append([]string{"makespan_cycles"}, fmtDelta(r.Makespan, 0)...))
	sum.rows = append(sum.rows, append([]string{"records"}, fmtDelta(r.Records, 0)...))
	sum.rows = append(sum.rows, append([]string{"dropped"}, fmtDelta(r.Dropped, 0)...))
	var keys []string
	for k := range r.BusyPct {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		sum.rows = append(sum.rows, append([]string{"busy_pct " + k}, fmtDelta(r.BusyPct[k], 2)...))
	}
	for _, k := range keys {
		sum.rows = append(sum.rows, append([]string{"imbalance " + k}, fmtDelta(r.Imbalance[k], 3)...))
	}
	groups := func(title, col string, gs []GroupDiff) *table {
		t := &table{title: title, head: []string{col, "count", "Δ count", "total", "Δ total", "Δ total %", "mean", "Δ mean", "p90", "Δ p90"}}
		for _, g := range gs {
			c, tot, mean, p90 := fmtDelta(g.Count, 0), fmtDelta(g.TotalCycles, 0), fmtDelta(g.MeanCycles, 1), fmtDelta(g.P90Cycles, 0)
			t.rows = append(t.rows, []string{g.Name, c[1], c[2], tot[1], tot[2], tot[3], mean[1], mean[2], p90[1], p90[2]})
		}
		return t.top(top)
	}
	return []*table{sum, groups("Task types (cycles, new and change)", "task_type", r.TaskTypes), groups("Stages (cycles, new and change)", "stage", r.Stages)}
}

// WriteText writes the diff as aligned tables; top bounds the rows of
// the task type and stage tables (0: all).
func (d *Diff) WriteText(w io.Writer, top int) error {
	tw := &textWriter{w: w}
	if note := d.inputNote(); note != "" {
		tw.printf("%s\n\n", note)
	}
	for i := range d.Ranks {
		r := &d.Ranks[i]
		if i > 0 {
			tw.printf("\n")
		}
		tw.printf("== %s: %s -> %s ==\n\n", r.label(), r.BaseCapture, r.NewCapture)
		for _, t := range r.tables(top) {
			t.text(tw)
			tw.printf("\n")
		}
	}
	if d.IsZero() {
		tw.printf("no change\n")
	}
	return tw.err
}

// WriteMarkdown writes the diff as Markdown tables.
func (d *Diff) WriteMarkdown(w io.Writer, top int) error {
	tw := &textWriter{w: w}
	if note := d.inputNote(); note != "" {
		tw.printf("**%s**\n\n", note)
	}
	for i := range d.Ranks {
		r := &d.Ranks[i]
		tw.printf("## R%s: %s → %s\n\n", r.label()[1:], r.BaseCapture, r.NewCapture)
		for _, t := range r.tables(top) {
			t.markdown(tw)
			tw.printf("\n")
		}
	}
	if d.IsZero() {
		tw.printf("No change.\n")
	}
	return tw.err
}
