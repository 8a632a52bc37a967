// Package schema loads abi/schema.yaml into a validated model of the
// cycle-trace ABI. Every emitter (Go, C++, docs) and every comparison
// (abigen diff) works from this model, never from the YAML.
//
// Load reports every problem it finds, each with the file, line, column and
// YAML path, and returns a model only when there is none: an emitter never
// sees a schema whose offsets, sizes or ranges disagree.
package schema

import "strings"

// Pos is a position in the schema file (1-based line and column).
type Pos struct {
	Line, Col int
}

// Schema is the validated ABI.
type Schema struct {
	// File is the path the schema was read from, as given to Load.
	File string
	// Release is the version of cycleabi generating from the schema
	// (package buildinfo's, "0.5.0"), which every generated file's banner
	// names and the Python module holds as __version__; abigen sets it,
	// Load leaves it empty and an empty Release is named nowhere.
	Release string
	// Version is the ABI version; raised on every breaking change.
	Version    uint32
	VersionPos Pos
	// Constants are the literal constants in schema order, followed by the
	// derived ones (Derived != "").
	Constants   []*Constant
	Enums       []*Enum
	Structs     []*Struct
	Layout      *Layout
	Descriptors *Descriptors
	SoCs        []*SoC
	// Families are the kernel families, in schema order (none when the
	// schema has no families section).
	Families []*Family
	// Fingerprint is the first 8 bytes (big-endian) of the SHA-256 of
	// Canonical(), the buffer layout: a changed fingerprint means a
	// breaking change on the wire.
	Fingerprint uint64
}

// Constant is a named number both sides agree on.
type Constant struct {
	Name  string
	Value uint64
	Doc   string
	// Derived, when not empty, is the formula the value was computed from;
	// such a constant does not appear in the YAML.
	Derived string
	Pos     Pos
}

// Enum is a set of named u32 values.
type Enum struct {
	Name   string
	Doc    string
	Values []*EnumValue
	Pos    Pos
}

// EnumValue is one member of an Enum.
type EnumValue struct {
	Name  string
	Value uint32
	Doc   string
	Pos   Pos
}

