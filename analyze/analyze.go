// Package analyze answers the first questions about a MegaKernel capture:
// where each core's time went (compute, wait, trigger, other, idle), how
// long each task type, stage and owner took (count, total, mean,
// percentiles), and, given the schedule the kernel ran, the critical path
// through the dependencies. Diff compares two such results.
//
// Analysis streams: one walk over the records in trace order (package
// decode's k-way merge) fills per-core counters and per-group duration
// distributions. Memory is O(cores + groups): at most DefaultExactLimit
// exact durations in all (4 MiB), and a histogram per group (58 KiB at
// most, a few hundred bytes for a few values)
// past that (see Stat.Exact),
// and with a schedule 24 bytes per producer record (flows.Dependencies)
// plus the critical path's segments.
package analyze

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
)

// Options say how to analyze one capture.
type Options struct {
	// Rank labels the capture.
	Rank uint32
	// FrequencyMHz is the system-counter frequency (µs = cycles / MHz).
	FrequencyMHz float64
	// Names are the kernel's names for stages and tasks; nil for none.
	Names *kernelnames.Names
	// Deps are the capture's event producers under the schedule it ran
	// (flows.NewDependencies); nil when no schedule is given: then
	// there is no critical path and task types of graph-stage records
	// are not known.
	Deps *flows.Dependencies
	// ExactLimit is how many durations the analysis keeps exactly over all
	// groups (0: DefaultExactLimit); past it, groups switch to histograms.
	ExactLimit int
	// Invocation says which kernel launch of a window the capture is; nil
	// for a capture that is its rank's only one.
	Invocation *Invocation
	// Notes say what the input could not carry, reported with the
	// analysis: set for a capture read back from a JSON trace (package
	// jsontrace), which holds no idle cores nor per-core dropped counts.
	Notes []string
	// TraceCores says the input holds only the cores with records (a JSON
	// trace, package jsontrace): a core without one may have entered the
	// kernel, which a stopped kernel's diagnosis then says.
	TraceCores bool
	// Warnings say what of the input was not taken as it stands, reported
	// with the analysis: a JSON trace's names cut to the cap on a name,
	// the ranks, invocations and cores its metadata describes that have
	// no events (jsontrace.Source.Warnings).
	Warnings []string
}

// Invocation labels a capture that is one kernel launch (invocation) of a
// profiling window, as decode's invocations are: several captures of one
// rank, told apart by ID.
type Invocation struct {
	ID int64 `json:"invocation_id"`
	// Step is the training step and Direction "forward" or "backward";
	// nil when not known.
	Step      *int64  `json:"step"`
	Direction *string `json:"direction"`
	// KernelName is the manifest's kernel_name, "" when not given.
	KernelName string `json:"kernel_name,omitempty"`
}

// String is "invocation 1 (step 3, backward)".
func (v *Invocation) String() string {
	s := "invocation " + strconv.FormatInt(v.ID, 10)
	var what []string
	if v.Step != nil {
		what = append(what, "step "+strconv.FormatInt(*v.Step, 10))
	}
	if v.Direction != nil {
		what = append(what, *v.Direction)
	}
	if len(what) > 0 {
		s += " (" + strings.Join(what, ", ") + ")"
	}
	return s
}

// Report is the analysis of one or more captures (one per rank). Its JSON
// form is what `cycleabi analyze --format json` prints.
type Report struct {
	ABIVersion     int     `json:"abi_version"`
	ABIFingerprint string  `json:"abi_fingerprint"`
	Ranks          []*Rank `json:"ranks"`
	// CrossRank compares the ranks; nil for one rank.
	CrossRank *CrossRank `json:"cross_rank"`
	// Inputs are the flags and files besides the captures the analysis
	// was made with (what diff compares before the numbers); nil when
	// not recorded.
	Inputs *[]Input `json:"inputs,omitempty"`
}

