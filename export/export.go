// Package export writes captures' records as Apache Parquet, for SQL
// engines (DuckDB, Spark, Trino) to answer questions across many ranks.
//
// One folder holds three tables, Hive-partitioned by rank so that an
// engine reads one rank's files for a question about one rank, and so that
// ranks exported by separate jobs (one per machine) are merged by copying
// their folders together:
//
//	DIR/records/rank=R/part-NNNNN.parquet   one row per record
//	DIR/cores/rank=R/part-NNNNN.parquet     one row per entered core
//	DIR/ranks/rank=R/part-NNNNN.parquet     one row per capture
//
// NNNNN is the capture's place among its rank's captures in the export
// (00000 for a rank's only capture), so the invocations of a window
// (several captures of one rank) are files side by side, and a rank's
// files are named the same whatever order the captures came in, whatever
// other ranks the export holds: exports of one rank per job merge into
// the folder one export of every rank writes. The rank is in the path only: engines add it as a column
// (DuckDB's hive_partitioning, Spark's partition discovery).
//
// A record's kind, task type and stage are the ones analyze groups it
// under (analyze.Labeler), so a GROUP BY over the records gives analyze's
// figures. Columns are written with Parquet's own encodings: dictionaries
// for the few-valued columns (names, kinds, core types, blocks,
// descriptors, owners, indexes within a stage), delta encoding for the
// cycle and nanosecond columns, which rise through a rank's records in
// trace order, and for task ids, which stay near the previous record's.
// Those pages are not compressed (zstd found nothing more to take out of
// them, measured on the 256 MB benchmark capture); the other columns' are
// zstd-compressed.
package export

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// RowGroupRows is the number of records in a row group (the last of a
// capture may hold fewer): it bounds the writer's memory (64 bytes a row
// as the walk hands it to an encoder, two row groups per CPU) and is large
// enough for the encodings to pay.
const RowGroupRows = 1 << 14

// Record is one row of the records table.
type Record struct {
	CoreType string `parquet:"core_type,dict,uncompressed"`
	BlockID  uint32 `parquet:"block_id,dict,uncompressed"`
	// ProfileRecord is the record's fields, every field of the schema's
	// record a column under its schema name (see recordFieldTags): a field
	// added to abi/schema.yaml is a column with no edit here. Go readers
	// of the table into Records need ReadOptions.
	abi.ProfileRecord
	// Name is the record's display name, as decode's trace shows it.
	Name string `parquet:"name,dict,uncompressed"`
	// Kind is compute, wait, trigger or other.
	Kind string `parquet:"kind,dict,uncompressed"`
	// TaskType is set for compute records, Stage for compute and wait
	// records (for a wait: the stage of the waiting task); "" is null.
	TaskType string `parquet:"task_type,dict,optional,uncompressed"`
	Stage    string `parquet:"stage,dict,optional,uncompressed"`
	// StartNs and EndNs are nanoseconds from the rank's anchor (the
	// earliest entry of a core with records), negative for a record that
	// starts before it.
	StartNs int64 `parquet:"start_ns,delta,uncompressed"`
	EndNs   int64 `parquet:"end_ns,delta,uncompressed"`
	Invocation
}

// bareRecord is a Record of a capture outside a window, the same columns
// (errBareRecord checks), with its invocation columns as values that are
// all zero, which parquet-go writes as nulls a run at a time, where
// Record's pointers cost a test and a null written for every row.
type bareRecord struct {
	CoreType string `parquet:"core_type,dict,uncompressed"`
	BlockID  uint32 `parquet:"block_id,dict,uncompressed"`
	abi.ProfileRecord
	Name         string `parquet:"name,dict,uncompressed"`
	Kind         string `parquet:"kind,dict,uncompressed"`
	TaskType     string `parquet:"task_type,dict,optional,uncompressed"`
	Stage        string `parquet:"stage,dict,optional,uncompressed"`
	StartNs      int64  `parquet:"start_ns,delta,uncompressed"`
	EndNs        int64  `parquet:"end_ns,delta,uncompressed"`
	InvocationID int64  `parquet:"invocation_id,optional"`
	Step         int64  `parquet:"step,optional"`
	Direction    string `parquet:"direction,dict,optional"`
}

