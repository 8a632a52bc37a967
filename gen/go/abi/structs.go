package abi

// This file is hand-written: the types the generated struct codecs and
// field tables (structs_gen.go) use.

import (
	"encoding/binary"
	"fmt"
)

// FieldInfo describes one field of a wire struct as the schema declares it,
// including the checks a validator applies to a live value.
type FieldInfo struct {
	// Name is the schema name (snake_case, e.g. "record_count").
	Name string
	// Type is the wire type: u8, u16, u32, u64 or pad.
	Type string
	// Offset and Size are in bytes from the start of the struct.
	Offset, Size int
	// Enum names the enum the value must be a member of ("" = any value).
	Enum string
	// Zero: a live value must be 0.
	Zero bool
	// MinField and MaxField name a field of the same struct the value must be >=
	// and <= ("" = none).
	MinField, MaxField string
	// WarnNonzero (pad fields): nonzero bytes deserve a warning, not an error.
	WarnNonzero bool
	// Doc is the schema's description of the field.
	Doc string
}

// Value returns the field's value in b, a whole struct's bytes: the
// little-endian unsigned integer of Size bytes at Offset. A pad field (or any
// size but 1, 2, 4 and 8) has no value: 0. b must hold the struct.
func (f FieldInfo) Value(b []byte) uint64 {
	switch f.Size {
	case 1:
		return uint64(b[f.Offset])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b[f.Offset:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b[f.Offset:]))
	case 8:
		return binary.LittleEndian.Uint64(b[f.Offset:])
	}
	return 0
}

// ShortBufferError reports a buffer too short for what is read from or
// written to it. Decoders and the writer return it instead of panicking.
type ShortBufferError struct {
	// Struct names what did not fit: a struct name, or "slot" for a whole slot.
	Struct string
	// Need and Have are the byte counts needed and present.
	Need, Have int
}

// Error implements error.
func (e *ShortBufferError) Error() string {
	return fmt.Sprintf("abi: short buffer: %s needs %d bytes, have %d", e.Struct, e.Need, e.Have)
}
