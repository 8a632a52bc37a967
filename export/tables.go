package export

import (
	"fmt"

	"github.com/megakernel/cycleabi/export/internal/pq"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// The tables' columns, in file order. Every column has its bounds (least
// and greatest value) and null count in each row group's statistics but
// the records table's strings: finding their bounds compares every value,
// and a row group of records in trace order holds nearly every name,
// kind and core, so that no engine could skip one by its bounds.
var (
	u32 = pq.Column{Type: pq.Int, Bits: 32, Bounds: true, Compress: true}
	u64 = pq.Column{Type: pq.Int, Bits: 64, Bounds: true, Compress: true}
	i64 = pq.Column{Type: pq.Int, Bits: 64, Signed: true, Bounds: true, Compress: true}
	f64 = pq.Column{Type: pq.Double, Bounds: true, Compress: true}
	str = pq.Column{Type: pq.String, Bounds: true, Compress: true}
)

// named returns c named name, with the changes in opts applied.
func named(name string, c pq.Column, opts ...func(*pq.Column)) pq.Column {
	c.Name = name
	for _, o := range opts {
		o(&c)
	}
	return c
}

func dict(c *pq.Column)         { c.Encoding = pq.Dict }
func delta(c *pq.Column)        { c.Encoding = pq.Delta }
func optional(c *pq.Column)     { c.Optional = true }
func uncompressed(c *pq.Column) { c.Compress = false }
func unbounded(c *pq.Column)    { c.Bounds = false }

// invocationColumns label the rows of a capture that is one launch of a
// window: its invocation id, step and direction (forward or backward),
// null for a rank's only capture.
var invocationColumns = []pq.Column{
	named("invocation_id", i64, optional),
	named("step", i64, optional),
	named("direction", str, dict, optional),
}

// recordEncodings are the encodings of the record fields the schema loader
// requires of every record (abi's layout roles), chosen by measuring the
// 256 MB benchmark capture (docs/performance.md): delta for the cycles,
// which rise through trace order, and for task ids, which stay near the
// previous record's; a dictionary for the few-valued descriptors, owners
// and indexes within a stage. Their pages are not compressed: zstd found
// nothing more to take out of them. Any other field of the schema's record
// is written plain and compressed, as nothing is known of its values.
var recordEncodings = map[string]pq.Encoding{
	"start_cycle":      pq.Delta,
	"end_cycle":        pq.Delta,
	"task_id":          pq.Delta,
	"desc_id":          pq.Dict,
	"stage_task_index": pq.Dict,
	"owner_id":         pq.Dict,
}

// recordField is a field of the schema's record as a column: where its
// value is in the record's wire bytes.
type recordField struct {
	offset, size int
}

// recordsSchema is the records table's: one row per record, its core, its
// fields under their schema names (a field added to abi/schema.yaml is a
// column with no edit here), its labels (as analyze groups it), its times
// in ns from the rank's anchor, and its invocation.
func recordsSchema() (*pq.Schema, []recordField, error) {
	cols := []pq.Column{
		named("core_type", str, dict, uncompressed, unbounded),
		named("block_id", u32, dict, uncompressed),
	}
	var fields []recordField
	for _, f := range abi.ProfileRecordFields() {
		if f.Type == "pad" {
			continue
		}
		if f.Size != 1 && f.Size != 2 && f.Size != 4 && f.Size != 8 {
			return nil, nil, fmt.Errorf("export: the record's field %s is %d bytes, not an integer", f.Name, f.Size)
		}
		c := named(f.Name, u64)
		c.Bits = 8 * f.Size
		if enc, ok := recordEncodings[f.Name]; ok {
			c.Encoding, c.Compress = enc, false
		}
		cols = append(cols, c)
		fields = append(fields, recordField{f.Offset, f.Size})
	}
	cols = append(cols,
		named("name", str, dict, uncompressed, unbounded),
		named("kind", str, dict, uncompressed, unbounded),
		// Set for compute records; stage for compute and wait records
		// (for a wait: the stage of the waiting task).
		named("task_type", str, dict, optional, uncompressed, unbounded),
		named("stage", str, dict, optional, uncompressed, unbounded),
		named("start_ns", i64, delta, uncompressed),
		named("end_ns", i64, delta, uncompressed),
		named("invocation_id", i64, optional),
		named("step", i64, optional),
		named("direction", str, dict, optional, unbounded),
	)
	s, err := pq.NewSchema("Record", cols...)
	return s, fields, err
}

// coresSchema is the cores table's: one row per entered core, where its
// time went in cycles, as analyze reports it.
var coresSchema = mustSchema("Core", append([]pq.Column{
	named("core_type", str, dict),
	named("block_id", u32),
	named("entry_cycle", u64),
	named("end_cycle", u64),
	named("records", u64),
	named("compute_cycles", u64),
	named("wait_cycles", u64),
	named("trigger_cycles", u64),
	named("other_cycles", u64),
	named("idle_cycles", u64),
}, invocationColumns...)...)

// ranksSchema is the ranks table's: one row per capture, its facts and
// totals. capacities are the record capacities by core type;
// busiest_stage is the stage with the most compute cycles ("" when the
// capture has no compute record).
var ranksSchema = mustSchema("Rank", append([]pq.Column{
	named("capture", str),
	named("frequency_mhz", f64),
	named("anchor_cycle", u64),
	named("abi_version", pq.Column{Type: pq.Int, Bits: 32, Signed: true, Bounds: true, Compress: true}),
	named("abi_fingerprint", str),
	named("cube_slots", u32),
	named("capacities", pq.Column{Type: pq.Map, Value: &u32, Bounds: true, Compress: true}),
	named("buffer_bytes", u64),
	named("records", u64),
	named("dropped", u64),
	named("makespan_cycles", u64),
	named("makespan_us", f64),
	named("span_cycles", u64),
	named("compute_cycles", u64),
	named("wait_cycles", u64),
	named("trigger_cycles", u64),
	named("other_cycles", u64),
	named("idle_cycles", u64),
	named("busiest_stage", str),
}, invocationColumns...)...)

func mustSchema(name string, cols ...pq.Column) *pq.Schema {
	s, err := pq.NewSchema(name, cols...)
	if err != nil {
		panic(err) // the columns above are fixed
	}
	return s
}
