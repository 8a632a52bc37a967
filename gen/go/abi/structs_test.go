package abi_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// propCoreHeaderRoundTrip: any header encodes to CoreHeaderSize bytes after
// whatever dst held and decodes to itself.
func propCoreHeaderRoundTrip(t *rapid.T) {
	h := rapid.Make[abi.CoreHeader]().Draw(t, "header")
	prefix := rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "prefix")
	b := h.Append(bytes.Clone(prefix))
	require.Lenf(t, b, len(prefix)+abi.CoreHeaderSize, "Append wrote %d bytes after a %d-byte prefix, or changed it", len(b)-len(prefix), len(prefix))
	require.Equalf(t, []byte(prefix), []byte(b[:len(prefix)]), "Append wrote %d bytes after a %d-byte prefix, or changed it", len(b)-len(prefix), len(prefix))
	got, err := abi.DecodeCoreHeader(b[len(prefix):])
	require.NoError(t, err)
	require.Equal(t, h, got, "decoded")
}

func propProfileRecordRoundTrip(t *rapid.T) {
	r := rapid.Make[abi.ProfileRecord]().Draw(t, "record")
	b := r.Append(nil)
	require.Len(t, b, abi.ProfileRecordSize, "Append wrote")
	got, err := abi.DecodeProfileRecord(b)
	require.NoError(t, err)
	require.Equal(t, r, got, "decoded")
}

func TestCoreHeaderRoundTrip(t *testing.T)    { rapid.Check(t, propCoreHeaderRoundTrip) }
func TestProfileRecordRoundTrip(t *testing.T) { rapid.Check(t, propProfileRecordRoundTrip) }

func FuzzCoreHeaderRoundTrip(f *testing.F)    { f.Fuzz(rapid.MakeFuzz(propCoreHeaderRoundTrip)) }
func FuzzProfileRecordRoundTrip(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propProfileRecordRoundTrip)) }

// FuzzDecode: decoding arbitrary bytes fails exactly when they are too
// short, never panics, and decode → encode gives back the bytes read.
func FuzzDecode(f *testing.F) {
	f.Add(make([]byte, 64))
	f.Add(bytes.Repeat([]byte{0xFF}, 31))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := abi.DecodeCoreHeader(b)
		require.Equalf(t, (len(b) < abi.CoreHeaderSize), (err != nil), "len %d: err %v", len(b), err)
		require.False(t, err == nil && !bytes.Equal(h.Append(nil), b[:abi.CoreHeaderSize]), "decode → encode changed the header bytes")
		r, err := abi.DecodeProfileRecord(b)
		require.Equalf(t, (len(b) < abi.ProfileRecordSize), (err != nil), "len %d: err %v", len(b), err)
		require.False(t, err == nil && !bytes.Equal(r.Append(nil), b[:abi.ProfileRecordSize]), "decode → encode changed the record bytes")
	})
}

// TestDecodeShort: every prefix shorter than the struct is a
// *ShortBufferError naming the struct and both lengths, and no panic.
func TestDecodeShort(t *testing.T) {
	full := bytes.Repeat([]byte{0xA5}, abi.CoreHeaderSize)
	for n := 0; n < abi.CoreHeaderSize; n++ {
		_, err := abi.DecodeCoreHeader(full[:n])
		var sb *abi.ShortBufferError
		require.ErrorAsf(t, err, &sb, "DecodeCoreHeader bytes) = %v", err)
		require.Equalf(t, "CoreHeader", sb.Struct, "DecodeCoreHeader bytes) = %v", err)
		require.Equalf(t, abi.CoreHeaderSize, sb.Need, "DecodeCoreHeader bytes) = %v", err)
		assert.Equalf(t, n, sb.Have, "DecodeCoreHeader bytes) = %v", err)
	}
	for n := 0; n < abi.ProfileRecordSize; n++ {
		_, err := abi.DecodeProfileRecord(full[:n])
		var sb *abi.ShortBufferError
		require.ErrorAsf(t, err, &sb, "DecodeProfileRecord bytes) = %v", err)
		require.Equalf(t, "ProfileRecord", sb.Struct, "DecodeProfileRecord bytes) = %v", err)
		require.Equalf(t, abi.ProfileRecordSize, sb.Need, "DecodeProfileRecord bytes) = %v", err)
		assert.Equalf(t, n, sb.Have, "DecodeProfileRecord bytes) = %v", err)
	}
	_, err := abi.DecodeCoreHeader(nil)
	assert.EqualErrorf(t, err, "abi: short buffer: CoreHeader needs 64 bytes, have 0", "DecodeCoreHeader(nil) error = %v", err)
}

