package chromejson

import (
	"slices"
	"strconv"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsontext"
)

// entryKey is `,"core_entry_cycle":`, rendered once per slot with its value.
var entryKey = func() []byte {
	for _, st := range argPlan {
		if st.kind == render.ArgEntryCycle {
			return st.key
		}
	}
	return nil
}()

// argStep is one arg of the args plan: its `,"name":` rendered, and where
// the value comes from.
type argStep struct {
	key   []byte
	kind  render.ArgKind
	field abi.FieldInfo // render.ArgExtra: the record field shown
}

// recordArgs are the args a record shows after the slot's, the display
// table of every writer (render.RecordArgs).
var recordArgs = render.RecordArgs()

// argPlan is the rendered recordArgs followed by the record fields they
// do not show; argPlanExtra says whether there are any such fields.
var argPlan, argPlanExtra = buildArgPlan(recordArgs, abi.ProfileRecordFields())

// buildArgPlan renders the keys of args, then of the fields of a record
// struct args do not show (render.ExtraFields).
func buildArgPlan(args []render.RecordArg, fields []abi.FieldInfo) ([]argStep, bool) {
	var plan []argStep
	for _, a := range args {
		st := argStep{kind: a.Kind}
		if a.Kind != render.ArgNamespaceIndex {
			st.key = jsontext.AppendString([]byte{','}, a.Name)
			st.key = append(st.key, ':')
		}
		plan = append(plan, st)
	}
	extra := render.ExtraFields(fields)
	for _, f := range extra {
		key := jsontext.AppendString([]byte{','}, f.Name)
		plan = append(plan, argStep{key: append(key, ':'), kind: render.ArgExtra, field: f})
	}
	return slices.Clip(plan), len(extra) > 0
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
