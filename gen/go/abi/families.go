package abi

// This file is hand-written: choosing a kernel family and naming and
// classifying descriptor ids under it, over the generated family table
// (families, in families_gen.go).

import (
	"strconv"
	"strings"
)

// Family is a kernel family: kernels that share one task-type table and one
// set of kernel-specific stage ids (upstream gives task types >= 107 and
// stage ids such as 0x10001 a different meaning in MoE, MHC and Gate
// kernels). FamilyNone reads ids with the schema's own tables.
type Family uint8

// StageClass is what a family's stage record is: a task's compute, its wait
// on its dependent event, or the signal of its trigger event.
type StageClass uint8

// The stage classes; the zero StageClass is none (an id no family stage names).
const (
	StageCompute StageClass = iota + 1
	StageWait
	StageTrigger
)

// String returns "compute", "wait" or "trigger", and "none" for the zero class.
func (c StageClass) String() string {
	switch c {
	case StageCompute:
		return "compute"
	case StageWait:
		return "wait"
	case StageTrigger:
		return "trigger"
	}
	return "none"
}

// FamilyStage is one kernel-specific descriptor id of a family.
type FamilyStage struct {
	// DescID is the id records carry; Name its display name (formatted
	// with its namespace's display format, as a names-file name is).
	DescID uint32
	Name   string
	// Class is what the stage's records are.
	Class StageClass
	// TaskType is the task type whose records carry the stage, when
	// HasTaskType says the family gives one.
	TaskType    uint32
	HasTaskType bool
}

// familySpec is one row of the generated family table.
type familySpec struct {
	name        string
	kernelNames []string
	ownerLabel  string
	upstream    string
	taskTypes   []familyTaskType
	stages      []FamilyStage
}

// familyTaskType names one task-type value under a family.
type familyTaskType struct {
	value uint32
	name  string
}

// familyIndex is what the lookups need of one family, built once.
type familyIndex struct {
	taskTypes map[uint32]string
	stages    map[uint32]int // desc_id -> index in spec.stages
}

var familyIndexes = func() []familyIndex {
	out := make([]familyIndex, len(families))
	for i := range families {
		s := &families[i]
		ix := familyIndex{taskTypes: map[uint32]string{}, stages: map[uint32]int{}}
		for _, t := range s.taskTypes {
			ix.taskTypes[t.value] = t.name
		}
		for j, st := range s.stages {
			ix.stages[st.DescID] = j
		}
		out[i] = ix
	}
	return out
}()

// spec returns f's row of the table; nil for FamilyNone and values the
// schema does not name.
func (f Family) spec() *familySpec {
	if f == FamilyNone || int(f) > len(families) {
		return nil
	}
	return &families[f-1]
}

// Families returns every family in schema order (not FamilyNone).
func Families() []Family {
	out := make([]Family, len(families))
	for i := range families {
		out[i] = Family(i + 1)
	}
	return out
}

// String returns the family's schema name ("MegaMoe"), "None" for FamilyNone
// and "Family(9)" for a value the schema does not name.
func (f Family) String() string {
	if f == FamilyNone {
		return "None"
	}
	if s := f.spec(); s != nil {
		return s.name
	}
	return "Family(" + strconv.Itoa(int(f)) + ")"
}

// Valid reports whether f is a family the schema defines.
func (f Family) Valid() bool { return f.spec() != nil }

// KernelNames returns the kernel names that select f (FamilyForKernel).
func (f Family) KernelNames() []string {
	if s := f.spec(); s != nil {
		return append([]string(nil), s.kernelNames...)
	}
	return nil
}

// OwnerLabel returns the label upstream prefixes owner ids with in f's
// detailed event names ("Expert"), or "" when f has none.
func (f Family) OwnerLabel() string {
	if s := f.spec(); s != nil {
		return s.ownerLabel
	}
	return ""
}

// Upstream returns the upstream files and commits f's tables follow.
func (f Family) Upstream() string {
	if s := f.spec(); s != nil {
		return s.upstream
	}
	return ""
}

// Stages returns f's kernel-specific stages in schema order.
func (f Family) Stages() []FamilyStage {
	if s := f.spec(); s != nil {
		return append([]FamilyStage(nil), s.stages...)
	}
	return nil
}

