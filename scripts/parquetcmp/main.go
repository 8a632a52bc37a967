// Command parquetcmp compares the two Parquet writers for Go that export
// could use, parquet-go and arrow-go (pqarrow), writing 2,000,000 rows of
// export's record shape with the same encodings (dictionary for the few-valued
// columns, delta for the rising ones, zstd): time, file size and, under
// /usr/bin/time -v, peak RSS. A module of its own, so arrow-go is not a
// dependency of cycleabi. Usage: go run . parquet-go|arrow-go OUT.parquet
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pq "github.com/parquet-go/parquet-go"
)

type Row struct {
	CoreType       string `parquet:"core_type,dict,zstd"`
	BlockID        uint32 `parquet:"block_id,zstd"`
	StartCycle     uint64 `parquet:"start_cycle,delta,zstd"`
	EndCycle       uint64 `parquet:"end_cycle,delta,zstd"`
	DescID         uint32 `parquet:"desc_id,dict,zstd"`
	TaskID         uint32 `parquet:"task_id,delta,zstd"`
	StageTaskIndex uint32 `parquet:"stage_task_index,delta,zstd"`
	OwnerID        uint32 `parquet:"owner_id,dict,zstd"`
	Name           string `parquet:"name,dict,zstd"`
	Kind           string `parquet:"kind,dict,zstd"`
	StartNs        int64  `parquet:"start_ns,delta,zstd"`
	EndNs          int64  `parquet:"end_ns,delta,zstd"`
}

var rnd uint64 = 88172645463325252

func next() uint64 { rnd ^= rnd << 13; rnd ^= rnd >> 7; rnd ^= rnd << 17; return rnd }

var clock uint64 = 1000000

func row(i int) Row {
	clock += next() % 80
	start := clock
	core := i % 72
	ct := "AIC"
	if core >= 24 {
		ct = "AIV"
	}
	desc := uint32(0x20000 + 101 + i%5)
	return Row{ct, uint32(core % 48), start, start + 20 + next()%3000, desc, uint32(i / 3), uint32(i % 64), 0xFFFFFFFF,
		fmt.Sprintf("TaskType_%d", desc&0xff), "compute", int64(start * 20), int64(start*20 + 400)}
}

func main() {
	n := 2_000_000
	lib := os.Args[1]
	f, _ := os.Create(os.Args[2])
	t0 := time.Now()
	switch lib {
	case "parquet-go":
		w := pq.NewGenericWriter[Row](f, pq.MaxRowsPerRowGroup(1<<17))
		buf := make([]Row, 0, 4096)
		for i := 0; i < n; i++ {
			buf = append(buf, row(i))
			if len(buf) == cap(buf) {
				if _, err := w.Write(buf); err != nil {
					panic(err)
				}
				buf = buf[:0]
			}
		}
		w.Write(buf)
		if err := w.Close(); err != nil {
			panic(err)
		}
	case "arrow-go":
		schema := arrow.NewSchema([]arrow.Field{
			{Name: "core_type", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}},
			{Name: "block_id", Type: arrow.PrimitiveTypes.Uint32},
			{Name: "start_cycle", Type: arrow.PrimitiveTypes.Uint64},
			{Name: "end_cycle", Type: arrow.PrimitiveTypes.Uint64},
			{Name: "desc_id", Type: arrow.PrimitiveTypes.Uint32},
			{Name: "task_id", Type: arrow.PrimitiveTypes.Uint32},
			{Name: "stage_task_index", Type: arrow.PrimitiveTypes.Uint32},
			{Name: "owner_id", Type: arrow.PrimitiveTypes.Uint32},
			{Name: "name", Type: arrow.BinaryTypes.String},
			{Name: "kind", Type: arrow.BinaryTypes.String},
			{Name: "start_ns", Type: arrow.PrimitiveTypes.Int64},
			{Name: "end_ns", Type: arrow.PrimitiveTypes.Int64},
		}, nil)
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(true), parquet.WithMaxRowGroupLength(1<<17),
			parquet.WithDictionaryFor("start_cycle", false), parquet.WithEncodingFor("start_cycle", parquet.Encodings.DeltaBinaryPacked),
			parquet.WithDictionaryFor("end_cycle", false), parquet.WithEncodingFor("end_cycle", parquet.Encodings.DeltaBinaryPacked),
			parquet.WithDictionaryFor("task_id", false), parquet.WithEncodingFor("task_id", parquet.Encodings.DeltaBinaryPacked),
			parquet.WithDictionaryFor("stage_task_index", false), parquet.WithEncodingFor("stage_task_index", parquet.Encodings.DeltaBinaryPacked),
			parquet.WithDictionaryFor("start_ns", false), parquet.WithEncodingFor("start_ns", parquet.Encodings.DeltaBinaryPacked),
			parquet.WithDictionaryFor("end_ns", false), parquet.WithEncodingFor("end_ns", parquet.Encodings.DeltaBinaryPacked))
		w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
		if err != nil {
			panic(err)
		}
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		flush := func() {
			rec := b.NewRecord()
			if err := w.WriteBuffered(rec); err != nil {
				panic(err)
			}
			rec.Release()
		}
		for i := 0; i < n; i++ {
			r := row(i)
			b.Field(0).(*array.BinaryDictionaryBuilder).AppendString(r.CoreType)
			b.Field(1).(*array.Uint32Builder).Append(r.BlockID)
			b.Field(2).(*array.Uint64Builder).Append(r.StartCycle)
			b.Field(3).(*array.Uint64Builder).Append(r.EndCycle)
			b.Field(4).(*array.Uint32Builder).Append(r.DescID)
			b.Field(5).(*array.Uint32Builder).Append(r.TaskID)
			b.Field(6).(*array.Uint32Builder).Append(r.StageTaskIndex)
			b.Field(7).(*array.Uint32Builder).Append(r.OwnerID)
			b.Field(8).(*array.StringBuilder).Append(r.Name)
			b.Field(9).(*array.StringBuilder).Append(r.Kind)
			b.Field(10).(*array.Int64Builder).Append(r.StartNs)
			b.Field(11).(*array.Int64Builder).Append(r.EndNs)
			if (i+1)%4096 == 0 {
				flush()
			}
		}
		flush()
		if err := w.Close(); err != nil {
			panic(err)
		}
	}
	st, _ := os.Stat(os.Args[2])
	fmt.Printf("%s: %d rows in %.2fs, %.1f MB\n", lib, n, time.Since(t0).Seconds(), float64(st.Size())/1e6)
}
