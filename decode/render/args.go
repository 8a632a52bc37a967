package render

import (
	"slices"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// recordArgs is how a record shows in its trace event's args, after the
// slot's rank, device_id, core_type and block_id: the trace's display
// choices, declared once. Every field of the record struct the table does
// not show follows, under its schema name, in wire order, so a field added
// to the schema reaches the trace without an edit here.
var recordArgs = []RecordArg{
	{"task_id", ArgTaskID},
	{"desc_id", ArgDescID},
	{"stage_task_index", ArgStageTaskIndex},
	{"task_number", ArgTaskNumber},        // stage_task_index + 1, the task's number in its stage
	{"start_cycle", ArgStartCycle},        //
	{"end_cycle", ArgEndCycle},            //
	{"core_entry_cycle", ArgEntryCycle},   // the core header's entry_cycle
	{"task_stage", ArgTaskStage},          // the task's stage in the names file; absent without one
	{NamespaceArgName, ArgNamespaceIndex}, // "task_type": N, "graph_stage": N; absent for other namespaces
	{"owner_id", ArgOwnerID},              // absent when it is InvalidOwnerID
}

// NamespaceArgName stands for the name of the desc_id's namespace's arg
// (abi.Namespace.Arg) in RecordArgs.
const NamespaceArgName = "{namespace arg}"

// RecordArg is one entry of RecordArgs: an arg's name and where its value
// comes from.
type RecordArg struct {
	Name string
	Kind ArgKind
}

// ArgKind says where an arg's value comes from.
type ArgKind uint8

// The kinds of args. The first six show the record fields the schema
// loader requires of every record (abi's layout roles); ArgExtra any other
// field.
const (
	ArgTaskID ArgKind = iota
	ArgDescID
	ArgStageTaskIndex
	ArgStartCycle
	ArgEndCycle
	ArgOwnerID
	ArgTaskNumber
	ArgEntryCycle
	ArgTaskStage
	ArgNamespaceIndex
	ArgExtra
)

// fieldArgs are the kinds that show a record field as it is, by field name.
var fieldArgs = map[string]ArgKind{
	"task_id":          ArgTaskID,
	"desc_id":          ArgDescID,
	"stage_task_index": ArgStageTaskIndex,
	"start_cycle":      ArgStartCycle,
	"end_cycle":        ArgEndCycle,
	"owner_id":         ArgOwnerID,
}

// RecordArgs returns the args a record's event shows after the slot's, in
// trace order: the display table every writer follows. The record fields
// it does not show follow them (ExtraArgFields).
func RecordArgs() []RecordArg { return slices.Clone(recordArgs) }

// ExtraFields returns the fields of a record struct that RecordArgs does
// not show, in the order given, pad fields left out: each is an arg of its
// own, under its schema name.
func ExtraFields(fields []abi.FieldInfo) []abi.FieldInfo {
	var extra []abi.FieldInfo
	for _, f := range fields {
		if _, shown := fieldArgs[f.Name]; shown || f.Type == "pad" {
			continue
		}
		extra = append(extra, f)
	}
	return extra
}

// ExtraArgFields are the record fields RecordArgs does not name, in wire
// order: a field the schema adds is an arg of every event, of any format.
func ExtraArgFields() []abi.FieldInfo { return ExtraFields(abi.ProfileRecordFields()) }

// RecordArgNames returns the names of a record's args in trace order, after
// the slot's: with every optional arg present, NamespaceArgName standing
// for the namespace's arg name.
func RecordArgNames() []string {
	var names []string
	for _, a := range recordArgs {
		names = append(names, a.Name)
	}
	for _, f := range ExtraArgFields() {
		names = append(names, f.Name)
	}
	return names
}
