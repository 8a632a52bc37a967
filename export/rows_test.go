package export_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/export"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tables' rows as a Go reader sees them: parquet-go reads the files
// into these by their columns' names. They state the tables' schemas a
// second time, apart from the writer's: TestSchemas holds the two equal.

// Record is one row of the records table.
type Record struct {
	CoreType string `parquet:"core_type"`
	BlockID  uint32 `parquet:"block_id"`
	// ProfileRecord's fields are named by recordReadOptions.
	abi.ProfileRecord
	Name     string `parquet:"name"`
	Kind     string `parquet:"kind"`
	TaskType string `parquet:"task_type,optional"`
	Stage    string `parquet:"stage,optional"`
	StartNs  int64  `parquet:"start_ns"`
	EndNs    int64  `parquet:"end_ns"`
	Invocation
}

// Invocation is the invocation columns of every table.
type Invocation struct {
	InvocationID *int64 `parquet:"invocation_id,optional"`
	Step         *int64 `parquet:"step,optional"`
	Direction    string `parquet:"direction,optional"`
}

// Core is one row of the cores table.
type Core struct {
	CoreType      string `parquet:"core_type"`
	BlockID       uint32 `parquet:"block_id"`
	EntryCycle    uint64 `parquet:"entry_cycle"`
	EndCycle      uint64 `parquet:"end_cycle"`
	Records       uint64 `parquet:"records"`
	ComputeCycles uint64 `parquet:"compute_cycles"`
	WaitCycles    uint64 `parquet:"wait_cycles"`
	TriggerCycles uint64 `parquet:"trigger_cycles"`
	OtherCycles   uint64 `parquet:"other_cycles"`
	IdleCycles    uint64 `parquet:"idle_cycles"`
	Invocation
}

// Rank is one row of the ranks table.
type Rank struct {
	Capture        string            `parquet:"capture"`
	FrequencyMHz   float64           `parquet:"frequency_mhz"`
	AnchorCycle    uint64            `parquet:"anchor_cycle"`
	ABIVersion     int32             `parquet:"abi_version"`
	ABIFingerprint string            `parquet:"abi_fingerprint"`
	CubeSlots      uint32            `parquet:"cube_slots"`
	Capacities     map[string]uint32 `parquet:"capacities"`
	BufferBytes    uint64            `parquet:"buffer_bytes"`
	Records        uint64            `parquet:"records"`
	Dropped        uint64            `parquet:"dropped"`
	MakespanCycles uint64            `parquet:"makespan_cycles"`
	MakespanUs     float64           `parquet:"makespan_us"`
	SpanCycles     uint64            `parquet:"span_cycles"`
	ComputeCycles  uint64            `parquet:"compute_cycles"`
	WaitCycles     uint64            `parquet:"wait_cycles"`
	TriggerCycles  uint64            `parquet:"trigger_cycles"`
	OtherCycles    uint64            `parquet:"other_cycles"`
	IdleCycles     uint64            `parquet:"idle_cycles"`
	BusiestStage   string            `parquet:"busiest_stage"`
	Invocation
}

// recordTags name Record's ProfileRecord fields' columns after the
// schema's fields (abi.ProfileRecordFields, in wire order, which the
// generated struct's exported fields follow): a field added to
// abi/schema.yaml is read with no edit here.
func recordTags(t testing.TB) []*parquet.StructTagOption {
	t.Helper()
	var goFields []reflect.StructField
	rt := reflect.TypeFor[abi.ProfileRecord]()
	for i := range rt.NumField() {
		if f := rt.Field(i); f.IsExported() {
			goFields = append(goFields, f)
		}
	}
	var tags []*parquet.StructTagOption
	for _, f := range abi.ProfileRecordFields() {
		if f.Type == "pad" {
			continue
		}
		require.NotEqualf(t, len(goFields), len(tags), "abi.ProfileRecord's fields are not the schema's (at %s)", f.Name)
		require.Equalf(t, f.Size, int(goFields[len(tags)].Type.Size()), "abi.ProfileRecord's fields are not the schema's (at %s)", f.Name)
		tags = append(tags, &parquet.StructTagOption{ColumnPath: []string{goFields[len(tags)].Name}, StructTag: reflect.StructTag(`parquet:"` + f.Name + `"`)})
	}
	require.Len(t, tags, len(goFields), "abi.ProfileRecord")
	return tags
}

