package export

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/parquet-go/parquet-go"
)

// fieldEncodings are the encodings of the record fields the schema loader
// requires of every record (abi's layout roles), chosen by measuring the
// 256 MB benchmark capture (docs/performance.md): delta for the cycles,
// which rise through trace order, and for task ids, which stay near the
// previous record's; a dictionary for the few-valued descriptors, owners
// and indexes within a stage. Their pages are not compressed: zstd found
// nothing more to take out of them. Any other field of the schema's record
// is written plain and compressed, as nothing is known of its values.
var fieldEncodings = map[string]string{
	"start_cycle":      "delta,uncompressed",
	"end_cycle":        "delta,uncompressed",
	"task_id":          "delta,uncompressed",
	"desc_id":          "dict,uncompressed",
	"stage_task_index": "dict,uncompressed",
	"owner_id":         "dict,uncompressed",
}

// recordFieldTags name the columns of Record's abi.ProfileRecord after the
// schema's fields (abi.ProfileRecordFields, in wire order, which the
// generated struct's exported fields follow), with their encodings;
// errRecordFields says why they could not be derived (a generator out of
// step with the field table).
var recordFieldTags, errRecordFields = fieldTags(reflect.TypeFor[abi.ProfileRecord](), abi.ProfileRecordFields())

// errBareRecord says how bareRecord's columns differ from Record's, in
// order, type, repetition, encoding or compression: its row groups are
// copied into the records table verbatim.
var errBareRecord = sameColumns(schemaOf[Record](), schemaOf[bareRecord]())

func schemaOf[T any]() *parquet.Schema {
	opts := make([]parquet.SchemaOption, len(recordFieldTags))
	for i, t := range recordFieldTags {
		opts[i] = t
	}
	return parquet.SchemaOf(new(T), opts...)
}

// sameColumns says how b's columns differ from a's, nil when they do not.
func sameColumns(a, b *parquet.Schema) error {
	if !parquet.EqualNodes(a, b) {
		return fmt.Errorf("export: the columns of %s are not those of %s", b.Name(), a.Name())
	}
	for _, path := range a.Columns() {
		ca, _ := a.Lookup(path...)
		cb, _ := b.Lookup(path...)
		if ca.Node.Encoding() != cb.Node.Encoding() || ca.Node.Compression() != cb.Node.Compression() {
			return fmt.Errorf("export: column %s is encoded or compressed otherwise in %s and %s", strings.Join(path, "."), b.Name(), a.Name())
		}
	}
	return nil
}

func fieldTags(t reflect.Type, fields []abi.FieldInfo) ([]*parquet.StructTagOption, error) {
	var goFields []reflect.StructField
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() {
			goFields = append(goFields, f)
		}
	}
	var tags []*parquet.StructTagOption
	for _, f := range fields {
		if f.Type == "pad" {
			continue
		}
		if len(tags) == len(goFields) {
			return nil, fmt.Errorf("%s has no field for the schema's %s", t, f.Name)
		}
		g := goFields[len(tags)]
		if int(g.Type.Size()) != f.Size {
			return nil, fmt.Errorf("%s.%s (%d bytes) does not hold the schema's %s (%d bytes)", t, g.Name, g.Type.Size(), f.Name, f.Size)
		}
		tag := f.Name
		if enc := fieldEncodings[f.Name]; enc != "" {
			tag += "," + enc
		}
		tags = append(tags, &parquet.StructTagOption{ColumnPath: []string{g.Name}, StructTag: reflect.StructTag(`parquet:"` + tag + `"`)})
	}
	if len(tags) != len(goFields) {
		return nil, fmt.Errorf("%s has %d fields, the schema's record %d", t, len(goFields), len(tags))
	}
	return tags, nil
}

// ReadOptions are the options a reader of the records table into Records
// needs (parquet.Read[Record](f, size, ReadOptions()...)): the columns of
// Record's record fields by their schema names.
func ReadOptions() []parquet.ReaderOption {
	opts := make([]parquet.ReaderOption, len(recordFieldTags))
	for i, t := range recordFieldTags {
		opts[i] = t
	}
	return opts
}
