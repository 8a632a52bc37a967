// Package kernelfamily decides which kernel family a capture's ids are
// read under when no flag names one: from the kernel name the data states
// (a trace's kernelName, a manifest's kernel_name), else from the
// descriptor ids its records carry and the names a trace gives them.
//
// Infer is a pure function: evidence in, a decision out, with what it was
// made from (for the user to read) and, when the data fits several
// families or none, the families it could be. It reads nothing and prints
// nothing; the command line says the decision and warns.
//
// The rules (docs/kernel-families.md lists them with their evidence):
//
//  1. A kernel name that one family's kernel_names hold (abi.FamilyForKernel)
//     chooses it. Ids that family does not name are reported as Conflicts.
//  2. Else each family is held to the ids: it fits when it names every id
//     in the namespaces it has tables for (its task types, its stages'
//     namespaces) and no name the data gives an id differs from its own;
//     it is shown by an id when it names that id otherwise than the
//     schema's own tables do (0x10001 is Dispatch only under MegaMoe).
//  3. When the schema's own tables fit too (they name every id a family
//     names, as the data names it), they are used: silently when no
//     family that fits is shown, else with those families listed (task
//     type 107 is MhcPost in the schema, ShmemGetMem under MegaMoe).
//  4. Else one family that fits and is shown is the answer; several that
//     name every id alike are one answer (the first); several that
//     differ is no family, with the candidates listed; none that fits is
//     no family, with the families that name some of the ids listed.
package kernelfamily