// TestWireLayout checks the encoding against the tables of gen/doc/ABI.md, written out
// by hand (struct.Struct("<QIIIIII32x") and "<QQIIII"), not against the
// generated constants.
func TestWireLayout(t *testing.T) {
	h := abi.CoreHeader{
		EntryCycle: 0x0102030405060708, RecordCount: 0x11121314, DroppedCount: 0x21222324,
		CoreType: abi.CoreTypeAIV, BlockID: 0x31323334, RecordCapacity: 0x41424344, Reserved: 0x51525354,
	}
	h.Padding[0], h.Padding[31] = 0xEE, 0xEF
	want := make([]byte, 64)
	le := binary.LittleEndian
	le.PutUint64(want[0:], 0x0102030405060708)
	le.PutUint32(want[8:], 0x11121314)
	le.PutUint32(want[12:], 0x21222324)
	le.PutUint32(want[16:], 2)
	le.PutUint32(want[20:], 0x31323334)
	le.PutUint32(want[24:], 0x41424344)
	le.PutUint32(want[28:], 0x51525354)
	want[32], want[63] = 0xEE, 0xEF
	assert.Equal(t, []byte(want), []byte(h.Append(nil)), "CoreHeader encoding")

	r := abi.ProfileRecord{StartCycle: 0x0102030405060708, EndCycle: 0x1112131415161718, DescID: 0x20067, TaskID: 7, StageTaskIndex: 9, OwnerID: abi.InvalidOwnerID}
	want = make([]byte, 32)
	le.PutUint64(want[0:], 0x0102030405060708)
	le.PutUint64(want[8:], 0x1112131415161718)
	le.PutUint32(want[16:], 0x20067)
	le.PutUint32(want[20:], 7)
	le.PutUint32(want[24:], 9)
	le.PutUint32(want[28:], 0xFFFFFFFF)
	assert.Equal(t, []byte(want), []byte(r.Append(nil)), "ProfileRecord encoding")

	assert.Equal(t, abi.CoreHeaderSize, 64, "sizes or offsets differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
	assert.Equal(t, abi.ProfileRecordSize, 32, "sizes or offsets differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
	assert.Equal(t, abi.CoreHeaderRecordCapacityOffset, 24, "sizes or offsets differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
	assert.Equal(t, abi.ProfileRecordOwnerIDOffset, 28, "sizes or offsets differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
}

// TestFieldTables: the tables tile each struct exactly, in wire order, and
// carry the schema's checks.
func TestFieldTables(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields []abi.FieldInfo
		size   int
	}{
		{"CoreHeader", abi.CoreHeaderFields(), abi.CoreHeaderSize},
		{"ProfileRecord", abi.ProfileRecordFields(), abi.ProfileRecordSize},
	} {
		end := 0
		for _, f := range c.fields {
			assert.Equalf(t, end, f.Offset, "%s.%s at", c.name, f.Name)
			assert.NotEmptyf(t, f.Doc, "%s.%s has no doc", c.name, f.Name)
			end = f.Offset + f.Size
		}
		assert.Equalf(t, c.size, end, "%s fields end at", c.name)
	}
	byName := map[string]abi.FieldInfo{}
	for _, f := range append(abi.CoreHeaderFields(), abi.ProfileRecordFields()...) {
		byName[f.Name] = f
	}
	f := byName["core_type"]
	assert.Equalf(t, "CoreType", f.Enum, "core_type: %+v", f)
	assert.Equalf(t, "u32", f.Type, "core_type: %+v", f)
	assert.Truef(t, byName["reserved"].Zero, "checks missing from the field tables: %+v", byName)
	assert.Equalf(t, "record_capacity", byName["record_count"].MaxField, "checks missing from the field tables: %+v", byName)
	assert.Equalf(t, "start_cycle", byName["end_cycle"].MinField, "checks missing from the field tables: %+v", byName)
	assert.Truef(t, byName["padding"].WarnNonzero, "checks missing from the field tables: %+v", byName)
	// The slice is the caller's: changing it does not change the next one.
	fs := abi.CoreHeaderFields()
	fs[0].Name = "changed"
	assert.Equal(t, "entry_cycle", abi.CoreHeaderFields()[0].Name, "CoreHeaderFields shares its backing array")
}

// TestIsZero: a header is zero when its seven fields are, whatever its
// padding holds; any one nonzero field makes it live.
func TestIsZero(t *testing.T) {
	var h abi.CoreHeader
	h.Padding[5] = 1
	assert.True(t, h.IsZero(), "padding made the header nonzero")
	set := []func(*abi.CoreHeader){
		func(h *abi.CoreHeader) { h.EntryCycle = 1 },
		func(h *abi.CoreHeader) { h.RecordCount = 1 },
		func(h *abi.CoreHeader) { h.DroppedCount = 1 },
		func(h *abi.CoreHeader) { h.CoreType = abi.CoreTypeAIC },
		func(h *abi.CoreHeader) { h.BlockID = 1 },
		func(h *abi.CoreHeader) { h.RecordCapacity = 16 },
		func(h *abi.CoreHeader) { h.Reserved = 1 },
	}
	for i, s := range set {
		h := abi.CoreHeader{}
		s(&h)
		assert.Falsef(t, h.IsZero(), "field %d set, IsZero still true", i)
	}
	r := abi.ProfileRecord{OwnerID: 1}
	require.False(t, r.IsZero(), "ProfileRecord.IsZero wrong")
	assert.True(t, (&abi.ProfileRecord{}).IsZero(), "ProfileRecord.IsZero wrong")
}

// TestFieldValue: every field's Value is the little-endian integer of its
// bytes, read byte by byte here; pad fields have none.
func TestFieldValue(t *testing.T) {
	b := make([]byte, 64)
	for i := range b {
		b[i] = byte(0x11 * (i + 1))
	}
	for _, fields := range [][]abi.FieldInfo{abi.CoreHeaderFields(), abi.ProfileRecordFields()} {
		for _, f := range fields {
			var want uint64
			if f.Type != "pad" {
				for i := f.Size - 1; i >= 0; i-- {
					want = want<<8 | uint64(b[f.Offset+i])
				}
			}
			assert.Equalf(t, want, f.Value(b), "%s: Value", f.Name)
		}
	}
}
