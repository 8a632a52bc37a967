// Package abidiff compares two validated cycle-trace ABI schemas and
// classifies every difference by what it breaks.
//
// The dangerous ABI change is the one that compiles on both sides but moves
// a byte: a device built from one schema writes buffers a host built from the
// other misreads. Compare reports every difference between two schemas (not
// the first) as a Change with a stable rule id, a category and the YAML
// locations on both sides, so `abigen diff` can refuse a breaking change
// that does not raise the ABI version.
//
// Categories:
//
//   - breaking-wire: the bytes mean something else (a size, offset, width or
//     type moved; a field, enum value, namespace or layout constant changed).
//     Every change of the fingerprint is breaking-wire: device builds stamp
//     the fingerprint, so a build and a decoder that disagree on it no longer
//     describe the same ABI, and one ABI version names exactly one fingerprint.
//   - breaking-display: the bytes are read the same but the trace shows them
//     differently (a stage or task-type renamed, a SoC frequency changed), so
//     traces and dashboards keyed on names break.
//   - compatible: additions and documentation (a new enum value, a new named
//     descriptor, a doc change, a new SoC, a new kernel family or a new
//     entry in one).
//
// Kernel families are display: renaming, removing or reclassifying what a
// family names is breaking-display, adding is compatible; none of it
// reaches the fingerprint.
package abidiff

import (
	"fmt"
	"slices"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// Category says what a change breaks.
type Category int

// The categories, most severe first.
const (
	BreakingWire Category = iota + 1
	BreakingDisplay
	Compatible
)

// String returns the category's name: "breaking-wire", "breaking-display"
// or "compatible".
func (c Category) String() string {
	switch c {
	case BreakingWire:
		return "breaking-wire"
	case BreakingDisplay:
		return "breaking-display"
	case Compatible:
		return "compatible"
	}
	return fmt.Sprintf("Category(%d)", int(c))
}

// MarshalText renders the category as its name ("breaking-wire").
func (c Category) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Breaking reports whether the category requires a version raise.
func (c Category) Breaking() bool { return c == BreakingWire || c == BreakingDisplay }

// Location is a place in a schema file. The zero Location means the side
// has no such element (it was added or removed).
type Location struct {
	File      string
	Line, Col int
}

// String renders the location as file:line:col, or "" when there is none.
func (l Location) String() string {
	if l.Line == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Col)
}

// MarshalText renders the location as file:line:col ("" when absent).
func (l Location) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// Change is one difference between two schemas.
type Change struct {
	// Rule is the stable id of the kind of change ("field-offset").
	Rule Rule `json:"rule"`
	// Category is the rule's category.
	Category Category `json:"category"`
	// Path names the schema element, in the YAML's own words
	// ("structs.CoreHeader.fields.record_count").
	Path string `json:"path"`
	// Message says what changed and what it means for the bytes or the trace.
	Message string `json:"message"`
	// Old and New locate the element on each side (zero when absent).
	Old Location `json:"old"`
	New Location `json:"new"`
}

// String renders the change on one line: category, rule, path and message.
func (c Change) String() string {
	return fmt.Sprintf("%s %s %s: %s", c.Category, c.Rule, c.Path, c.Message)
}

// Breaking reports whether any change is breaking (wire or display).
func Breaking(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Category.Breaking() })
}

// Rule is the stable id of a kind of change.
type Rule string