// Rank is the analysis of one capture.
type Rank struct {
	Rank uint32 `json:"rank"`
	// Invocation is set when the capture is one invocation of a window
	// (several captures of the rank); absent otherwise.
	Invocation        *Invocation `json:"invocation,omitempty"`
	Capture           string      `json:"capture"`
	CycleFrequencyMHz float64     `json:"cycle_frequency_mhz"`
	Records           uint64      `json:"records"`
	Dropped           uint64      `json:"dropped"`
	// Layout is the buffer layout the capture was read with.
	Layout Layout `json:"layout"`
	// StartCycle is the earliest entry of a core with records, EndCycle
	// the latest record end; MakespanCycles = EndCycle − StartCycle (0
	// when every record ends before the first entry).
	StartCycle     uint64  `json:"start_cycle"`
	EndCycle       uint64  `json:"end_cycle"`
	MakespanCycles uint64  `json:"makespan_cycles"`
	MakespanUs     float64 `json:"makespan_us"`
	// Cores are every entered core, by core type then block id.
	Cores []Core `json:"cores"`
	// Regions has the totals of each core type with entered cores
	// ("AIC", "AIV"); Totals those of the rank.
	Regions map[string]*Totals `json:"regions"`
	Totals  *Totals            `json:"totals"`
	// TaskTypes, Stages and Owners are the compute records grouped by
	// task type, stage and owner id; Waits the wait records grouped by the
	// stage of the waiting task. Each by total cycles, largest first.
	TaskTypes []Stat `json:"task_types"`
	Stages    []Stat `json:"stages"`
	Owners    []Stat `json:"owners"`
	Waits     []Stat `json:"waits"`
	// CriticalPath is nil without a schedule.
	CriticalPath *Path `json:"critical_path"`
	// Flows are the dependency arrows decode --plan draws (releasing
	// mode); nil without a schedule.
	Flows *Flows `json:"flows"`
	// Diagnosis says why the kernel stopped before its work was done;
	// absent for a capture whose kernel finished.
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
	// Notes say what the input could not carry (a JSON trace: cores
	// that wrote nothing, per-core dropped counts, ...); absent for a
	// capture.
	Notes []string `json:"notes,omitempty"`
	// Warnings say what of the input was not taken as it stands (a JSON
	// trace: a name cut to 4,096 bytes, a rank, invocation or core its
	// metadata describes with no events); absent when there are none.
	Warnings []string `json:"warnings,omitempty"`
}

// Layout is a capture's buffer layout, in the keys validate's JSON uses.
type Layout struct {
	CubeSlots uint32 `json:"cube_slots"`
	// Capacities are the record capacities by core type ("AIC", "AIV").
	Capacities map[string]uint32 `json:"capacities"`
	// Size is the buffer's size in bytes.
	Size uint64 `json:"size"`
}

// Core is where one core's time went, in cycles.
type Core struct {
	Core     string `json:"core"`
	CoreType string `json:"core_type"`
	BlockID  uint32 `json:"block_id"`
	// EntryCycle is the header's entry_cycle (the first record's start
	// when that is 0); EndCycle the latest record end, or EntryCycle when
	// that is later (a core without records, or whose records all end
	// before its entry).
	EntryCycle uint64 `json:"entry_cycle"`
	EndCycle   uint64 `json:"end_cycle"`
	Records    uint64 `json:"records"`
	// ComputeCycles, WaitCycles, TriggerCycles and OtherCycles sum the
	// durations of the core's records of each kind; IdleCycles is the span
	// minus the length of the union of its record intervals clipped to
	// [EntryCycle, EndCycle]. Sums saturate at 2^64-1.
	ComputeCycles uint64 `json:"compute_cycles"`
	WaitCycles    uint64 `json:"wait_cycles"`
	TriggerCycles uint64 `json:"trigger_cycles"`
	OtherCycles   uint64 `json:"other_cycles"`
	IdleCycles    uint64 `json:"idle_cycles"`
}

// SpanCycles is EndCycle − EntryCycle.
func (c *Core) SpanCycles() uint64 { return c.EndCycle - c.EntryCycle }

// Totals sum the cores of a region or rank.
type Totals struct {
	// Cores counts the entered cores, ActiveCores those with records.
	Cores         int    `json:"cores"`
	ActiveCores   int    `json:"active_cores"`
	SpanCycles    uint64 `json:"span_cycles"`
	ComputeCycles uint64 `json:"compute_cycles"`
	WaitCycles    uint64 `json:"wait_cycles"`
	TriggerCycles uint64 `json:"trigger_cycles"`
	OtherCycles   uint64 `json:"other_cycles"`
	IdleCycles    uint64 `json:"idle_cycles"`
	// BusyPct is 100 × compute / span; WaitPct 100 × wait / span.
	BusyPct float64 `json:"busy_pct"`
	WaitPct float64 `json:"wait_pct"`
	// Imbalance is the largest compute of a core with records over their
	// mean compute (1 = balanced; 0 without compute).
	Imbalance float64 `json:"imbalance"`
}

