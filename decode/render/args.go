package render

import (
	"slices"
	"strconv"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsontext"
)

// recordArgs is how a record shows in its trace event's args, after the
// slot's rank, device_id, core_type and block_id: the trace's display
// choices, declared once. Every field of the record struct the table does
// not show follows, under its schema name, in wire order, so a field added
// to the schema reaches the trace without an edit here.
var recordArgs = []recordArg{
	{"task_id", argTaskID},
	{"desc_id", argDescID},
	{"stage_task_index", argStageTaskIndex},
	{"task_number", argTaskNumber},        // stage_task_index + 1, the task's number in its stage
	{"start_cycle", argStartCycle},        //
	{"end_cycle", argEndCycle},            //
	{"core_entry_cycle", argEntryCycle},   // the core header's entry_cycle
	{"task_stage", argTaskStage},          // the task's stage in the names file; absent without one
	{namespaceArgName, argNamespaceIndex}, // "task_type": N, "graph_stage": N; absent for other namespaces
	{"owner_id", argOwnerID},              // absent when it is InvalidOwnerID
}

// entryKey is `,"core_entry_cycle":`, rendered once per slot with its value.
var entryKey = func() []byte {
	for _, st := range argPlan {
		if st.kind == argEntryCycle {
			return st.key
		}
	}
	return nil
}()

// namespaceArgName stands for the name of the desc_id's namespace's arg
// (abi.Namespace.Arg) in recordArgs.
const namespaceArgName = "{namespace arg}"

// recordArg is one entry of recordArgs: an arg's name and where its value
// comes from.
type recordArg struct {
	name string
	kind argKind
}

// argKind says where an arg's value comes from.
type argKind uint8

// The kinds of args. The first six show the record fields the schema
// loader requires of every record (abi's layout roles); argExtra any other
// field.
const (
	argTaskID argKind = iota
	argDescID
	argStageTaskIndex
	argStartCycle
	argEndCycle
	argOwnerID
	argTaskNumber
	argEntryCycle
	argTaskStage
	argNamespaceIndex
	argExtra
)

// fieldArgs are the kinds that show a record field as it is, by field name.
var fieldArgs = map[string]argKind{
	"task_id":          argTaskID,
	"desc_id":          argDescID,
	"stage_task_index": argStageTaskIndex,
	"start_cycle":      argStartCycle,
	"end_cycle":        argEndCycle,
	"owner_id":         argOwnerID,
}

// argStep is one arg of the args plan: its `,"name":` rendered, and where
// the value comes from.
type argStep struct {
	key   []byte
	kind  argKind
	field abi.FieldInfo // argExtra: the record field shown
}

// argPlan is the rendered recordArgs followed by the record fields it does
// not show; extra says whether there are any such fields.
var argPlan, argPlanExtra = buildArgPlan(recordArgs, abi.ProfileRecordFields())

func buildArgPlan(args []recordArg, fields []abi.FieldInfo) ([]argStep, bool) {
	var plan []argStep
	shown := map[string]bool{}
	for _, a := range args {
		st := argStep{kind: a.kind}
		if a.kind != argNamespaceIndex {
			st.key = jsontext.AppendString([]byte{','}, a.name)
			st.key = append(st.key, ':')
		}
		for name, k := range fieldArgs {
			if k == a.kind {
				shown[name] = true
			}
		}
		plan = append(plan, st)
	}
	extra := false
	for _, f := range fields {
		if f.Type == "pad" || shown[f.Name] {
			continue
		}
		key := jsontext.AppendString([]byte{','}, f.Name)
		plan = append(plan, argStep{key: append(key, ':'), kind: argExtra, field: f})
		extra = true
	}
	return slices.Clip(plan), extra
}

// RecordArgNames returns the names of a record's args in trace order, after
// the slot's: with every optional arg present, "{namespace arg}" standing
// for the namespace's arg name.
func RecordArgNames() []string {
	var names []string
	for _, st := range argPlan {
		if st.kind == argNamespaceIndex {
			names = append(names, namespaceArgName)
			continue
		}
		names = append(names, string(st.key[2:len(st.key)-2]))
	}
	return names
}

// appendExtraArgs appends the record fields recordArgs does not show, in
// wire order, read from the record's encoding.
func (r *renderer) appendExtraArgs(b []byte, rec *decode.Record) []byte {
	r.raw = rec.ProfileRecord.Append(r.raw[:0])
	for i := len(recordArgs); i < len(argPlan); i++ {
		st := &argPlan[i]
		b = append(b, st.key...)
		b = strconv.AppendUint(b, st.field.Value(r.raw), 10)
	}
	return b
}

// ExtraArgFields are the record fields recordArgs does not name, in wire
// order: a field the schema adds is an arg of every event, of any format.
func ExtraArgFields() []abi.FieldInfo {
	var fs []abi.FieldInfo
	for _, st := range argPlan[len(recordArgs):] {
		fs = append(fs, st.field)
	}
	return fs
}
