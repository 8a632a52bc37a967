package agreement_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func init() {
	decoders = append(decoders, decoder{"decode", checkDecode})
}

// checkDecode holds package decode to the manifest: Decode accepts the
// capture, Records yields exactly the manifest's records, each slot's in
// index order, the whole in trace order; and the trace chromejson.Write writes
// parses as JSON and has one "X" event per record whose args carry the
// record's fields exactly (cycles near 2^64 included) and the counts.
func checkDecode(t *testing.T, path string, data []byte, m *manifestCapture) {
	c, err := capture.FromBytes(path, data)
	require.NoError(t, err)
	planned := m.Capacities
	d, err := decode.Decode(c, capture.Request{CubeSlots: m.CubeSlots, Capacities: &planned})
	require.NoError(t, err, "Decode")
	assert.Equal(t, m.Records, d.Summary.Records, "Decode summary records, manifest")
	assert.Equal(t, m.Dropped, d.Summary.Dropped, "Decode summary dropped, manifest")

	got := map[string][]abi.ProfileRecord{}
	var prev *decode.Record
	n := 0
	err = d.Records(func(r decode.Record) bool {
		slot := fmt.Sprintf("%s/%d", r.CoreType, r.BlockID)
		assert.Equalf(t, slot, d.Slot(&r).String(), "record %d of", r.Index)
		if r.Index != len(got[slot]) {
			// Within one slot, trace order keeps record order only
			// when the slot's records are sorted; place by index.
			for len(got[slot]) <= r.Index {
				got[slot] = append(got[slot], abi.ProfileRecord{})
			}
			got[slot][r.Index] = r.ProfileRecord
		} else {
			got[slot] = append(got[slot], r.ProfileRecord)
		}
		if prev != nil {
			assert.Truef(t, traceOrdered(prev, &r), "record %s #%d (start %d) follows %s/%d #%d (start %d): not trace order", slot, r.Index, r.StartCycle, prev.CoreType, prev.BlockID, prev.Index, prev.StartCycle)
		}
		ms := m.slot(slot)
		require.NotNilf(t, ms, "record %s #%d: entry cycle, manifest slot %v", slot, r.Index, ms)
		assert.Equalf(t, ms.Header.EntryCycle, r.EntryCycle, "record %s #%d: entry cycle, manifest slot %v", slot, r.Index, ms)
		p := r
		prev = &p
		n++
		return true
	})
	require.NoError(t, err, "Records")
	assert.Equalf(t, m.Records, uint64(n), "Records yielded %d records, manifest", n)
	for _, ms := range m.Slots {
		g := got[ms.Name]
		if !assert.Truef(t, len(g) == len(ms.Records) && equalRecords(g, ms.Records), "%s records from decode differ", ms.Name) {
			t.Log(diffRecords(g, ms.Records))
		}
	}

	var trace bytes.Buffer
	in := render.Input{Decoded: d, Config: render.Config{FrequencyMHz: 50, KernelName: "Agreement", OwnerLabel: "Owner"}}
	require.NoError(t, chromejson.Write(&trace, []render.Input{in}, render.WriteOptions{}), "chromejson.Write")
	checkTrace(t, trace.Bytes(), m)
}

// traceOrdered reports whether b may follow a in trace order: by
// (start_cycle, core_type, block_id), ties in slot and record order.
func traceOrdered(a, b *decode.Record) bool {
	if a.StartCycle != b.StartCycle {
		return a.StartCycle < b.StartCycle
	}
	if a.CoreType != b.CoreType {
		return a.CoreType < b.CoreType
	}
	if a.BlockID != b.BlockID {
		return a.BlockID < b.BlockID
	}
	return a.Index < b.Index
}

func equalRecords(a, b []abi.ProfileRecord) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// checkTrace parses the trace JSON (numbers kept exact) and requires one
// "X" event per manifest record, carrying its fields, and the manifest's
// counts in megaKernelCycleTrace.
func checkTrace(t *testing.T, trace []byte, m *manifestCapture) {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Ph   string         `json:"ph"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
		Meta map[string]any `json:"megaKernelCycleTrace"`
	}
	dec := json.NewDecoder(bytes.NewReader(trace))
	dec.UseNumber() // cycles near 2^64 must survive exactly
	require.NoError(t, dec.Decode(&doc), "the trace is not JSON")
	assert.Equal(t, fmt.Sprint(m.Records), fmt.Sprint(doc.Meta["recordCount"]), "megaKernelCycleTrace recordCount, manifest")
	assert.Equal(t, fmt.Sprint(m.Dropped), fmt.Sprint(doc.Meta["droppedRecordCount"]), "megaKernelCycleTrace droppedRecordCount, manifest")

	want := map[string]int{}
	for _, s := range m.Slots {
		for _, r := range s.Records {
			want[recordKey(s.Name, r)]++
		}
	}
	events := 0
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		events++
		key, err := eventKey(e.Args)
		if !assert.NoErrorf(t, err, "X event args %v", e.Args) {
			continue
		}
		if !assert.NotEqualf(t, want[key], 0, "X event %s is no manifest record (or one too many)", key) {
			continue
		}
		want[key]--
	}
	assert.Equalf(t, m.Records, uint64(events), "the trace has %d X events, manifest", events)
	for k, n := range want {
		assert.LessOrEqualf(t, n, 0, "manifest record %s has no X event", k)
	}
}

func recordKey(slot string, r abi.ProfileRecord) string {
	return fmt.Sprintf("%s start=%d end=%d desc=%d task=%d index=%d owner=%d", slot, r.StartCycle, r.EndCycle, r.DescID,
		r.TaskID, r.StageTaskIndex, r.OwnerID)
}

// eventKey renders an X event's args as recordKey does; owner_id is absent
// for a record without owner.
func eventKey(args map[string]any) (string, error) {
	num := func(k string) (uint64, error) {
		v, ok := args[k].(json.Number)
		if !ok {
			return 0, fmt.Errorf("%s is %T, not a number", k, args[k])
		}
		return strconv.ParseUint(v.String(), 10, 64)
	}
	var r abi.ProfileRecord
	var err error
	u32 := func(k string, dst *uint32) {
		if err != nil {
			return
		}
		var v uint64
		if v, err = num(k); err == nil {
			if v > 0xFFFFFFFF {
				err = fmt.Errorf("%s=%d does not fit in 32 bits", k, v)
			}
			*dst = uint32(v)
		}
	}
	if r.StartCycle, err = num("start_cycle"); err != nil {
		return "", err
	}
	if r.EndCycle, err = num("end_cycle"); err != nil {
		return "", err
	}
	var block uint32
	u32("block_id", &block)
	u32("desc_id", &r.DescID)
	u32("task_id", &r.TaskID)
	u32("stage_task_index", &r.StageTaskIndex)
	r.OwnerID = abi.InvalidOwnerID
	if _, ok := args["owner_id"]; ok {
		u32("owner_id", &r.OwnerID)
	}
	if err != nil {
		return "", err
	}
	ct, _ := args["core_type"].(string)
	return recordKey(fmt.Sprintf("%s/%d", ct, block), r), nil
}
