// Package pq writes Apache Parquet files of flat tables: columns of
// integers, doubles and strings, each required or optional, and maps of
// strings to integers. It is the writer of package export alone and
// writes what export's tables need, every page a format-1 data page:
// plain, dictionary (RLE_DICTIONARY) and delta (DELTA_BINARY_PACKED)
// encodings, uncompressed or zstd, a row group's bounds and null count in
// its column chunks' statistics. Row groups are encoded apart from the
// file (Encoder.Encode), so that several can be encoded at once, and
// appended to it in order (Writer.Append).
//
// The format is parquet-format's (parquet.thrift and Encodings.md of
// apache/parquet-format); the tests read every file back with
// parquet-go, a reader written apart from this writer.
package pq

import (
	"fmt"
	"math/bits"
	"strings"
)

// Type is a column's type, physical and logical together.
type Type uint8

const (
	// Int is an integer of Column.Bits bits (8, 16, 32 or 64), signed or
	// not: INT32 (INT64 for 64 bits) with the INTEGER logical type.
	Int Type = iota + 1
	// Double is an IEEE 754 double.
	Double
	// String is a UTF-8 string: BYTE_ARRAY with the STRING logical type.
	String
	// Map is a map from strings to Column.Value (a MAP group of a
	// repeated key_value group, its leaf columns key and value).
	Map
)

// Encoding is how a column's values are written in its data pages.
type Encoding uint8

const (
	Plain Encoding = iota
	// Dict writes a dictionary page of the chunk's distinct values and
	// the values as indexes into it.
	Dict
	// Delta is DELTA_BINARY_PACKED, for integers that change little from
	// one row to the next.
	Delta
)

// Column is a column of a table.
type Column struct {
	Name string
	Type Type
	// Bits and Signed describe an Int.
	Bits   int
	Signed bool
	// Optional columns may hold nulls.
	Optional bool
	Encoding Encoding
	// Compress compresses the column's pages with zstd.
	Compress bool
	// Bounds writes the chunks' least and greatest values in their
	// statistics (the null count is always written).
	Bounds bool
	// Value is a Map's values' column (required, plain): its Name is
	// ignored (the leaf is "value"); its Compress and Bounds are the
	// key's too.
	Value *Column
}

// Schema is a table's columns and the leaf columns they make, in file
// order.
type Schema struct {
	name    string
	columns []Column
	leaves  []leaf
}

// leaf is a column of values in the file: a table's column, or a map's
// key or value.
type leaf struct {
	path           []string
	col            Column // the leaf's own description
	maxDef, maxRep uint8
}

// NewSchema checks the columns and returns the schema of a table named
// name (the root of the file's schema).
func NewSchema(name string, columns ...Column) (*Schema, error) {
	s := &Schema{name: name, columns: columns}
	seen := map[string]bool{}
	for _, c := range columns {
		if err := c.check(); err != nil {
			return nil, err
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("pq: column %s is named twice", c.Name)
		}
		seen[c.Name] = true
		if c.Type != Map {
			def := uint8(0)
			if c.Optional {
				def = 1
			}
			s.leaves = append(s.leaves, leaf{path: []string{c.Name}, col: c, maxDef: def})
			continue
		}
		key := Column{Name: "key", Type: String, Compress: c.Compress, Bounds: c.Bounds}
		val := *c.Value
		val.Name, val.Compress, val.Bounds, val.Optional, val.Encoding = "value", c.Compress, c.Bounds, false, Plain
		s.leaves = append(s.leaves,
			leaf{path: []string{c.Name, "key_value", "key"}, col: key, maxDef: 1, maxRep: 1},
			leaf{path: []string{c.Name, "key_value", "value"}, col: val, maxDef: 1, maxRep: 1})
	}
	return s, nil
}

func (c Column) check() error {
	bad := func(why string) error { return fmt.Errorf("pq: column %q: %s", c.Name, why) }
	switch {
	case c.Name == "":
		return bad("no name")
	case c.Type == Int && c.Bits != 8 && c.Bits != 16 && c.Bits != 32 && c.Bits != 64:
		return bad(fmt.Sprintf("an integer of %d bits", c.Bits))
	case c.Type == Map && (c.Value == nil || c.Value.Type != Int && c.Value.Type != Double):
		return bad("a map's values are integers or doubles")
	case c.Type == Map && c.Optional:
		return bad("maps are required")
	case c.Type < Int || c.Type > Map:
		return bad("no type")
	case c.Encoding == Delta && c.Type != Int:
		return bad("delta encodes integers only")
	case c.Encoding == Dict && c.Type == Map:
		return bad("a map is written plain")
	}
	if c.Type == Map {
		return c.Value.checkValue(c.Name)
	}
	return nil
}