// The rules, grouped by category. Their ids are part of abigen's interface:
// scripts match on them.
const (
	// breaking-wire
	FingerprintChanged    Rule = "fingerprint-changed"
	VersionLowered        Rule = "version-lowered"
	StructRemoved         Rule = "struct-removed"
	StructSize            Rule = "struct-size"
	FieldOffset           Rule = "field-offset"
	FieldType             Rule = "field-type"
	FieldWidth            Rule = "field-width"
	FieldRemoved          Rule = "field-removed"
	FieldAdded            Rule = "field-added"
	PaddingReused         Rule = "padding-reused"
	FieldCheckAdded       Rule = "field-check-added"
	FieldCheckChanged     Rule = "field-check-changed"
	EnumRemoved           Rule = "enum-removed"
	EnumValueRenumbered   Rule = "enum-value-renumbered"
	EnumValueRemoved      Rule = "enum-value-removed"
	ConstantRemoved       Rule = "constant-removed"
	ConstantChanged       Rule = "constant-changed"
	LayoutConstantChanged Rule = "layout-constant-changed"
	LayoutStructChanged   Rule = "layout-struct-changed"
	RegionChanged         Rule = "region-changed"
	NamespaceMoved        Rule = "namespace-moved"
	NamespaceResized      Rule = "namespace-resized"
	NamespaceRemoved      Rule = "namespace-removed"

	// breaking-display
	FieldRenamed           Rule = "field-renamed"
	EnumValueRenamed       Rule = "enum-value-renamed"
	TaskTypeRenamed        Rule = "task-type-renamed"
	NamespaceRenamed       Rule = "namespace-renamed"
	NamespaceEnumChanged   Rule = "namespace-enum-changed"
	NamespaceFormatChanged Rule = "namespace-format-changed"
	StageRenamed           Rule = "stage-renamed"
	StageRemoved           Rule = "stage-removed"
	StagePrefixChanged     Rule = "stage-prefix-changed"
	SoCChanged             Rule = "soc-changed"
	SoCRemoved             Rule = "soc-removed"
	SoCShadowed            Rule = "soc-shadowed"
	FamilyRemoved          Rule = "family-removed"
	FamilyRenamed          Rule = "family-renamed"
	FamilyKernelRemoved    Rule = "family-kernel-removed"
	FamilyOwnerChanged     Rule = "family-owner-label-changed"
	FamilyTaskTypeRenamed  Rule = "family-task-type-renamed"
	FamilyTaskTypeRemoved  Rule = "family-task-type-removed"
	FamilyStageRenamed     Rule = "family-stage-renamed"
	FamilyStageRemoved     Rule = "family-stage-removed"
	FamilyStageReclassed   Rule = "family-stage-reclassified"
	FamilyStageTypeChanged Rule = "family-stage-task-type-changed"

	// compatible
	VersionRaised       Rule = "version-raised"
	StructAdded         Rule = "struct-added"
	EnumAdded           Rule = "enum-added"
	EnumValueAdded      Rule = "enum-value-added"
	ConstantAdded       Rule = "constant-added"
	NamespaceAdded      Rule = "namespace-added"
	StageAdded          Rule = "stage-added"
	SoCAdded            Rule = "soc-added"
	FamilyAdded         Rule = "family-added"
	FamilyKernelAdded   Rule = "family-kernel-added"
	FamilyTaskTypeAdded Rule = "family-task-type-added"
	FamilyStageAdded    Rule = "family-stage-added"
	FieldCheckRemoved   Rule = "field-check-removed"
	FieldWarningChanged Rule = "field-warning-changed"
	DocChanged          Rule = "doc-changed"
	OrderChanged        Rule = "order-changed"
)

// RuleInfo describes a rule for documentation.
type RuleInfo struct {
	Rule     Rule
	Category Category
	// What is the kind of change the rule reports.
	What string
}

