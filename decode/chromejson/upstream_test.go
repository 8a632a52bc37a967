package chromejson

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/megakernel/cycleabi/internal/jsontext"
)

// Python's (a - b) / mhz, from python3 -c 'print(repr((2**60+1)/3))' etc.:
// int by int is one correctly rounded division, not two roundings.
func TestPyDivide(t *testing.T) {
	i := func(v int64) UpstreamNumber { return UpstreamNumber{Int: big.NewInt(v)} }
	for _, c := range []struct {
		a, b uint64
		mhz  UpstreamNumber
		want string
	}{
		{1<<60 + 32, 0, i(3), "3.843071682022824e+17"},    // float(2**60 + 32) / 3 is ...823e+17
		{1<<63 + 12549, 5, i(3), "3.074457345618263e+18"}, // float(...) / 3 is 3.0744573456182625e+18
		{1<<64 - 1, 5, i(1000), "1.844674407370955e+16"},
		{0, 1<<63 + 7, i(3), "-3.0744573456182584e+18"},
		{1<<60 + 1, 0, UpstreamNumber{Float: 50}, "2.305843009213694e+16"},
		{10, 3, i(3), "2.3333333333333335"},
	} {
		got := string(jsontext.AppendPyFloat(nil, pyDivide(c.a, c.b, c.mhz)))
		assert.Equal(t, c.want, got, "(%d - %d) / %s", c.a, c.b, c.mhz)
	}
}

// upstreamBuffer is a 24/48-slot buffer of capacity 16 per core with
// records (start, end) on AIV/block.
func upstreamBuffer(block int, records ...[2]uint64) []byte {
	const aic, aiv = 16, 16
	b := make([]byte, 24*(64+32*aic)+48*(64+32*aiv))
	for s := 0; s < 24; s++ {
		h := b[s*(64+32*aic):]
		binary.LittleEndian.PutUint32(h[16:], 1)
		binary.LittleEndian.PutUint32(h[20:], uint32(s))
		binary.LittleEndian.PutUint32(h[24:], aic)
	}
	for s := 0; s < 48; s++ {
		h := b[24*(64+32*aic)+s*(64+32*aiv):]
		binary.LittleEndian.PutUint32(h[16:], 2)
		binary.LittleEndian.PutUint32(h[20:], uint32(s))
		binary.LittleEndian.PutUint32(h[24:], aiv)
		if s == block {
			binary.LittleEndian.PutUint64(h[0:], 100)
			binary.LittleEndian.PutUint32(h[8:], uint32(len(records)))
			for i, r := range records {
				rec := h[64+32*i:]
				binary.LittleEndian.PutUint64(rec[0:], r[0])
				binary.LittleEndian.PutUint64(rec[8:], r[1])
				binary.LittleEndian.PutUint32(rec[16:], 0x20000+103)
				binary.LittleEndian.PutUint32(rec[28:], 0xFFFFFFFF)
			}
		}
	}
	return b
}

func upstreamOne(buf []byte) UpstreamExport {
	return UpstreamExport{Tables: DefaultUpstreamTables(), Invocations: []UpstreamInvocation{{
		Name: "cap.bin", Buffer: buf, Config: UpstreamConfig{Rank: 2, CycleFrequencyMHz: UpstreamNumber{Int: big.NewInt(50)},
			KernelName: "MegaMoe", OwnerLabel: "Expert"}}}}
}

// A buffer upstream's decoder refuses is an *UpstreamError in its words,
// naming the file and the byte offset; nothing is written.
func TestWriteUpstreamRefuses(t *testing.T) {
	bad := upstreamBuffer(3, [2]uint64{200, 150})
	var out bytes.Buffer
	err := WriteUpstream(&out, upstreamOne(bad))
	var ue *UpstreamError
	require.ErrorAs(t, err, &ue)
	at := int64(24*(64+32*16) + 3*(64+32*16) + 64)
	assert.Equal(t, "cap.bin: byte "+itoa(int(at))+": Profile cycle interval is negative: slot=27, record=0, start=200, end=150", err.Error())
	assert.Zero(t, out.Len())

	err = WriteUpstream(&out, upstreamOne(upstreamBuffer(3)))
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "contains no records")

	err = WriteUpstream(&out, upstreamOne(make([]byte, 100)))
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "cap.bin: MegaKernel profile buffer is too small: expected at least 4608 bytes, got 100", err.Error())
	assert.Zero(t, out.Len())
}