// Stat is the duration distribution of one group of records, in cycles.
// Percentiles are by nearest rank: the value at index ceil(p/100 × n) − 1
// of the sorted durations. When Exact is false the analysis ran out of
// its budget of exact values (Options.ExactLimit over all groups) while
// the group grew, and p50/p90/p99 come from a log-bucketed
// histogram: each within 1/256 (0.4%) of the true value; count, total,
// mean and max are always exact.
type Stat struct {
	Name        string  `json:"name"`
	Count       uint64  `json:"count"`
	TotalCycles uint64  `json:"total_cycles"`
	MeanCycles  float64 `json:"mean_cycles"`
	P50Cycles   uint64  `json:"p50_cycles"`
	P90Cycles   uint64  `json:"p90_cycles"`
	P99Cycles   uint64  `json:"p99_cycles"`
	MaxCycles   uint64  `json:"max_cycles"`
	Exact       bool    `json:"exact"`
}

// Flows count the dependency arrows of a capture (releasing mode).
type Flows struct {
	Waits                uint64 `json:"waits"`
	Arrows               uint64 `json:"arrows"`
	WaitsWithoutProducer uint64 `json:"waits_without_producer"`
}

// CrossRank compares the makespans of several ranks.
type CrossRank struct {
	Ranks []RankMakespan `json:"ranks"`
	// SlowestRank has the longest makespan (the first such rank on a tie).
	SlowestRank uint32 `json:"slowest_rank"`
	// SlowestInvocation is the slowest section's invocation id, when the
	// captures are invocations.
	SlowestInvocation *int64 `json:"slowest_invocation_id,omitempty"`
	// SpreadCycles is the longest makespan minus the shortest; SpreadPct
	// that over the shortest, in percent.
	SpreadCycles uint64  `json:"spread_cycles"`
	SpreadPct    float64 `json:"spread_pct"`
	// Rule states how slow ranks are told (SlowRule); MedianMakespanCycles
	// is what it measures from; SlowRanks are the ranks it finds.
	Rule                 string    `json:"slow_rule"`
	MedianMakespanCycles float64   `json:"median_makespan_cycles"`
	SlowRanks            []Section `json:"slow_ranks"`
	// Stages and TaskTypes are the compute cycles of each stage and task
	// type across ranks, the largest max first.
	Stages    []Spread `json:"stages"`
	TaskTypes []Spread `json:"task_types"`
	// Stopped are the sections whose kernel stopped before its work was
	// done, the first to stop first; absent when none did.
	Stopped []StoppedSection `json:"stopped,omitempty"`
}

// RankMakespan is one rank's makespan.
type RankMakespan struct {
	Rank           uint32      `json:"rank"`
	Invocation     *Invocation `json:"invocation,omitempty"`
	Capture        string      `json:"capture"`
	MakespanCycles uint64      `json:"makespan_cycles"`
	MakespanUs     float64     `json:"makespan_us"`
	// The rank's totals (Totals), its busiest stage (the most compute
	// cycles) and whether SlowRule finds it slow.
	ComputeCycles uint64  `json:"compute_cycles"`
	WaitCycles    uint64  `json:"wait_cycles"`
	TriggerCycles uint64  `json:"trigger_cycles"`
	OtherCycles   uint64  `json:"other_cycles"`
	IdleCycles    uint64  `json:"idle_cycles"`
	BusyPct       float64 `json:"busy_pct"`
	WaitPct       float64 `json:"wait_pct"`
	BusiestStage  string  `json:"busiest_stage"`
	Slow          bool    `json:"slow"`
}

// Kinds of records and path segments.
const (
	KindCompute = "compute"
	KindWait    = "wait"
	KindTrigger = "trigger"
	KindOther   = "other"
	KindGap     = "gap"
	KindLaunch  = "launch"
)

// kind classifies a record by its desc_id's class (kernelnames.Names.Class:
// the kernel family's class for its stages, the schema's rule otherwise).
func (n *namer) kind(desc uint32) string {
	switch n.names.Class(desc) {
	case abi.StageWait:
		return KindWait
	case abi.StageTrigger:
		return KindTrigger
	case abi.StageCompute:
		return KindCompute
	}
	return KindOther
}

