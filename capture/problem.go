package capture

import (
	"fmt"
	"strings"
)

// Severity says whether a problem makes a capture invalid.
type Severity uint8

// The severities.
const (
	// Error: decode refuses the capture.
	Error Severity = iota
	// Warning: the capture decodes, but something deserves a look.
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalText renders the severity as "error" or "warning".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Code is a stable identifier of a kind of problem; docs/validate.md lists them.
type Code string

// The error codes: exactly the conditions under which a capture does not
// decode. Warning codes are defined by package validate, except the few
// found when a capture is opened (below).
const (
	CodeNotACapture       Code = "not-a-capture"       // the file is something else (text, gzip, zip, PNG, ...; see Sniff)
	CodeBadNPY            Code = "bad-npy"             // a .npy header that cannot be read
	CodeTruncated         Code = "truncated"           // the file is shorter than its layout or .npy header says
	CodeShortBuffer       Code = "short-buffer"        // fewer bytes than 3*C core headers
	CodeBadCapacity       Code = "bad-capacity"        // a region capacity unaligned or past MaxRecordsPerCore
	CodeSlotIdentity      Code = "slot-identity"       // core_type/block_id differ from the slot's place
	CodeCapacityMismatch  Code = "capacity-mismatch"   // header record_capacity differs from the layout's
	CodeReservedNonzero   Code = "reserved-nonzero"    // reserved field is not 0
	CodeCountOverCapacity Code = "count-over-capacity" // record_count > record_capacity
	CodeNegativeInterval  Code = "negative-interval"   // end_cycle < start_cycle
	CodeNoRecords         Code = "no-records"          // not one live record in the whole capture
	CodeLayoutMismatch    Code = "layout-mismatch"     // the layout requested contradicts the headers
	CodeNoLayout          Code = "no-layout"           // no layout fits the headers and the file size
	CodeAmbiguousLayout   Code = "ambiguous-layout"    // several layouts fit (or come close); nothing tells them apart
)

// The warning codes found when a capture is opened (Capture.Warnings).
const (
	// CodeBytesAfterLayout: the file holds bytes after the buffer's layout
	// (or after a .npy file's array); they are ignored.
	CodeBytesAfterLayout Code = "bytes-after-layout"
	// CodeNPYByteOrder: a .npy dtype is big-endian; its bytes are read as
	// stored (the buffer is little-endian bytes whatever the dtype says).
	CodeNPYByteOrder Code = "npy-byte-order"
)

// LayoutDependent reports whether a wrong layout can cause a problem of
// this code (then a resolution's hint applies to it).
func (c Code) LayoutDependent() bool {
	switch c {
	case CodeCapacityMismatch, CodeBadCapacity, CodeTruncated, CodeSlotIdentity, CodeCountOverCapacity, CodeBytesAfterLayout:
		return true
	}
	return false
}

// Problem is one finding about a capture: an error that stops decode, or
// a warning from validate. It is an error value, printed as
//
//	rank3.bin: slot-identity AIV/17 @0x1a2c0: core_type=1 block_id=5, expected AIV/17
type Problem struct {
	// File names the capture.
	File     string
	Severity Severity
	Code     Code
	// Off is the file offset of the offending bytes.
	Off int64
	// Slot is the slot ("AIC/3", "AIV/17"), or "" when the problem is not a slot's.
	Slot string
	// Record is the record index within the slot, or -1.
	Record int
	// Value and Expected describe what was found and what the ABI wants
	// ("core_type=1 block_id=5" / "AIV/17"); either may be empty.
	Value    string
	Expected string
	// Msg is the whole description; when empty it is built from Value and Expected.
	Msg string
	// Hint suggests what to do about it ("" when there is nothing to add).
	Hint string
}

// Message is the description without file, code and place.
func (p *Problem) Message() string {
	if p.Msg != "" {
		return p.Msg
	}
	if p.Expected == "" {
		return p.Value
	}
	return p.Value + ", expected " + p.Expected
}

// Where renders the place: "AIV/17 record 3 @0x1a2c0".
func (p *Problem) Where() string {
	var b strings.Builder
	if p.Slot != "" {
		b.WriteString(p.Slot)
		b.WriteByte(' ')
	}
	if p.Record >= 0 {
		fmt.Fprintf(&b, "record %d ", p.Record)
	}
	fmt.Fprintf(&b, "@%#x", p.Off)
	return b.String()
}

func (p *Problem) Error() string {
	prefix := ""
	if p.File != "" {
		prefix = p.File + ": "
	}
	msg := fmt.Sprintf("%s%s %s: %s", prefix, p.Code, p.Where(), p.Message())
	if p.Hint != "" {
		msg += "; hint: " + p.Hint
	}
	return msg
}