// Invocation labels the rows of a capture that is one launch of a window;
// null for a rank's only capture.
type Invocation struct {
	InvocationID *int64 `parquet:"invocation_id,optional"`
	Step         *int64 `parquet:"step,optional"`
	// Direction is forward or backward; "" is null.
	Direction string `parquet:"direction,dict,optional"`
}

// Core is one row of the cores table: where one entered core's time went,
// in cycles, as analyze reports it.
type Core struct {
	CoreType      string `parquet:"core_type,dict"`
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

// Rank is one row of the ranks table: a capture's facts and totals.
type Rank struct {
	Capture        string  `parquet:"capture"`
	FrequencyMHz   float64 `parquet:"frequency_mhz"`
	AnchorCycle    uint64  `parquet:"anchor_cycle"`
	ABIVersion     int32   `parquet:"abi_version"`
	ABIFingerprint string  `parquet:"abi_fingerprint"`
	CubeSlots      uint32  `parquet:"cube_slots"`
	// Capacities are the record capacities by core type.
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
	// BusiestStage is the stage with the most compute cycles ("" when the
	// capture has no compute record).
	BusiestStage string `parquet:"busiest_stage"`
	Invocation
}

// Writer writes the tables of an export folder, one capture at a time;
// nothing is in place until Commit.
type Writer struct {
	dir *outfile.Dir
	// parts counts the captures of each rank written so far.
	parts map[uint32]int
	// records is the records writer's memory, kept from one capture to
	// the next.
	records recordPool
}

// Create starts an export into the folder path, which must not exist or
// be empty (see outfile.CreateDir).
func Create(path string) (*Writer, error) {
	if errRecordFields != nil {
		return nil, errRecordFields
	}
	if errBareRecord != nil {
		return nil, errBareRecord
	}
	d, err := outfile.CreateDir(path)
	if err != nil {
		return nil, err
	}
	return &Writer{dir: d}, nil
}

// Commit puts the folder in place.
func (w *Writer) Commit() error { return w.dir.Commit() }

// Abort removes what was written.
func (w *Writer) Abort() { w.dir.Abort() }

// Add analyzes one capture under o and writes its records, cores and rank
// row; it returns the analysis, made with o.ExactLimit set to 1
// (analysisExactLimit: its percentiles come from histograms). One walk of
// the capture writes the records and hands them on (feed) to the analysis
// on a goroutine of its own, so that the capture is merged into trace
// order once and the analysis takes a CPU the encoders would leave idle
// until the first row group is filled, not time before the records. (The
// analysis done in the walk's goroutine, a hook in its loop, took more CPU
// than two walks.)
func (w *Writer) Add(d *decode.Decoded, o analyze.Options) (*analyze.Rank, error) {
	if w.parts == nil {
		w.parts = map[uint32]int{}
	}
	part := w.parts[o.Rank]
	w.parts[o.Rank]++
	rel := func(table string) string {
		return table + "/rank=" + strconv.FormatUint(uint64(o.Rank), 10) + "/part-" + fmt.Sprintf("%05d", part) + ".parquet"
	}
	meta := metadata(d, o)
	inv := invocation(o.Invocation)

	type analysis struct {
		a   *analyze.Rank
		err error
	}
	analyzed := make(chan analysis, 1)
	feed := newFeed(&w.records)
	ao := o
	ao.ExactLimit = analysisExactLimit
	go func() {
		a, err := analyze.AnalyzeWalk(d, ao, feed.walk)
		feed.drain()
		analyzed <- analysis{a, err}
	}()
	recordOpts := append(slices.Clip(meta), recordOptions...)
	werr := writeTable(w.dir, rel("records"), recordOpts, func(pw *parquet.GenericWriter[Record]) error {
		rw := newRecordWriter(pw, &w.records, d, o, inv)
		var addErr error
		err := d.Records(func(r decode.Record) bool {
			feed.add(&r)
			addErr = rw.add(&r)
			return addErr == nil
		})
		if err == nil {
			err = addErr
		}
		return rw.close(err)
	})
	feed.close()
	an := <-analyzed
	if an.err != nil {
		return nil, an.err
	}
	if werr != nil {
		return nil, werr
	}
	a := an.a
	if err := writeTable(w.dir, rel("cores"), meta, func(pw *parquet.GenericWriter[Core]) error {
		rows := make([]Core, 0, len(a.Cores))
		for _, c := range a.Cores {
			rows = append(rows, Core{CoreType: c.CoreType, BlockID: c.BlockID, EntryCycle: c.EntryCycle, EndCycle: c.EndCycle,
				Records: c.Records, ComputeCycles: c.ComputeCycles, WaitCycles: c.WaitCycles, TriggerCycles: c.TriggerCycles,
				OtherCycles: c.OtherCycles, IdleCycles: c.IdleCycles, Invocation: inv})
		}
		_, err := pw.Write(rows)
		return err
	}); err != nil {
		return nil, err
	}
	err := writeTable(w.dir, rel("ranks"), meta, func(pw *parquet.GenericWriter[Rank]) error {
		r := Rank{Capture: a.Capture, FrequencyMHz: a.CycleFrequencyMHz, AnchorCycle: d.Summary.Anchor,
			ABIVersion: int32(abi.Version), ABIFingerprint: abi.FingerprintHex, CubeSlots: a.Layout.CubeSlots,
			Capacities: a.Layout.Capacities, BufferBytes: a.Layout.Size, Records: a.Records, Dropped: a.Dropped,
			MakespanCycles: a.MakespanCycles, MakespanUs: a.MakespanUs, Invocation: inv}
		if t := a.Totals; t != nil {
			r.SpanCycles, r.ComputeCycles, r.WaitCycles, r.TriggerCycles, r.OtherCycles, r.IdleCycles =
				t.SpanCycles, t.ComputeCycles, t.WaitCycles, t.TriggerCycles, t.OtherCycles, t.IdleCycles
		}
		if len(a.Stages) > 0 {
			r.BusiestStage = a.Stages[0].Name
		}
		_, err := pw.Write([]Rank{r})
		return err
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// analysisExactLimit is the Options.ExactLimit of Add's analysis: the
// tables hold no duration percentiles, which are all that exact durations
// make exact (counts, totals and maxima always are), so the analysis keeps
// one, not millions to sort, and its percentiles come from histograms
// (within 0.4%).
const analysisExactLimit = 1

// tableOptions are the writer options of every table.
var tableOptions = []parquet.WriterOption{
	parquet.MaxRowsPerRowGroup(RowGroupRows),
	parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}),
	parquet.CreatedBy("cycleabi", "", ""),
}

// metadata is what every file of a capture carries in its key-value
// metadata: enough to tell where its rows came from without the ranks
// table.
func metadata(d *decode.Decoded, o analyze.Options) []parquet.WriterOption {
	kv := [][2]string{
		{"cycleabi.capture", d.Capture.Name},
		{"cycleabi.rank", strconv.FormatUint(uint64(o.Rank), 10)},
		{"cycleabi.frequency_mhz", strconv.FormatFloat(o.FrequencyMHz, 'g', -1, 64)},
		{"cycleabi.anchor_cycle", strconv.FormatUint(d.Summary.Anchor, 10)},
		{"cycleabi.layout", d.Layout.Layout.String()},
		{"cycleabi.abi_version", strconv.Itoa(abi.Version)},
		{"cycleabi.abi_fingerprint", abi.FingerprintHex},
	}
	opts := slices.Clip(tableOptions)
	for _, p := range kv {
		opts = append(opts, parquet.KeyValueMetadata(p[0], p[1]))
	}
	return opts
}

func invocation(v *analyze.Invocation) Invocation {
	if v == nil {
		return Invocation{}
	}
	id := v.ID
	inv := Invocation{InvocationID: &id, Step: v.Step}
	if v.Direction != nil {
		inv.Direction = *v.Direction
	}
	return inv
}

// writeTable writes one Parquet file of the folder through fill.
func writeTable[T any](dir *outfile.Dir, rel string, opts []parquet.WriterOption, fill func(*parquet.GenericWriter[T]) error) error {
	f, err := dir.Create(rel)
	if err != nil {
		return err
	}
	// Only Write (a DirFile has no other method): the copied row groups
	// of the records table (see recordWriter) then pass through the
	// writer's buffer, where an io.ReaderFrom would take a 32 KiB buffer
	// of its own for each column chunk.
	pw := parquet.NewGenericWriter[T](f, opts...)
	err = fill(pw)
	if cerr := pw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", rel, err)
	}
	return nil
}