// An int MHz is written as an int, a float as Python's repr; a window of
// no invocations is upstream's empty window object, byte for byte.
func TestWriteUpstreamShapes(t *testing.T) {
	var out bytes.Buffer
	x := upstreamOne(upstreamBuffer(0, [2]uint64{150, 175}))
	require.NoError(t, WriteUpstream(&out, x))
	assert.Contains(t, out.String(), `"ts": 1.0, "dur": 0.5,`)
	assert.Contains(t, out.String(), `"cycleFrequencyMHz": 50, "anchorCycle": 100,`)
	assert.True(t, strings.HasPrefix(out.String(), `{"traceEvents": [{"name": "process_name", "ph": "M", "pid": 2, "tid": 0, "args": {"name": "MegaMoe rank 2 device 2"}}, `), out.String()[:200])

	out.Reset()
	require.NoError(t, WriteUpstream(&out, UpstreamExport{Tables: DefaultUpstreamTables(), Window: &UpstreamWindow{Index: 4}}))
	assert.Equal(t, `{"traceEvents": [], "megaKernelCycleTrace": {"schemaVersion": 1, "windowIndex": 4, "invocationCount": 0, "recordCount": 0, "droppedRecordCount": 0, "detailedTaskNames": false, "invocations": [], "warnings": []}}`, out.String())
}

func TestReadUpstreamRequest(t *testing.T) {
	x, err := ReadUpstreamRequest("req.json", []byte(`{"tables": {"CUBE_SLOT_COUNT": 24, "DEFAULT_STAGE_NAMES": {"65536": "Wait"}},
		"invocations": [{"config": {"rank": 1, "cycle_frequency_mhz": 50.0, "kernel_name": "K", "owner_label": "O",
		"stage_names": {"196609": "GMM1"}, "soc_name": null, "device_id": null}}]}`))
	require.NoError(t, err)
	require.Len(t, x.Invocations, 1)
	c := x.Invocations[0].Config
	assert.Nil(t, c.CycleFrequencyMHz.Int, "50.0 is a float")
	assert.Equal(t, "50.0", c.CycleFrequencyMHz.String())
	assert.Equal(t, map[uint64]string{0x30001: "GMM1"}, c.StageNames)
	assert.Equal(t, map[uint64]string{0x10000: "Wait"}, x.Tables.StageNames)
	assert.Equal(t, 48, x.Tables.VectorSlots)

	_, err = ReadUpstreamRequest("req.json", []byte(`{"invocations": [{"config": {"rank": 1, "colour": 2}}]}`))
	assert.ErrorContains(t, err, "colour")
	_, err = ReadUpstreamRequest("req.json", []byte(`{"invocations": [{}, {}]}`))
	assert.ErrorContains(t, err, "2 invocations without a window")
	_, err = ReadUpstreamRequest("req.json", []byte(`{"invocations": [{"config": {"rank": 1.5}}]}`))
	assert.ErrorContains(t, err, "req.json")
	assert.ErrorContains(t, err, "expected an integer")
	_, err = ReadUpstreamRequest("req.json", []byte(`{"window": null, "invocations": [{}]} x`))
	assert.ErrorContains(t, err, "data after the request")
}

// Capacities from the Host past what a header holds are refused, not
// multiplied into a layout size that wraps around.
func TestWriteUpstreamHugeCapacity(t *testing.T) {
	x := upstreamOne(upstreamBuffer(0, [2]uint64{150, 175}))
	x.Tables.MaxRecords = 1<<64 - 1
	huge := uint64(1) << 59
	x.Invocations[0].Config.AICCapacity, x.Invocations[0].Config.AIVCapacity = &huge, &huge
	var out bytes.Buffer
	assert.ErrorContains(t, WriteUpstream(&out, x), "AIC profile record capacity exceeds")
}