// Stage returns f's stage with desc_id id, and whether f has one.
func (f Family) Stage(id uint32) (FamilyStage, bool) {
	if s := f.spec(); s != nil {
		if j, ok := familyIndexes[f-1].stages[id]; ok {
			return s.stages[j], true
		}
	}
	return FamilyStage{}, false
}

// TaskTypeName returns the name of task type t: under a family its task
// table's (which replaces the enum's entirely: a value the family does not
// list has no name), under FamilyNone the enum member's.
func (f Family) TaskTypeName(t uint32) (string, bool) {
	if f == FamilyNone {
		return taskTypeEnumName(t)
	}
	if f.spec() == nil {
		return "", false
	}
	name, ok := familyIndexes[f-1].taskTypes[t]
	return name, ok
}

// ParseTaskType returns the task type named name under f: the value f's
// table gives it (under MegaMoe, "ShmemGetMem" is 107), or under FamilyNone
// the enum member's (141); false when f has no task type of that name.
func (f Family) ParseTaskType(name string) (uint32, bool) {
	if f == FamilyNone {
		if s := familyTaskTypeNamespace.spec(); s != nil {
			for _, d := range s.names {
				if d.name == name {
					return d.index, true
				}
			}
		}
		return 0, false
	}
	if s := f.spec(); s != nil {
		for _, t := range s.taskTypes {
			if t.name == name {
				return t.value, true
			}
		}
	}
	return 0, false
}

// TaskTypeNames returns the names of f's task types in table order (under
// FamilyNone the enum's members').
func (f Family) TaskTypeNames() []string {
	var out []string
	if f == FamilyNone {
		if s := familyTaskTypeNamespace.spec(); s != nil {
			for _, d := range s.names {
				out = append(out, d.name)
			}
		}
		return out
	}
	if s := f.spec(); s != nil {
		for _, t := range s.taskTypes {
			out = append(out, t.name)
		}
	}
	return out
}

// taskTypeEnumName names t after the enum the task-type namespace uses.
func taskTypeEnumName(t uint32) (string, bool) {
	s := familyTaskTypeNamespace.spec()
	if s == nil {
		return "", false
	}
	for _, d := range s.names {
		if d.index == t {
			return d.name, true
		}
	}
	return "", false
}

// DescSchemaName returns the display name of desc_id id under f, and
// whether f or the schema names it: f's stage name, or (in the task-type
// namespace) f's task-type name, in the namespace's display format; any
// other id as DescSchemaName names it. Under FamilyNone it is
// DescSchemaName.
func (f Family) DescSchemaName(id uint32) (string, bool) {
	if f == FamilyNone || f.spec() == nil {
		return DescSchemaName(id)
	}
	if st, ok := f.Stage(id); ok {
		ns, _ := LookupDesc(id)
		return FormatDisplay(ns, id, st.Name), true
	}
	if ns, index := LookupDesc(id); ns != NamespaceNone && ns == familyTaskTypeNamespace {
		name, ok := f.TaskTypeName(index)
		if !ok {
			return "", false
		}
		return FormatDisplay(ns, id, name), true
	}
	return DescSchemaName(id)
}

// DescName returns the display name of desc_id id under f: its name if f or
// the schema names it, else its namespace's fallback format.
func (f Family) DescName(id uint32) string {
	if name, ok := f.DescSchemaName(id); ok {
		return name
	}
	ns, _ := LookupDesc(id)
	return FormatFallback(ns, id)
}

// KernelKey is how kernel names are compared: lower case, without '_' and
// surrounding space, so MegaMoe, megamoe and Mega_Moe are one kernel.
func KernelKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "_", ""))
}

// FamilyForKernel returns the family whose kernel names include kernel
// (compared by KernelKey), and whether there is one. A trace's kernelName
// or --kernel-name chooses the family this way.
func FamilyForKernel(kernel string) (Family, bool) {
	key := KernelKey(kernel)
	if key == "" {
		return FamilyNone, false
	}
	for i := range families {
		for _, k := range families[i].kernelNames {
			if KernelKey(k) == key {
				return Family(i + 1), true
			}
		}
	}
	return FamilyNone, false
}

// FamilyByName returns the family named name, compared case-insensitively
// ("megamoe" is MegaMoe), and whether there is one.
func FamilyByName(name string) (Family, bool) {
	name = strings.TrimSpace(name)
	for i := range families {
		if strings.EqualFold(families[i].name, name) {
			return Family(i + 1), true
		}
	}
	return FamilyNone, false
}
