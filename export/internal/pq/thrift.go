package pq

import (
	"encoding/binary"
	"math"
)

// Thrift compact protocol types (the wire's, not the IDL's).
const (
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI32    = 5
	tI64    = 6
	tBinary = 8
	tList   = 9
	tStruct = 12
)

// thrift appends a Thrift compact-protocol encoding, the encoding of
// Parquet's page headers and footer: each field a header (the distance
// from the previous field's id and the type, in one byte when the distance
// is 1 to 15), integers zigzag varints, strings length-prefixed, a struct
// ended by a zero byte. Only what Parquet's structs need is here.
type thrift struct {
	b    []byte
	last int16   // the id of the current struct's previous field
	up   []int16 // the enclosing structs' last ids
}

func (t *thrift) field(id int16, typ byte) {
	if d := id - t.last; d > 0 && d <= 15 {
		t.b = append(t.b, byte(d)<<4|typ)
	} else {
		t.b = append(t.b, typ)
		t.b = binary.AppendUvarint(t.b, zigzag(int64(id)))
	}
	t.last = id
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func (t *thrift) i32(id int16, v int32) {
	t.field(id, tI32)
	t.b = binary.AppendUvarint(t.b, zigzag(int64(v)))
}

func (t *thrift) i64(id int16, v int64) {
	t.field(id, tI64)
	t.b = binary.AppendUvarint(t.b, zigzag(v))
}

func (t *thrift) i8(id int16, v int8) {
	t.field(id, tByte)
	t.b = append(t.b, byte(v))
}

func (t *thrift) boolean(id int16, v bool) {
	if v {
		t.field(id, tTrue)
	} else {
		t.field(id, tFalse)
	}
}

func (t *thrift) binary(id int16, v []byte) {
	t.field(id, tBinary)
	t.b = binary.AppendUvarint(t.b, uint64(len(v)))
	t.b = append(t.b, v...)
}

func (t *thrift) str(id int16, v string) {
	t.field(id, tBinary)
	t.b = binary.AppendUvarint(t.b, uint64(len(v)))
	t.b = append(t.b, v...)
}

// begin opens a struct field; end closes it (or a list's struct element).
func (t *thrift) begin(id int16) {
	t.field(id, tStruct)
	t.enter()
}

func (t *thrift) enter() {
	t.up = append(t.up, t.last)
	t.last = 0
}

func (t *thrift) end() {
	t.b = append(t.b, 0)
	t.last = t.up[len(t.up)-1]
	t.up = t.up[:len(t.up)-1]
}

// list opens a list field of n elements of type elem; a struct element is
// enter()...end(), an i32 element elemI32, a string elemStr.
func (t *thrift) list(id int16, elem byte, n int) {
	t.field(id, tList)
	if n < 15 {
		t.b = append(t.b, byte(n)<<4|elem)
	} else {
		t.b = append(t.b, 0xf0|elem)
		t.b = binary.AppendUvarint(t.b, uint64(n))
	}
}

func (t *thrift) elemI32(v int32) { t.b = binary.AppendUvarint(t.b, zigzag(int64(v))) }

func (t *thrift) elemStr(v string) {
	t.b = binary.AppendUvarint(t.b, uint64(len(v)))
	t.b = append(t.b, v...)
}

// fitsI32 says whether n is a Thrift i32, as page sizes and counts must be.
func fitsI32(n int) bool { return n >= 0 && n <= math.MaxInt32 }