// coreAcc accumulates one active slot.
type coreAcc struct {
	core     Core
	covered  uint64 // union length so far
	coverEnd uint64 // end of the union so far (>= entry)
}

// analyzer holds the state of one walk.
type analyzer struct {
	o      Options
	names  namer
	types  groups[string]
	stages groups[string]
	owners groups[uint32]
	waits  groups[string]
	// last is the record with the latest end (ties: the first in trace order).
	last    decode.RecordRef
	hasLast bool
	// rankStart is the rank's StartCycle, the zero of segments' µs.
	rankStart uint64
}

// Analyze walks d once and returns its analysis. With o.Deps it also
// finds the critical path (reading the records on it back from the
// capture).
func Analyze(d *decode.Decoded, o Options) (*Rank, error) { return AnalyzeWalk(d, o, d.Records) }

// AnalyzeWalk is Analyze of the records walk yields, which must be d's
// records in trace order, as d.Records yields them: for a caller that walks
// the capture for a purpose of its own and hands the records on, so that
// the capture is walked once, not twice (export). A walk that stops early
// leaves an analysis of the records it gave.
func AnalyzeWalk(d *decode.Decoded, o Options, walk func(yield func(decode.Record) bool) error) (*Rank, error) {
	if !(o.FrequencyMHz > 0) || math.IsInf(o.FrequencyMHz, 0) {
		return nil, fmt.Errorf("cycle frequency must be positive and finite, got %v MHz", o.FrequencyMHz)
	}
	limit := o.ExactLimit
	if limit <= 0 {
		limit = DefaultExactLimit
	}
	a := &analyzer{o: o, names: namer{names: o.Names, deps: o.Deps}}
	budget := limit // exact durations left, shared by every group
	a.types.budget, a.stages.budget, a.owners.budget, a.waits.budget = &budget, &budget, &budget, &budget
	fast := newFastGroups(a)
	sum := d.Summary
	accs := make([]coreAcc, len(sum.Active))
	for i, s := range sum.Active {
		c := &accs[i].core
		c.Core, c.CoreType, c.BlockID, c.EntryCycle = s.Slot.String(), s.Slot.CoreType.String(), s.Slot.BlockID, s.EntryCycle
	}
	first := make([]bool, len(accs))
	var fl Flows
	hang := newHangWalk(d, o)
	err := walk(func(r decode.Record) bool {
		acc := &accs[r.Active]
		c := &acc.core
		if !first[r.Active] {
			first[r.Active] = true
			if c.EntryCycle == 0 {
				c.EntryCycle = r.StartCycle
			}
			c.EndCycle = c.EntryCycle
			acc.coverEnd = c.EntryCycle
		}
		c.Records++
		c.EndCycle = max(c.EndCycle, r.EndCycle)
		dur := r.EndCycle - r.StartCycle
		// The union of intervals clipped at the entry; records come in
		// start order within a core.
		if s := max(r.StartCycle, acc.coverEnd); r.EndCycle > s {
			acc.covered += r.EndCycle - s
			acc.coverEnd = r.EndCycle
		}
		if !a.hasLast || r.EndCycle > a.last.EndCycle {
			a.last, a.hasLast = r.Ref(), true
		}
		kind := a.names.kind(r.DescID)
		hang.record(&r, kind)
		switch kind {
		case KindCompute:
			c.ComputeCycles = satAdd(c.ComputeCycles, dur)
			fast.compute(&r.ProfileRecord, dur)
		case KindWait:
			c.WaitCycles = satAdd(c.WaitCycles, dur)
			fast.wait(&r.ProfileRecord, dur)
			if o.Deps != nil {
				if e, ok := o.Deps.WaitEvent(&r.ProfileRecord); ok {
					fl.Waits++
					if _, ok := o.Deps.Releasing(e, r.EndCycle); ok {
						fl.Arrows++
					} else {
						fl.WaitsWithoutProducer++
					}
				}
			}
		case KindTrigger:
			c.TriggerCycles = satAdd(c.TriggerCycles, dur)
		default:
			c.OtherCycles = satAdd(c.OtherCycles, dur)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	res := &Rank{Rank: o.Rank, Invocation: o.Invocation, Capture: d.Capture.Name, CycleFrequencyMHz: o.FrequencyMHz,
		Records: sum.Records, Dropped: sum.Dropped, Regions: map[string]*Totals{}, Notes: o.Notes, Warnings: o.Warnings,
		Layout: Layout{CubeSlots: sum.Layout.CubeSlots, Size: sum.Layout.Size(), Capacities: map[string]uint32{}}}
	for _, t := range abi.CoreTypes() {
		res.Layout.Capacities[t.String()] = sum.Layout.Capacities.For(t)
	}
	cores, err := enteredCores(d, accs)
	if err != nil {
		return nil, err
	}
	res.Cores = cores
	res.EndCycle = a.last.EndCycle
	a.totals(res)
	res.MakespanUs = a.us(res.MakespanCycles)
	res.TaskTypes = statsOf(&a.types, func(k string) string { return k })
	res.Stages = statsOf(&a.stages, func(k string) string { return k })
	res.Owners = statsOf(&a.owners, func(k uint32) string { return strconv.FormatUint(uint64(k), 10) })
	res.Waits = statsOf(&a.waits, func(k string) string { return k })
	res.Diagnosis = a.diagnose(d, hang, res)
	if o.Deps != nil {
		res.Flows = &fl
		if a.hasLast {
			a.rankStart = res.StartCycle
			p, err := a.criticalPath(d, accs)
			if err != nil {
				return nil, err
			}
			res.CriticalPath = p
		}
	}
	return res, nil
}

func (a *analyzer) us(cycles uint64) float64 { return float64(cycles) / a.o.FrequencyMHz }

// enteredCores returns every core whose header is live, with the
// walked numbers of the active ones, by core type then block id.
func enteredCores(d *decode.Decoded, accs []coreAcc) ([]Core, error) {
	byOff := map[uint64]*coreAcc{}
	for i, s := range d.Summary.Active {
		accs[i].core.IdleCycles = accs[i].core.SpanCycles() - accs[i].covered
		byOff[s.Slot.Offset] = &accs[i]
	}
	l := d.Summary.Layout
	var cores []Core
	var hb [abi.CoreHeaderSize]byte
	for i := range l.NumSlots() {
		s := l.Slot(i)
		if acc, ok := byOff[s.Offset]; ok {
			cores = append(cores, acc.core)
			continue
		}
		if _, err := d.Capture.ReadAt(hb[:], int64(s.Offset)); err != nil {
			return nil, fmt.Errorf("%s: reading the header of %s: %w", d.Capture.Name, s, err)
		}
		h, err := abi.DecodeCoreHeader(hb[:])
		if err != nil {
			return nil, err
		}
		if h.IsZero() {
			continue
		}
		cores = append(cores, Core{Core: s.String(), CoreType: s.CoreType.String(), BlockID: s.BlockID,
			EntryCycle: h.EntryCycle, EndCycle: h.EntryCycle})
	}
	// Buffer order is core type then block id already; keep it explicit.
	slices.SortStableFunc(cores, func(x, y Core) int {
		return cmp.Or(cmp.Compare(x.CoreType, y.CoreType), cmp.Compare(x.BlockID, y.BlockID))
	})
	return cores, nil
}

// totals fills the regions, the rank's totals and its makespan.
func (a *analyzer) totals(res *Rank) {
	res.Totals = &Totals{}
	type maxMean struct {
		max, sum uint64
		n        int
	}
	imb := map[*Totals]*maxMean{res.Totals: {}}
	first := true
	for i := range res.Cores {
		c := &res.Cores[i]
		t := res.Regions[c.CoreType]
		if t == nil {
			t = &Totals{}
			res.Regions[c.CoreType] = t
			imb[t] = &maxMean{}
		}
		for _, t := range []*Totals{t, res.Totals} {
			t.Cores++
			t.SpanCycles = satAdd(t.SpanCycles, c.SpanCycles())
			t.ComputeCycles = satAdd(t.ComputeCycles, c.ComputeCycles)
			t.WaitCycles = satAdd(t.WaitCycles, c.WaitCycles)
			t.TriggerCycles = satAdd(t.TriggerCycles, c.TriggerCycles)
			t.OtherCycles = satAdd(t.OtherCycles, c.OtherCycles)
			t.IdleCycles = satAdd(t.IdleCycles, c.IdleCycles)
			if c.Records > 0 {
				t.ActiveCores++
				m := imb[t]
				m.max, m.sum, m.n = max(m.max, c.ComputeCycles), satAdd(m.sum, c.ComputeCycles), m.n+1
			}
		}
		if c.Records > 0 {
			if first || c.EntryCycle < res.StartCycle {
				res.StartCycle = c.EntryCycle
			}
			first = false
		}
	}
	for t, m := range imb {
		if t.SpanCycles > 0 {
			t.BusyPct = 100 * float64(t.ComputeCycles) / float64(t.SpanCycles)
			t.WaitPct = 100 * float64(t.WaitCycles) / float64(t.SpanCycles)
		}
		if m.sum > 0 {
			t.Imbalance = float64(m.max) / (float64(m.sum) / float64(m.n))
		}
	}
	if res.EndCycle > res.StartCycle {
		res.MakespanCycles = res.EndCycle - res.StartCycle
	}
}

// statsOf turns groups into Stats, largest total first (ties by name).
func statsOf[K comparable](g *groups[K], name func(K) string) []Stat {
	out := make([]Stat, 0, len(g.m))
	for k, d := range g.m {
		if d.n == 0 {
			continue
		}
		p := d.percentiles(50, 90, 99)
		s := Stat{Name: name(k), Count: d.n, TotalCycles: d.total, P50Cycles: p[0], P90Cycles: p[1], P99Cycles: p[2],
			MaxCycles: d.max, Exact: d.Exact()}
		if d.n > 0 {
			s.MeanCycles = float64(d.total) / float64(d.n)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(x, y Stat) int {
		return cmp.Or(cmp.Compare(y.TotalCycles, x.TotalCycles), cmp.Compare(x.Name, y.Name))
	})
	return out
}

// namer names the groups of records.
type namer struct {
	names *kernelnames.Names
	deps  *flows.Dependencies
}

// typeName is the display name of a task type under the capture's
// family: "MatMul", or "TaskType_250" for one the table does not name.
func (n *namer) typeName(t abi.TaskType) string {
	return n.names.TaskTypeName(uint32(t))
}

// taskType names the task type of a compute record: its desc_id's task
// type, or the task type the family gives its stage, or for a graph-stage
// record the schedule's task type of its task, or without a schedule
// "graph stage <name>".
func (n *namer) taskType(r *abi.ProfileRecord) string {
	ns, index := abi.LookupDesc(r.DescID)
	if ns == abi.NamespaceTaskType {
		return n.typeName(abi.TaskType(index))
	}
	if st, ok := n.family().Stage(r.DescID); ok && st.HasTaskType {
		return n.typeName(abi.TaskType(st.TaskType))
	}
	if n.deps != nil && uint64(r.TaskID) < uint64(len(n.deps.Schedule.Tasks)) {
		return n.typeName(n.deps.Schedule.Tasks[r.TaskID].TaskType)
	}
	return "graph stage " + n.names.StageName(r.DescID)
}

// typeByDesc reports whether taskType of a record depends on its desc_id
// alone (not on its task), so that it can be kept per desc_id.
func (n *namer) typeByDesc(desc uint32) bool {
	if ns, _ := abi.LookupDesc(desc); ns == abi.NamespaceTaskType || n.deps == nil {
		return true
	}
	st, ok := n.family().Stage(desc)
	return ok && st.HasTaskType
}

// family is the kernel family the capture is read under.
func (n *namer) family() abi.Family {
	if n.names == nil {
		return abi.FamilyNone
	}
	return n.names.Family
}

// stage names the stage of a compute record: the names file's task stage
// of its task, else the display name of its desc_id (the graph stage's
// name, or the task type's).
func (n *namer) stage(r *abi.ProfileRecord) string {
	if s, ok := n.names.TaskStage(r.TaskID); ok {
		return s
	}
	return n.names.StageName(r.DescID)
}

// taskStage names the stage of a task from any of its records: the names
// file's task stage, else (with a schedule) the display name of the
// task's compute descriptor, else "unknown".
func (n *namer) taskStage(id uint32) string {
	if s, ok := n.names.TaskStage(id); ok {
		return s
	}
	if n.deps != nil && uint64(id) < uint64(len(n.deps.Schedule.Tasks)) {
		t := &n.deps.Schedule.Tasks[id]
		desc := abi.TaskTypeBase + uint32(t.TaskType)
		switch {
		case t.ProfileDescID != plan.NoProfileDescID:
			desc = t.ProfileDescID
		case t.GraphStage != plan.NoGraphStage:
			desc = abi.GraphStageBase + t.GraphStage
		}
		return n.names.StageName(desc)
	}
	return "unknown"
}