// Value returns the member named name, or nil.
func (e *Enum) Value(name string) *EnumValue {
	for _, v := range e.Values {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// FieldType is the wire type of a struct field.
type FieldType string

// The field types a schema may use.
const (
	U8  FieldType = "u8"
	U16 FieldType = "u16"
	U32 FieldType = "u32"
	U64 FieldType = "u64"
	Pad FieldType = "pad"
)

// Width returns the byte width of an integer type, 0 for Pad.
func (t FieldType) Width() int {
	switch t {
	case U8:
		return 1
	case U16:
		return 2
	case U32:
		return 4
	case U64:
		return 8
	}
	return 0
}

// Struct is a fixed-size, little-endian wire struct with no implicit padding.
type Struct struct {
	Name   string
	Doc    string
	Size   int
	Fields []*Field
	Pos    Pos
}

// Field returns the field named name, or nil.
func (s *Struct) Field(name string) *Field {
	for _, f := range s.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Field is one member of a Struct. Offset and Size are in bytes.
type Field struct {
	Name   string
	Type   FieldType
	Offset int
	Size   int
	Doc    string
	// Zero: a live value must be 0.
	Zero bool
	// Enum: the value names a member of this enum (nil when unconstrained).
	Enum *Enum
	// MinField / MaxField: the value must be >= / <= that field's value.
	MinField *Field
	MaxField *Field
	// WarnNonzero (pad fields): nonzero bytes deserve a warning.
	WarnNonzero bool
	Pos         Pos
}

// End is the offset of the first byte after the field.
func (f *Field) End() int { return f.Offset + f.Size }

// Layout describes how slots are arranged in the profiling buffer.
type Layout struct {
	Header *Struct
	Record *Struct
	// Alignment, MinCubeSlots and StrideLimit are the constants the layout
	// depends on.
	Alignment    *Constant
	MinCubeSlots *Constant
	StrideLimit  *Constant
	// MaxRecordsPerCore is the derived constant (also in Schema.Constants).
	MaxRecordsPerCore *Constant
	// CoreTypes is the enum the header's core_type field and the regions use.
	CoreTypes *Enum
	// Regions in buffer order.
	Regions []*Region
	Pos     Pos
}

// Region is a run of slots of one core type: SlotsPerCubeSlot*C slots.
type Region struct {
	CoreType         *EnumValue
	SlotsPerCubeSlot int
	Doc              string
	Pos              Pos
}

// Descriptors are the descriptor-ID namespaces.
type Descriptors struct {
	// Unknown formats a desc_id that falls in no namespace ({desc_id}).
	Unknown    string
	Namespaces []*Namespace
	Pos        Pos
}

// Namespace is the range [Base, Base+Count) of descriptor IDs.
type Namespace struct {
	Name  string
	Base  uint32
	Count uint32
	// Enum, when set, names the range's indexes after the enum's values.
	Enum *Enum
	// Display formats a named index ({name}, {index}, {desc_id});
	// Fallback an unnamed one ({index}, {desc_id}).
	Display  string
	Fallback string
	// Arg is the trace-event argument carrying the index ("" = none).
	Arg   string
	Doc   string
	Names []*DescName
	Pos   Pos
}

// End is the first descriptor ID after the namespace (as uint64: it may be 2^32).
func (n *Namespace) End() uint64 { return uint64(n.Base) + uint64(n.Count) }

// DescName is a named index inside a namespace.
type DescName struct {
	Index uint32
	Name  string
	// TaskStagePrefix: the display name is prefixed by the task's stage name.
	TaskStagePrefix bool
	Doc             string
	Pos             Pos
}

// SoC maps a normalised SoC-name prefix to its system-counter frequency.
type SoC struct {
	Prefix string
	MHz    float64
	Doc    string
	Pos    Pos
}

// Constant returns the constant named name, or nil.
// License is the SPDX expression of the licence of cycleabi and of every
// file generated from its schema.
const License = "Apache-2.0"

// Banner is the opening of every generated file, a line each, for the
// emitters to put in their language's comments: that abigen generated it
// (with its Release, when set) from File and is not to be edited, then
// its licence as an SPDX line.
//
//	Code generated by abigen 0.5.0 from abi/schema.yaml; DO NOT EDIT.
//	SPDX-License-Identifier: Apache-2.0
func (s *Schema) Banner() [2]string {
	by := "abigen"
	if s.Release != "" {
		by += " " + s.Release
	}
	return [2]string{
		"Code generated by " + by + " from " + s.File + "; DO NOT EDIT.",
		"SPDX-License-Identifier: " + License,
	}
}

func (s *Schema) Constant(name string) *Constant {
	for _, c := range s.Constants {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Enum returns the enum named name, or nil.
func (s *Schema) Enum(name string) *Enum {
	for _, e := range s.Enums {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Struct returns the struct named name, or nil.
func (s *Schema) Struct(name string) *Struct {
	for _, st := range s.Structs {
		if st.Name == name {
			return st
		}
	}
	return nil
}

// StageClass is what a kernel-specific stage record is: the time a task
// computes, waits on its dependent event, or signals its trigger event.
// Analysis counts a record's cycles under its class.
type StageClass string

// The stage classes a family may give a stage.
const (
	ClassCompute StageClass = "compute"
	ClassWait    StageClass = "wait"
	ClassTrigger StageClass = "trigger"
)

// StageClasses are the classes in the order the generated code numbers them.
var StageClasses = []StageClass{ClassCompute, ClassWait, ClassTrigger}

// Family is a kernel family: the kernels that share one task-type table and
// one set of kernel-specific stage ids, as the upstream project defines them
// per kernel (task ids >= 107 mean different things in MoE, MHC and Gate
// kernels). A capture is read under at most one family; without one the
// TaskType enum and the namespaces' names apply.
type Family struct {
	Name string
	// KernelNames are the kernel names that select the family, as the
	// upstream builder spells them; compared case-insensitively and
	// ignoring '_' (KernelKey). May be empty: the family is then chosen
	// only by its name.
	KernelNames []string
	// OwnerLabel prefixes owner ids in detailed event names ("Expert");
	// "" when upstream gives the family none.
	OwnerLabel string
	// Upstream names the upstream files and commits the tables follow.
	Upstream string
	Doc      string
	// TaskTypes is the family's whole task-type table: under the family
	// it replaces the names the task-type namespace takes from its enum.
	TaskTypes []*FamilyTaskType
	// Stages are the family's kernel-specific descriptor ids.
	Stages []*FamilyStage
	Pos    Pos
}

// FamilyTaskType names one task-type value under a family.
type FamilyTaskType struct {
	Value uint32
	Name  string
	Doc   string
	Pos   Pos
}

// FamilyStage is a kernel-specific descriptor id of a family.
type FamilyStage struct {
	DescID uint32
	Name   string
	Class  StageClass
	// Namespace is the namespace DescID falls in.
	Namespace *Namespace
	// TaskType is the task type whose records carry the stage; nil when
	// the family does not say.
	TaskType *FamilyTaskType
	Doc      string
	Pos      Pos
}

// EarlierNamed reports whether a stage before st in f's list has st's
// name (in another namespace: the loader refuses a name twice in one), as
// the graph-driven MegaMoe's Dispatch (0x30000) shares the older Dispatch's
// (0x10001). The C++ emitter names such a stage after its namespace.
func (f *Family) EarlierNamed(st *FamilyStage) bool {
	for _, e := range f.Stages {
		if e == st {
			return false
		}
		if e.Name == st.Name {
			return true
		}
	}
	return false
}

// KernelKey is how kernel names are compared: lower case, without '_', so
// that MegaMoe, megamoe and mega_moe select the same family.
func KernelKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "_", ""))
}

// Family returns the family named name, or nil.
func (s *Schema) Family(name string) *Family {
	for _, f := range s.Families {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// TaskTypeNamespace is the namespace a family's task types name: the one
// named after an enum (TaskType); nil when there is none.
func (d *Descriptors) TaskTypeNamespace() *Namespace {
	if d == nil {
		return nil
	}
	for _, ns := range d.Namespaces {
		if ns.Enum != nil {
			return ns
		}
	}
	return nil
}
