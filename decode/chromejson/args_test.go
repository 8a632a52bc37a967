package chromejson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// argKeys returns the args keys of every X event of a trace, in the order
// written.
func argKeys(t *testing.T, trace []byte) [][]string {
	t.Helper()
	var f struct {
		TraceEvents []struct {
			Ph   string          `json:"ph"`
			Args json.RawMessage `json:"args"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(trace, &f))
	var out [][]string
	for _, e := range f.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(e.Args))
		var keys []string
		_, err := d.Token()
		require.NoError(t, err)
		for d.More() {
			k, err := d.Token()
			require.NoError(t, err)
			keys = append(keys, k.(string))
			var v any
			require.NoError(t, d.Decode(&v))
		}
		out = append(out, keys)
	}
	return out
}

// TestArgsFollowRecordArgs: every event's args are the slot's four, then
// recordArgs' in its order (optional ones may be absent), and name every
// field of the record struct by its schema name, owner_id only when the
// record has an owner.
func TestArgsFollowRecordArgs(t *testing.T) {
	b, names := namingCapture()
	d, err := decodetest.Decode("naming.bin", b.Bytes(), capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
	require.NoError(t, err)
	cfg := decodetest.DefaultConfig()
	cfg.Names = names
	trace, err := traceOf(render.Input{Decoded: d, Config: cfg})
	require.NoError(t, err)
	events := argKeys(t, trace)
	require.NotEmpty(t, events, "no events")
	order := append([]string{"rank", "device_id", "core_type", "block_id"}, render.RecordArgNames()...)
	var nsArgs []string
	for _, ns := range abi.Namespaces() {
		if ns.Arg() != "" {
			nsArgs = append(nsArgs, ns.Arg())
		}
	}
	seenOptional := map[string]bool{}
	for i, keys := range events {
		next := 0
		for _, k := range keys {
			at := slices.IndexFunc(order[next:], func(o string) bool {
				return o == k || o == render.NamespaceArgName && slices.Contains(nsArgs, k)
			})
			require.GreaterOrEqualf(t, at, 0, "event %d: arg %q out of order in %v (want the order %v)", i, k, keys, order)
			next += at + 1
		}
		for _, f := range abi.ProfileRecordFields() {
			if f.Type == "pad" {
				continue
			}
			if !slices.Contains(keys, f.Name) {
				if f.Name == "owner_id" {
					seenOptional["no owner"] = true
					continue
				}
				assert.Fail(t, fmt.Sprintf("event %d: record field %s is not an arg: %v", i, f.Name, keys))
			}
		}
		for _, k := range keys {
			if k == "task_stage" || slices.Contains(nsArgs, k) || k == "owner_id" {
				seenOptional[k] = true
			}
		}
	}
	// The capture exercises every optional arg, present and absent.
	for _, k := range []string{"task_stage", "task_type", "graph_stage", "owner_id", "no owner"} {
		assert.Truef(t, seenOptional[k], "no event shows %s", k)
	}
}

// TestArgPlanAddsNewFields: a record field recordArgs does not show is an
// arg under its schema name, after recordArgs', read from the record's
// bytes little-endian; pad fields are not shown.
func TestArgPlanAddsNewFields(t *testing.T) {
	var want []string // the schema's fields recordArgs does not show
	for _, f := range abi.ProfileRecordFields() {
		shown := slices.ContainsFunc(recordArgs, func(a render.RecordArg) bool { return a.Name == f.Name })
		if !shown && f.Type != "pad" {
			want = append(want, `,"`+f.Name+`":`)
		}
	}
	assert.Equalf(t, (len(want) > 0), argPlanExtra, "argPlanExtra with extra fields %v", want)
	end := abi.ProfileRecordSize
	fields := append(abi.ProfileRecordFields(),
		abi.FieldInfo{Name: "stamp", Type: "u64", Offset: end, Size: 8},
		abi.FieldInfo{Name: "lane", Type: "u16", Offset: end + 8, Size: 2},
		abi.FieldInfo{Name: "tail", Type: "pad", Offset: end + 10, Size: 6})
	plan, extra := buildArgPlan(recordArgs, fields)
	require.True(t, extra, "no extra fields found")
	var keys []string
	for _, st := range plan[len(recordArgs):] {
		keys = append(keys, string(st.key))
	}
	want = append(want, `,"stamp":`, `,"lane":`)
	assert.Equal(t, strings.Join(want, ""), strings.Join(keys, ""), "extra args")
	raw := make([]byte, end+16)
	copy(raw[end:], []byte{1, 2, 3, 4, 5, 6, 7, 0x88, 0xCD, 0xAB})
	assert.Equal(t, uint64(0x8807060504030201), plan[len(plan)-2].field.Value(raw), "stamp")
	assert.Equal(t, uint64(0xABCD), plan[len(plan)-1].field.Value(raw), "lane")
}

// TestArgNamesUnique: no record field takes the name of another arg (a
// slot arg, a display-only arg or a namespace's arg): JSON objects with a
// repeated key lose one of the values in most readers.
func TestArgNamesUnique(t *testing.T) {
	names := append([]string{"rank", "device_id", "core_type", "block_id"}, render.RecordArgNames()...)
	for _, ns := range abi.Namespaces() {
		if ns.Arg() != "" {
			names = append(names, ns.Arg())
		}
	}
	seen := map[string]bool{}
	for _, n := range names {
		assert.Falsef(t, seen[n], "two args are named %q: rename the schema field or the display arg in recordArgs", n)
		seen[n] = true
	}
}

// interpretArgs renders a record's args after the slot's by walking
// argPlan, the plain reading of recordArgs that appendArgs unrolls.
func interpretArgs(rec *decode.Record, entryCycle uint64, stage string, hasStage bool, nsArg string, nsIndex uint32) []byte {
	var b []byte
	raw := rec.ProfileRecord.Append(nil)
	for _, st := range argPlan {
		switch st.kind {
		case render.ArgTaskID:
			b = strconv.AppendUint(append(b, st.key...), uint64(rec.TaskID), 10)
		case render.ArgDescID:
			b = strconv.AppendUint(append(b, st.key...), uint64(rec.DescID), 10)
		case render.ArgStageTaskIndex:
			b = strconv.AppendUint(append(b, st.key...), uint64(rec.StageTaskIndex), 10)
		case render.ArgTaskNumber:
			b = strconv.AppendUint(append(b, st.key...), uint64(rec.StageTaskIndex)+1, 10)
		case render.ArgStartCycle:
			b = strconv.AppendUint(append(b, st.key...), rec.StartCycle, 10)
		case render.ArgEndCycle:
			b = strconv.AppendUint(append(b, st.key...), rec.EndCycle, 10)
		case render.ArgEntryCycle:
			b = strconv.AppendUint(append(b, st.key...), entryCycle, 10)
		case render.ArgTaskStage:
			if hasStage {
				b = jsontext.AppendString(append(b, st.key...), stage)
			}
		case render.ArgNamespaceIndex:
			if nsArg != "" {
				b = append(jsontext.AppendString(append(b, ','), nsArg), ':')
				b = strconv.AppendUint(b, uint64(nsIndex), 10)
			}
		case render.ArgOwnerID:
			if rec.OwnerID != abi.InvalidOwnerID {
				b = strconv.AppendUint(append(b, st.key...), uint64(rec.OwnerID), 10)
			}
		case render.ArgExtra:
			b = strconv.AppendUint(append(b, st.key...), st.field.Value(raw), 10)
		}
	}
	return b
}

// TestAppendArgsFollowsTable: the unrolled appendArgs writes what walking
// recordArgs writes, for any record, stage and descriptor.
func TestAppendArgsFollowsTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rec := &decode.Record{ProfileRecord: abi.ProfileRecord{
			StartCycle:     rapid.Uint64().Draw(t, "start"),
			EndCycle:       rapid.Uint64().Draw(t, "end"),
			DescID:         rapid.SampledFrom([]uint32{abi.RuntimeStageWaitDependency, abi.TaskTypeBase + 103, abi.GraphStageBase + 7, 5, rapid.Uint32().Draw(t, "desc")}).Draw(t, "desc_id"),
			TaskID:         rapid.Uint32().Draw(t, "task"),
			StageTaskIndex: rapid.Uint32().Draw(t, "index"),
			OwnerID:        rapid.SampledFrom([]uint32{abi.InvalidOwnerID, 0, rapid.Uint32().Draw(t, "owner")}).Draw(t, "owner_id"),
		}}
		entry := rapid.Uint64().Draw(t, "entry")
		stage := rapid.String().Draw(t, "stage")
		hasStage := rapid.Bool().Draw(t, "has_stage")
		r := &renderer{cfg: &render.Config{}, descs: new([1 << descCacheBits]*descText), clock: newClock(50), place: &render.Placement{}}
		if hasStage {
			tn := kernelnames.TaskNamesOf(map[uint32]string{rec.TaskID: stage})
			r.tasks = newTaskStages(&tn)
		}
		r.slots = []slotText{{argsStart: newText("<args>" + string(argPlan[0].key)), entry: newText(string(strconv.AppendUint(slices.Clone(entryKey), entry, 10)))}}
		ns, index := abi.LookupDesc(rec.DescID)
		event := r.appendEvent(nil, rec)
		_, args, _ := bytes.Cut(event, []byte("<args>"))
		got, ok := bytes.CutSuffix(args, []byte("}}"))
		require.Truef(t, ok, "event %s does not end the args", event)
		want := interpretArgs(rec, entry, stage, hasStage, ns.Arg(), index)
		require.Equal(t, []byte(want), []byte(got), "appendArgs")
	})
}