// recordReadOptions are what parquet.Read[Record] needs.
func recordReadOptions(t testing.TB) []parquet.ReaderOption {
	var opts []parquet.ReaderOption
	for _, tag := range recordTags(t) {
		opts = append(opts, tag)
	}
	return opts
}

// recordSchema is Record's schema, as parquet-go makes it.
func recordSchema(t testing.TB) *parquet.Schema {
	var opts []parquet.SchemaOption
	for _, tag := range recordTags(t) {
		opts = append(opts, tag)
	}
	return parquet.SchemaOf(new(Record), opts...)
}

// schemaText is a schema as parquet-go prints it, under the name the
// files give it.
func schemaText(s *parquet.Schema) string { return strings.TrimSpace(s.String()) }

// TestSchemas: each table's schema, as parquet-go reads it from the file,
// is the one its rows above state; the records table's columns are
// encoded and compressed as export's docs say (delta for cycles, ns and
// task ids, a dictionary for the few-valued columns, zstd for the
// invocation columns alone), with bounds in their statistics but for the
// strings.
func TestSchemas(t *testing.T) {
	step, dir := int64(1), "forward"
	out := exportTo(t, 0, &analyze.Invocation{ID: 4, Step: &step, Direction: &dir})
	for table, want := range map[string]*parquet.Schema{
		"records": recordSchema(t), "cores": parquet.SchemaOf(new(Core)), "ranks": parquet.SchemaOf(new(Rank)),
	} {
		_, pf := readRows[struct{}](t, filepath.Join(out, table, "rank=0/part-00000.parquet"))
		assert.Equalf(t, schemaText(want), schemaText(pf.Schema()), "the %s table's schema", table)
	}
	_, pf := readRows[struct{}](t, filepath.Join(out, "records/rank=0/part-00000.parquet"))
	// A column's encodings: its values', its dictionary's (PLAIN) and its
	// levels' (RLE, optional columns only).
	dict, optDict, deltaReq := "PLAIN,RLE_DICTIONARY", "PLAIN,RLE,RLE_DICTIONARY", "DELTA_BINARY_PACKED"
	want := map[string]string{
		"core_type": dict, "block_id": dict, "start_cycle": deltaReq, "end_cycle": deltaReq, "task_id": deltaReq,
		"desc_id": dict, "stage_task_index": dict, "owner_id": dict, "name": dict, "kind": dict,
		"task_type": optDict, "stage": optDict, "start_ns": deltaReq, "end_ns": deltaReq,
		"invocation_id": "PLAIN,RLE ZSTD", "step": "PLAIN,RLE ZSTD", "direction": optDict + " ZSTD",
	}
	// Any other field of the schema's record is written plain and
	// compressed: a field added to abi/schema.yaml is such a column.
	for _, f := range abi.ProfileRecordFields() {
		if _, known := want[f.Name]; !known && f.Type != "pad" {
			want[f.Name] = "PLAIN ZSTD"
		}
	}
	for _, c := range pf.Metadata().RowGroups[0].Columns {
		m := c.MetaData
		name := strings.Join(m.PathInSchema, ".")
		var encs []string
		for _, e := range m.Encoding {
			encs = append(encs, e.String())
		}
		got := strings.Join(encs, ",")
		if m.Codec != format.Uncompressed {
			got += " " + m.Codec.String()
		}
		assert.Equalf(t, want[name], got, "column %s", name)
		bounded := m.Statistics.MinValue != nil
		assert.NotEqualf(t, m.Type == format.ByteArray, bounded, "column %s: bounds %x..%x", name, m.Statistics.MinValue, m.Statistics.MaxValue)
	}
}

// exportTo exports the shipped example as rank r into a new folder.
func exportTo(t *testing.T, r uint32, inv *analyze.Invocation) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	w, err := export.Create(dir)
	require.NoError(t, err)
	_, err = w.Add(source(t, r, inv))
	require.NoError(t, err)
	require.NoError(t, w.Commit())
	return dir
}
