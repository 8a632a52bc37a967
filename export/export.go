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
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/export/internal/pq"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/input"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/megakernel/cycleabi/internal/outfile"
)

// RowGroupRows is the number of records in a row group (the last of a
// capture may hold fewer): it bounds the writer's memory (64 bytes a row
// as the walk hands it to an encoder, two row groups per CPU) and is large
// enough for the encodings to pay.
const RowGroupRows = 1 << 14

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
	if errRecords != nil {
		return nil, errRecords
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
	inv := invocationOf(o.Invocation)

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
	werr := writeTable(w.dir, rel("records"), recordsTable, meta, func(pw *pq.Writer) error {
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
	if errors.Is(werr, errNsRange) {
		// The capture cannot be written, not the output: invalid input.
		return nil, &input.Error{Invalid: true, Err: werr}
	}
	if werr != nil {
		return nil, werr
	}
	a := an.a
	if err := writeTable(w.dir, rel("cores"), coresSchema, meta, func(pw *pq.Writer) error {
		return pw.Write(coreColumns(a.Cores, inv), len(a.Cores))
	}); err != nil {
		return nil, err
	}
	if err := writeTable(w.dir, rel("ranks"), ranksSchema, meta, func(pw *pq.Writer) error {
		return pw.Write(rankColumns(a, d.Summary.Anchor, inv), 1)
	}); err != nil {
		return nil, err
	}
	return a, nil
}

// coreColumns are the cores table's columns of cores.
func coreColumns(cores []analyze.Core, inv invocation) []pq.Data {
	cols := make([]pq.Data, coresSchema.Leaves())
	for _, c := range cores {
		cols[0].Strings = append(cols[0].Strings, c.CoreType)
		for i, v := range []uint64{uint64(c.BlockID), c.EntryCycle, c.EndCycle, c.Records, c.ComputeCycles,
			c.WaitCycles, c.TriggerCycles, c.OtherCycles, c.IdleCycles} {
			cols[1+i].Ints = append(cols[1+i].Ints, v)
		}
	}
	inv.fill(cols[len(cols)-len(invocationColumns):], len(cores), &invocationBuf{})
	return cols
}

// rankColumns are the ranks table's columns of a capture's analysis.
func rankColumns(a *analyze.Rank, anchor uint64, inv invocation) []pq.Data {
	var t analyze.Totals
	if a.Totals != nil {
		t = *a.Totals
	}
	busiest := ""
	if len(a.Stages) > 0 {
		busiest = a.Stages[0].Name
	}
	str := func(s string) pq.Data { return pq.Data{Strings: []string{s}} }
	num := func(v uint64) pq.Data { return pq.Data{Ints: []uint64{v}} }
	dbl := func(v float64) pq.Data { return pq.Data{Doubles: []float64{v}} }
	// A map's entries in the order of their keys, for the same bytes
	// every time; a row with no entries is one null entry.
	var keys, vals pq.Data
	for _, k := range slices.Sorted(maps.Keys(a.Layout.Capacities)) {
		keys.Strings, vals.Ints = append(keys.Strings, k), append(vals.Ints, uint64(a.Layout.Capacities[k]))
		keys.Def, keys.Rep = append(keys.Def, 1), append(keys.Rep, b2u8(len(keys.Rep) > 0))
	}
	if len(keys.Def) == 0 {
		keys.Def, keys.Rep = []uint8{0}, []uint8{0}
	}
	vals.Def, vals.Rep = keys.Def, keys.Rep
	cols := []pq.Data{str(a.Capture), dbl(a.CycleFrequencyMHz), num(anchor), num(uint64(int64(abi.Version))),
		str(abi.FingerprintHex), num(uint64(a.Layout.CubeSlots)), keys, vals, num(a.Layout.Size), num(a.Records),
		num(a.Dropped), num(a.MakespanCycles), dbl(a.MakespanUs), num(t.SpanCycles), num(t.ComputeCycles),
		num(t.WaitCycles), num(t.TriggerCycles), num(t.OtherCycles), num(t.IdleCycles), str(busiest),
		{}, {}, {}}
	inv.fill(cols[len(cols)-len(invocationColumns):], 1, &invocationBuf{})
	return cols
}

// analysisExactLimit is the Options.ExactLimit of Add's analysis: the
// tables hold no duration percentiles, which are all that exact durations
// make exact (counts, totals and maxima always are), so the analysis keeps
// one, not millions to sort, and its percentiles come from histograms
// (within 0.4%).
const analysisExactLimit = 1

// createdBy is what every file says wrote it.
var createdBy = "cycleabi version " + buildinfo.Version()

// metadata is what every file of a capture carries in its key-value
// metadata: enough to tell where its rows came from without the ranks
// table.
func metadata(d *decode.Decoded, o analyze.Options) [][2]string {
	return [][2]string{
		{"cycleabi.capture", d.Capture.Name},
		{"cycleabi.rank", strconv.FormatUint(uint64(o.Rank), 10)},
		{"cycleabi.frequency_mhz", strconv.FormatFloat(o.FrequencyMHz, 'g', -1, 64)},
		{"cycleabi.anchor_cycle", strconv.FormatUint(d.Summary.Anchor, 10)},
		{"cycleabi.layout", d.Layout.Layout.String()},
		{"cycleabi.abi_version", strconv.Itoa(abi.Version)},
		{"cycleabi.abi_fingerprint", abi.FingerprintHex},
	}
}

// invocation is a capture's place in a window: the invocation columns'
// values, null (nil, "") for a rank's only capture.
type invocation struct {
	id, step  *int64
	direction string
}

func invocationOf(v *analyze.Invocation) invocation {
	if v == nil {
		return invocation{}
	}
	id := v.ID
	inv := invocation{id: &id, step: v.Step}
	if v.Direction != nil {
		inv.direction = *v.Direction
	}
	return inv
}

// invocationBuf is the memory of the invocation columns' data.
type invocationBuf struct {
	nulls    []uint8
	id, step []uint64
	index    []uint32
}

// fill sets cols (invocation_id, step, direction) to n rows of v.
func (v invocation) fill(cols []pq.Data, n int, b *invocationBuf) {
	b.nulls = slices.Grow(b.nulls[:0], n)[:n]
	clear(b.nulls)
	ints := func(x *int64, buf *[]uint64) pq.Data {
		if x == nil {
			return pq.Data{Def: b.nulls}
		}
		*buf = slices.Grow((*buf)[:0], n)[:n]
		for i := range *buf {
			(*buf)[i] = uint64(*x)
		}
		return pq.Data{Ints: *buf}
	}
	cols[0], cols[1] = ints(v.id, &b.id), ints(v.step, &b.step)
	if v.direction == "" {
		cols[2] = pq.Data{Def: b.nulls}
		return
	}
	b.index = slices.Grow(b.index[:0], n)[:n]
	clear(b.index)
	cols[2] = pq.Data{Strings: []string{v.direction}, Index: b.index}
}

// writeTable writes one Parquet file of the folder, of schema s and
// metadata meta, through fill.
func writeTable(dir *outfile.Dir, rel string, s *pq.Schema, meta [][2]string, fill func(*pq.Writer) error) error {
	f, err := dir.Create(rel)
	if err != nil {
		return err
	}
	pw := pq.NewWriter(f, s, createdBy, meta...)
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
