package export

import (
	"reflect"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/parquet-go/parquet-go"
)

// TestFieldTags: each field of a record struct is named after the
// schema's field of its place (pads skipped), with the encoding of a known
// field and none for a field the schema adds; a struct out of step with
// the field table is refused, never mislabelled.
func TestFieldTags(t *testing.T) {
	type rec struct {
		StartCycle uint64
		DescID     uint32
		Stamp      uint16
		unexported int // not a column
	}
	fields := []abi.FieldInfo{
		{Name: "start_cycle", Type: "u64", Size: 8},
		{Name: "desc_id", Type: "u32", Size: 4},
		{Name: "gap", Type: "pad", Size: 2},
		{Name: "drill_stamp", Type: "u16", Size: 2},
	}
	tags, err := fieldTags(reflect.TypeFor[rec](), fields)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tag := range tags {
		got = append(got, strings.Join(tag.ColumnPath, ".")+" "+string(tag.StructTag))
	}
	want := []string{`StartCycle parquet:"start_cycle,delta,uncompressed"`, `DescID parquet:"desc_id,dict,uncompressed"`, `Stamp parquet:"drill_stamp"`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tags %q, want %q", got, want)
	}
	for _, c := range []struct {
		fields []abi.FieldInfo
		err    string
	}{
		{fields[:2], "has 3 fields, the schema's record 2"},
		{append(fields[:4:4], abi.FieldInfo{Name: "more", Type: "u32", Size: 4}), "has no field for the schema's more"},
		{[]abi.FieldInfo{fields[0], {Name: "desc_id", Type: "u64", Size: 8}, fields[3]}, "DescID (4 bytes) does not hold the schema's desc_id (8 bytes)"},
	} {
		if _, err := fieldTags(reflect.TypeFor[rec](), c.fields); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("fields %v: %v, want %q", c.fields, err, c.err)
		}
	}
}

// TestBareRecordIsRecord: the rows of a capture outside a window are
// written as bareRecords, whose columns must be Record's to the encoding,
// as their row groups are copied into the table verbatim; sameColumns
// tells a column encoded otherwise, made optional or left out.
func TestBareRecordIsRecord(t *testing.T) {
	if errBareRecord != nil {
		t.Fatal(errBareRecord)
	}
	type base struct {
		Name string `parquet:"name,dict"`
		Kind string `parquet:"kind,dict,optional"`
	}
	for _, c := range []struct {
		other any
		err   string
	}{
		{struct {
			Name string `parquet:"name"`
			Kind string `parquet:"kind,dict,optional"`
		}{}, "column name is encoded or compressed otherwise"},
		{struct {
			Name string `parquet:"name,dict"`
			Kind string `parquet:"kind,dict,optional,zstd"`
		}{}, "column kind is encoded or compressed otherwise"},
		{struct {
			Name string `parquet:"name,dict"`
			Kind string `parquet:"kind,dict"`
		}{}, "are not"},
		{struct {
			Name string `parquet:"name,dict"`
		}{}, "are not"},
	} {
		err := sameColumns(parquet.SchemaOf(base{}), parquet.SchemaOf(c.other))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%T: %v, want %q", c.other, err, c.err)
		}
	}
	if err := sameColumns(parquet.SchemaOf(base{}), parquet.SchemaOf(base{})); err != nil {
		t.Error(err)
	}
}