import (
	"fmt"
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// Evidence is what the data says about its family.
type Evidence struct {
	// KernelName is the kernel name the data states ("" for none): a
	// trace's kernelName, a manifest's kernel_name.
	KernelName string
	// DescIDs are the distinct desc_id values of the records.
	DescIDs []uint32
	// StageNames are the names the data gives desc ids (a trace's event
	// names, less decorations); nil for a capture.
	StageNames map[uint32]string
}

// Decision is the family the evidence chooses, and why.
type Decision struct {
	// Family is the family chosen; abi.FamilyNone when none is, or none
	// is needed.
	Family abi.Family
	// From says what the family was inferred from, for the user
	// ("kernel name \"MegaMoe\"", "stage ids 0x10001, 0x10002 (only
	// MegaMoe names them)"); "" when nothing chose one.
	From string
	// Candidates are the families the data fits, when it fits several
	// that name its ids differently (Ambiguous), or the families that
	// name some of its ids when it fits none.
	Candidates []abi.Family
	// Ambiguous says the data needs a family and does not choose one: a
	// warning naming --kernel-family and Candidates is due. NoFit says
	// no family names every id (Candidates name some).
	Ambiguous bool
	NoFit     bool
	// NoneFits says the schema's own tables fit the data too, and are
	// used; Shown are the ids the Candidates name otherwise.
	NoneFits bool
	Shown    []uint32
	// Conflicts are ids the chosen family does not name (or names
	// otherwise than the data does), when a kernel name or a flag chose
	// it (Given): the data may be of another family. Fits is then the
	// family the ids fit (Infer without the kernel name), FamilyNone
	// when none does or it is the chosen one.
	Conflicts []uint32
	Fits      abi.Family
	// Variants are the families a kernel name does not choose (no kernel
	// names) that extend the chosen family's name and name every graph
	// stage id it leaves Unnamed (none in today's schema: MegaMoe names
	// the graph-driven MegaMoe's graph stages itself, which MegaMoeGraph
	// once named alone).
	Variants []abi.Family
	Unnamed  []uint32
}

// maxShown bounds the ids a decision's text lists.
const maxShown = 4

// Infer decides the family of evidence e (see the package comment).
func Infer(e Evidence) Decision {
	ids := slices.Clone(e.DescIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if f, ok := abi.FamilyForKernel(e.KernelName); ok {
		d := Decision{Family: f, From: fmt.Sprintf("kernel name %q", e.KernelName)}
		var graph []uint32
		for _, id := range ids {
			if conflicts(f, id, e.StageNames) {
				d.Conflicts = append(d.Conflicts, id)
			}
			if ns, _ := abi.LookupDesc(id); ns == abi.NamespaceGraphStage && e.StageNames[id] == "" {
				if _, named := f.DescSchemaName(id); !named {
					graph = append(graph, id)
				}
			}
		}
		d.Variants, d.Unnamed = variants(f, graph), graph
		d.Fits = fits(f, d.Conflicts, e)
		return d
	}
	type fit struct {
		f     abi.Family
		shown []uint32
		bad   int
	}
	// showing fit every id and name some otherwise than the schema;
	// partial name some so but conflict with others.
	var showing, partial []fit
	for _, f := range abi.Families() {
		x := fit{f: f}
		for _, id := range ids {
			if conflicts(f, id, e.StageNames) {
				x.bad++
			} else if shows(f, id, e.StageNames) {
				x.shown = append(x.shown, id)
			}
		}
		switch {
		case len(x.shown) == 0:
		case x.bad == 0:
			showing = append(showing, x)
		default:
			partial = append(partial, x)
		}
	}
	none := noneFits(ids, e.StageNames)
	var fams []abi.Family
	var shown []uint32
	for _, x := range showing {
		fams = append(fams, x.f)
		shown = append(shown, x.shown...)
	}
	slices.Sort(shown)
	shown = slices.Compact(shown)
	switch {
	case len(showing) == 0 && (none || len(partial) == 0):
		return Decision{}
	case len(showing) == 0:
		slices.SortStableFunc(partial, func(a, b fit) int { return a.bad - b.bad })
		var c []abi.Family
		for _, x := range partial {
			c = append(c, x.f)
		}
		return Decision{Candidates: c, Ambiguous: true, NoFit: true}
	case !none && alike(fams, ids):
		x := showing[0]
		only := "only " + x.f.String() + " names them so"
		if len(showing) > 1 {
			only = familyList(fams) + " name them alike"
		}
		return Decision{Family: x.f, From: fmt.Sprintf("%s (%s)", idList(x.shown), only)}
	}
	return Decision{Candidates: fams, Ambiguous: true, NoneFits: none, Shown: shown}
}

// Given holds family f, which from chose ("flag --kernel-family"), to the
// evidence e as Infer holds a family a kernel name chose: the ids f does
// not name, or names otherwise than the data, are Conflicts, and Fits the
// family they fit. Under FamilyNone (the schema's own tables) the
// conflicts are the ids only families name.
func Given(f abi.Family, from string, e Evidence) Decision {
	ids := slices.Clone(e.DescIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	d := Decision{Family: f, From: from}
	for _, id := range ids {
		if conflicts(f, id, e.StageNames) {
			d.Conflicts = append(d.Conflicts, id)
		}
	}
	d.Fits = fits(f, d.Conflicts, e)
	return d
}

// fits is the family the evidence e fits when the chosen family f
// leaves ids (conflicts) unnamed: what Infer chooses from the ids and
// names alone, when that is not f.
func fits(f abi.Family, conflicts []uint32, e Evidence) abi.Family {
	if len(conflicts) == 0 {
		return abi.FamilyNone
	}
	e.KernelName = ""
	if g := Infer(e).Family; g != f {
		return g
	}
	return abi.FamilyNone
}

// variants returns the families with no kernel names whose name starts
// with f's and that name every id of graph; none when graph is empty.
func variants(f abi.Family, graph []uint32) []abi.Family {
	if len(graph) == 0 {
		return nil
	}
	var out []abi.Family
	for _, g := range abi.Families() {
		if g == f || len(g.KernelNames()) > 0 || !strings.HasPrefix(g.String(), f.String()) {
			continue
		}
		all := true
		for _, id := range graph {
			if _, ok := g.DescSchemaName(id); !ok {
				all = false
				break
			}
		}
		if all {
			out = append(out, g)
		}
	}
	return out
}

// conflicts reports whether f cannot be the family of data holding id
// (named names[id] when names has it): the data names id otherwise than
// f does, or f leaves id unnamed where the schema or another family gives
// it a meaning (in the graph-stage namespace only when f names graph
// stages itself: other families' graph stages are named on the host).
func conflicts(f abi.Family, id uint32, names map[uint32]string) bool {
	own, ok := f.DescSchemaName(id)
	if ok {
		given, has := names[id]
		return has && given != own
	}
	ns, _ := abi.LookupDesc(id)
	switch ns {
	case abi.NamespaceNone:
		return false
	case abi.NamespaceGraphStage:
		for _, st := range f.Stages() {
			if n, _ := abi.LookupDesc(st.DescID); n == abi.NamespaceGraphStage {
				return true
			}
		}
		return false
	}
	if _, ok := abi.DescSchemaName(id); ok {
		return true
	}
	for _, g := range abi.Families() {
		if _, ok := g.DescSchemaName(id); ok && g != f {
			return true
		}
	}
	return false
}

// noneFits reports whether the schema's own tables name every id a
// family names, as the data names them (graph stages only when the data
// names one as a family does).
func noneFits(ids []uint32, names map[uint32]string) bool {
	for _, id := range ids {
		if own, ok := abi.DescSchemaName(id); ok {
			if given, has := names[id]; has && given != own {
				return false
			}
			continue
		}
		if ns, _ := abi.LookupDesc(id); ns == abi.NamespaceGraphStage {
			// A graph stage the data names as a family does is that
			// family's.
			for _, f := range abi.Families() {
				if given, has := names[id]; has && shows(f, id, names) && given != "" {
					return false
				}
			}
			continue
		}
		for _, f := range abi.Families() {
			if _, ok := f.DescSchemaName(id); ok {
				return false
			}
		}
	}
	return true
}

// shows reports whether id points to f: f names it otherwise than the
// schema's own tables do (a graph stage only when the data names it as f
// does).
func shows(f abi.Family, id uint32, names map[uint32]string) bool {
	own, ok := f.DescSchemaName(id)
	if !ok {
		return false
	}
	if ns, _ := abi.LookupDesc(id); ns == abi.NamespaceGraphStage {
		// Every kernel numbers its graph stages from the namespace's
		// base: an id alone says nothing, a name the data gives it does.
		return names[id] == own
	}
	base, ok := abi.DescSchemaName(id)
	return !ok || base != own || class(f, id) != class(abi.FamilyNone, id)
}

// class is what f makes a record of id: its stage's class, else none
// (the schema's rules, the same under every family, decide the rest).
func class(f abi.Family, id uint32) abi.StageClass {
	if st, ok := f.Stage(id); ok {
		return st.Class
	}
	return 0
}

// alike reports whether every family of fams names and classes every id
// as the first does: then which of them is chosen changes nothing.
func alike(fams []abi.Family, ids []uint32) bool {
	for _, f := range fams[1:] {
		for _, id := range ids {
			if f.DescName(id) != fams[0].DescName(id) || class(f, id) != class(fams[0], id) {
				return false
			}
		}
	}
	return true
}

// idList is "desc ids 0x10001, 0x10002, 0x10003, 0x10004 and 1 more".
func idList(ids []uint32) string {
	var b strings.Builder
	if len(ids) == 1 {
		b.WriteString("desc id ")
	} else {
		b.WriteString("desc ids ")
	}
	for i, id := range ids {
		if i == maxShown {
			fmt.Fprintf(&b, " and %d more", len(ids)-maxShown)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%#x", id)
	}
	return b.String()
}

// familyList is "MegaMoe, MegaMoeGrad".
func familyList(fams []abi.Family) string {
	names := make([]string, len(fams))
	for i, f := range fams {
		names[i] = f.String()
	}
	return strings.Join(names, ", ")
}

// Warning is the warning a decision calls for, naming the flag that
// decides it; "" when none is due. what names the data ("trace.json").
func (d Decision) Warning(what string) string {
	switch {
	case d.Ambiguous && d.NoneFits:
		return fmt.Sprintf("%s: %s mean otherwise under kernel families %s than under the schema's own table, which is used: give --kernel-family if the data is of one of them, or --kernel-family none if it is of the schema's own",
			what, idList(d.Shown), familyList(d.Candidates))
	case d.Ambiguous && len(d.Candidates) > 0:
		fit := "fit several"
		if d.NoFit {
			fit = "fit none fully"
		}
		return fmt.Sprintf("%s: the records' ids need a kernel family and %s; read under none (task-type and stage tables may be empty): give --kernel-family, one of %s",
			what, fit, familyList(d.Candidates))
	case len(d.Variants) > 0:
		return fmt.Sprintf("%s: graph stages %s have no name under kernel family %s (from the %s); %s name them (upstream's graph-driven builds): give --kernel-family if the data is of one of them",
			what, idList(d.Unnamed), d.Family, d.From, familyList(d.Variants))
	case len(d.Conflicts) > 0:
		advice := "give --kernel-family if the data is of another family"
		if d.Fits != abi.FamilyNone {
			advice = fmt.Sprintf("they are kernel family %s's: give --kernel-family %s", d.Fits, d.Fits)
		}
		if d.Family == abi.FamilyNone {
			return fmt.Sprintf("%s: the schema's own tables (no kernel family, from the %s) do not name %s: %s",
				what, d.From, idList(d.Conflicts), advice)
		}
		return fmt.Sprintf("%s: kernel family %s (from the %s) does not name %s: %s",
			what, d.Family, d.From, idList(d.Conflicts), advice)
	}
	return ""
}

// Note says what the family was inferred from; "" when nothing chose one
// or a kernel name did (the user named it).
func (d Decision) Note(what string) string {
	if d.Family == abi.FamilyNone || strings.HasPrefix(d.From, "kernel name") {
		return ""
	}
	return fmt.Sprintf("%s: read under kernel family %s, inferred from %s; --kernel-family overrides", what, d.Family, d.From)
}