func (c *Column) checkValue(mapName string) error {
	if c.Type == Int && c.Bits != 8 && c.Bits != 16 && c.Bits != 32 && c.Bits != 64 {
		return fmt.Errorf("pq: column %q: values of %d bits", mapName, c.Bits)
	}
	return nil
}

// Leaves is the number of leaf columns: a map makes two, key and value.
func (s *Schema) Leaves() int { return len(s.leaves) }

// String is the schema as parquet-format's message syntax writes it.
func (s *Schema) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "message %s {\n", s.name)
	for _, c := range s.columns {
		if c.Type == Map {
			fmt.Fprintf(&b, "\trequired group %s (MAP) {\n\t\trepeated group key_value {\n", c.Name)
			fmt.Fprintf(&b, "\t\t\trequired binary key (STRING);\n\t\t\trequired %s value%s;\n\t\t}\n\t}\n", physicalName(*c.Value), logicalName(*c.Value))
			continue
		}
		rep := "required"
		if c.Optional {
			rep = "optional"
		}
		fmt.Fprintf(&b, "\t%s %s %s%s;\n", rep, physicalName(c), c.Name, logicalName(c))
	}
	b.WriteString("}")
	return b.String()
}

func physicalName(c Column) string {
	switch physical(c) {
	case typeInt32:
		return "int32"
	case typeInt64:
		return "int64"
	case typeDouble:
		return "double"
	}
	return "binary"
}

func logicalName(c Column) string {
	switch c.Type {
	case Int:
		return fmt.Sprintf(" (INT(%d,%t))", c.Bits, c.Signed)
	case String:
		return " (STRING)"
	}
	return ""
}

// Parquet's physical types, converted types and repetitions (parquet.thrift).
const (
	typeInt32     = 1
	typeInt64     = 2
	typeDouble    = 5
	typeByteArray = 6

	convertedUTF8 = 0
	convertedMap  = 1

	repRequired = 0
	repOptional = 1
	repRepeated = 2
)

func physical(c Column) int32 {
	switch {
	case c.Type == Int && c.Bits == 64:
		return typeInt64
	case c.Type == Int:
		return typeInt32
	case c.Type == Double:
		return typeDouble
	}
	return typeByteArray
}

// converted is the converted type older readers know an Int or String by
// (UINT_8..UINT_64, INT_8..INT_64, UTF8), -1 for none.
func converted(c Column) int32 {
	switch c.Type {
	case String:
		return convertedUTF8
	case Int:
		// UINT_8 = 11 .. UINT_64 = 14, INT_8 = 15 .. INT_64 = 18.
		n := int32(bits.TrailingZeros(uint(c.Bits)) - 3)
		if c.Signed {
			return 15 + n
		}
		return 11 + n
	}
	return -1
}

// appendSchema appends the file's schema, a list of SchemaElements in
// depth-first order, the root first.
func (s *Schema) appendSchema(t *thrift) {
	n := 1
	for _, c := range s.columns {
		n++
		if c.Type == Map {
			n += 3
		}
	}
	t.list(2, tStruct, n)
	t.enter()
	t.str(4, s.name)
	t.i32(5, int32(len(s.columns)))
	t.end()
	for _, c := range s.columns {
		if c.Type != Map {
			rep := int32(repRequired)
			if c.Optional {
				rep = repOptional
			}
			element(t, c, c.Name, rep)
			continue
		}
		t.enter() // the map's group
		t.i32(3, repRequired)
		t.str(4, c.Name)
		t.i32(5, 1)
		t.i32(6, convertedMap)
		t.begin(10)
		t.begin(2) // MapType
		t.end()
		t.end()
		t.end()
		t.enter() // key_value
		t.i32(3, repRepeated)
		t.str(4, "key_value")
		t.i32(5, 2)
		t.end()
		element(t, Column{Type: String}, "key", repRequired)
		element(t, *c.Value, "value", repRequired)
	}
}

// element appends the SchemaElement of a leaf column.
func element(t *thrift, c Column, name string, rep int32) {
	t.enter()
	t.i32(1, physical(c))
	t.i32(3, rep)
	t.str(4, name)
	if ct := converted(c); ct >= 0 {
		t.i32(6, ct)
	}
	switch c.Type {
	case String:
		t.begin(10)
		t.begin(1) // StringType
		t.end()
		t.end()
	case Int:
		t.begin(10)
		t.begin(10) // IntType
		t.i8(1, int8(c.Bits))
		t.boolean(2, c.Signed)
		t.end()
		t.end()
	}
	t.end()
}