// Rules lists every rule in report order (by category, then as declared).
var Rules = []RuleInfo{
	{FingerprintChanged, BreakingWire, "the fingerprint (hash of the canonical wire description) changed; accompanies every change that reaches the canonical description"},
	{VersionLowered, BreakingWire, "the ABI version went down"},
	{StructRemoved, BreakingWire, "a struct was removed"},
	{StructSize, BreakingWire, "a struct's size changed"},
	{FieldOffset, BreakingWire, "a field moved to another offset"},
	{FieldType, BreakingWire, "a field's type (and so its width) changed"},
	{FieldWidth, BreakingWire, "a pad field's size changed"},
	{FieldRemoved, BreakingWire, "a field was removed; its bytes lost their meaning"},
	{FieldAdded, BreakingWire, "a new field occupies bytes that were another field's or past the old end"},
	{PaddingReused, BreakingWire, "a new field occupies bytes that were padding"},
	{FieldCheckAdded, BreakingWire, "a field gained a validation check (zero, enum, min_field, max_field): buffers valid before may be rejected"},
	{FieldCheckChanged, BreakingWire, "a field's validation check now names another enum or field"},
	{EnumRemoved, BreakingWire, "an enum was removed"},
	{EnumValueRenumbered, BreakingWire, "an enum member kept its name but changed its number"},
	{EnumValueRemoved, BreakingWire, "an enum member was removed"},
	{ConstantRemoved, BreakingWire, "a constant was removed"},
	{ConstantChanged, BreakingWire, "a constant's value changed (one the layout does not depend on, e.g. InvalidOwnerID)"},
	{LayoutConstantChanged, BreakingWire, "a constant the layout depends on changed value, or the layout names another one (alignment, minimum cube slots, stride limit, MaxRecordsPerCore)"},
	{LayoutStructChanged, BreakingWire, "the layout's header or record is another struct"},
	{RegionChanged, BreakingWire, "a slot region changed core type or slot count, or was added or removed"},
	{NamespaceMoved, BreakingWire, "a descriptor namespace's base moved"},
	{NamespaceResized, BreakingWire, "a descriptor namespace's count changed"},
	{NamespaceRemoved, BreakingWire, "a descriptor namespace was removed"},

	{FieldRenamed, BreakingDisplay, "a field kept its bytes but changed its name (trace args and generated names follow it)"},
	{EnumValueRenamed, BreakingDisplay, "an enum member kept its number but changed its name"},
	{TaskTypeRenamed, BreakingDisplay, "a member of an enum that names descriptors (TaskType) was renamed: its descriptors display differently"},
	{NamespaceRenamed, BreakingDisplay, "a descriptor namespace kept its range but changed its name"},
	{NamespaceEnumChanged, BreakingDisplay, "a descriptor namespace takes its names from another enum (or none)"},
	{NamespaceFormatChanged, BreakingDisplay, "a display, fallback or unknown-id format, or a trace argument name, changed"},
	{StageRenamed, BreakingDisplay, "a named descriptor (stage) changed its name"},
	{StageRemoved, BreakingDisplay, "a named descriptor (stage) was removed; it now displays with the fallback"},
	{StagePrefixChanged, BreakingDisplay, "a named descriptor gained or lost its task-stage prefix"},
	{SoCChanged, BreakingDisplay, "a SoC's system-counter frequency changed: every timestamp for it moves"},
	{SoCRemoved, BreakingDisplay, "a SoC was removed: its traces no longer decode"},
	{SoCShadowed, BreakingDisplay, "a new SoC prefix takes names an existing prefix matched, at another frequency"},
	{FamilyRemoved, BreakingDisplay, "a kernel family was removed: its kernels' ids display with the schema's own tables, and --kernel-family refuses its name"},
	{FamilyRenamed, BreakingDisplay, "a kernel family kept its kernel names but changed its name: --kernel-family refuses the old one"},
	{FamilyKernelRemoved, BreakingDisplay, "a kernel name no longer selects its family: captures of that kernel lose the family's names and classes"},
	{FamilyOwnerChanged, BreakingDisplay, "a family's owner label changed: detailed event names change"},
	{FamilyTaskTypeRenamed, BreakingDisplay, "a family's task type kept its value but changed its name"},
	{FamilyTaskTypeRemoved, BreakingDisplay, "a family's task type was removed: it displays with the fallback under the family"},
	{FamilyStageRenamed, BreakingDisplay, "a family's stage kept its desc_id but changed its name"},
	{FamilyStageRemoved, BreakingDisplay, "a family's stage was removed: its desc_id displays as the schema names it, and analysis no longer counts it by its class"},
	{FamilyStageReclassed, BreakingDisplay, "a family's stage changed its class (compute, wait, trigger): analysis counts its cycles as another kind"},
	{FamilyStageTypeChanged, BreakingDisplay, "a family's stage names another task type (or none): analysis groups its cycles under another task type"},

	{VersionRaised, Compatible, "the ABI version went up"},
	{StructAdded, Compatible, "a struct was added"},
	{EnumAdded, Compatible, "an enum was added"},
	{EnumValueAdded, Compatible, "an enum member was added"},
	{ConstantAdded, Compatible, "a constant was added"},
	{NamespaceAdded, Compatible, "a descriptor namespace was added"},
	{StageAdded, Compatible, "a named descriptor (stage) was added"},
	{SoCAdded, Compatible, "a SoC was added"},
	{FamilyAdded, Compatible, "a kernel family was added (a kernel name it lists that selected none before now reads under it)"},
	{FamilyKernelAdded, Compatible, "a kernel name was added to a family"},
	{FamilyTaskTypeAdded, Compatible, "a task type was added to a family"},
	{FamilyStageAdded, Compatible, "a stage was added to a family"},
	{FieldCheckRemoved, Compatible, "a field lost a validation check: every buffer valid before stays valid"},
	{FieldWarningChanged, Compatible, "a pad field's warn_nonzero changed (a warning, never an error)"},
	{DocChanged, Compatible, "a doc string changed"},
	{OrderChanged, Compatible, "elements of a list were reordered (offsets and values unchanged)"},
}

var categoryOf = func() map[Rule]Category {
	m := make(map[Rule]Category, len(Rules))
	for _, r := range Rules {
		m[r.Rule] = r.Category
	}
	return m
}()

// Category returns the rule's category; an unknown rule is breaking-wire,
// the safe side.
func (r Rule) Category() Category {
	if c, ok := categoryOf[r]; ok {
		return c
	}
	return BreakingWire
}

// Compare returns every difference between old and new, breaking-wire
// first, then breaking-display, then compatible; within a category in
// schema order (version, fingerprint, constants, enums, structs, layout,
// descriptors, SoCs, families). The same pair of schemas always gives the same list.
func Compare(old, new *schema.Schema) []Change {
	c := &comparer{old: old, new: new}
	c.version()
	c.constants()
	c.enums()
	c.structs()
	c.layout()
	c.descriptors()
	c.socs()
	c.families()
	slices.SortStableFunc(c.changes, func(a, b Change) int { return int(a.Category) - int(b.Category) })
	return c.changes
}
