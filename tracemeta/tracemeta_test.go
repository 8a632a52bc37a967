package tracemeta

import (
	"strconv"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rank object is written member by member in the reference decoder's
// order (a float as Python prints it, 1500.0); the text here is written
// out by hand, not by the code under test.
func TestAppendRank(t *testing.T) {
	o := Object{
		Rank: Ptr[uint32](3), DeviceID: Ptr[uint32](5), SoCName: Ptr("Ascend950"), MHz: Ptr(1500.0),
		AnchorCycle: Ptr[uint64](7), Capacities: map[string]uint32{"AIC": 16, "AIV": 32},
		RecordCount: Ptr[uint64](2), Dropped: Ptr[uint64](1), BufferBytes: Ptr[uint64](4096),
		Detailed: Ptr(true), KernelName: Ptr("MegaMoe"), OwnerLabel: Ptr("Owner"),
		Warnings: []string{`a "quoted" warning`}, ShiftCycles: Ptr[uint64](9),
	}
	want := `{"schemaVersion":1,"rank":3,"deviceId":5,"socName":"Ascend950","cycleFrequencyMHz":1500.0,"anchorCycle":7,` +
		`"recordCapacityPerCore":{"AIC":16,"AIV":32},"maxRecordCapacityPerCore":` + itoa(abi.MaxRecordsPerCore) +
		`,"recordCount":2,"droppedRecordCount":1,"profileBufferBytes":4096,"detailedTaskNames":true,"kernelName":"MegaMoe","ownerLabel":"Owner",` +
		`"warnings":["a \"quoted\" warning"],"timestampShiftCycles":9,"abiVersion":` + itoa(abi.Version) + `,"abiFingerprint":"` + abi.FingerprintHex + `"}`
	assert.Equal(t, want, string(o.AppendRank(nil)), "AppendRank")
	// What is written reads back: the readers and the writer share the type.
	back, err := Unmarshal(o.AppendRank(nil))
	require.NoError(t, err)
	require.Equalf(t, uint32(3), *back.Rank, "read back: %+v", back)
	require.Equalf(t, "MegaMoe", *back.KernelName, "read back: %+v", back)
	require.Equalf(t, uint32(32), back.Capacities["AIV"], "read back: %+v", back)
	require.Equalf(t, SchemaVersion, *back.SchemaVersion, "read back: %+v", back)
	require.Nilf(t, back.CubeSlots, "read back: %+v", back)
}

// A member of the wrong type is named by its place in the object.
func TestUnmarshalNamesTheMember(t *testing.T) {
	_, err := Unmarshal([]byte(`{"schemaVersion":1,"ranks":[{"rank":-1}]}`))
	assert.EqualErrorf(t, err, "ranks.rank is a number -1; the schema has uint32", "err = %v", err)
	assert.NotContainsf(t, err.Error(), "Object", "err = %v: names a Go type", err)
}

func itoa[T int | uint64](v T) string { return strconv.FormatUint(uint64(v), 10) }

// The window object of invocations opens with upstream's window object's
// members in its order (profiler/profiler.py@8f3c6ce, _build_trace):
// schemaVersion, windowIndex, anchorCycle, invocationCount, recordCount,
// droppedRecordCount, detailedTaskNames, invocations, warnings; the ABI and
// the ranks follow. Several captures that are not a window keep the ABI
// first and none of the window's members.
func TestAppendWindow(t *testing.T) {
	w := Object{
		WindowIndex: Ptr[int64](2), AnchorCycle: Ptr[uint64](500), RecordCount: Ptr[uint64](5), Dropped: Ptr[uint64](1),
		Detailed: Ptr(true), Warnings: []string{"w"},
		Invocations: []Invocation{{InvocationID: 0, KernelName: Ptr("MegaMoe"), AnchorCycle: Ptr[uint64](500)}},
	}
	abiMembers := `"abiVersion":` + itoa(abi.Version) + `,"abiFingerprint":"` + abi.FingerprintHex + `"`
	want := `{"schemaVersion":1,"windowIndex":2,"anchorCycle":500,"invocationCount":1,"recordCount":5,"droppedRecordCount":1,` +
		`"detailedTaskNames":true,"invocations":[` + "\n" +
		`{"invocationId":0,"step":null,"direction":null,"kernelName":"MegaMoe","rank":0,"deviceId":0,"anchorCycle":500,"recordCount":0,"droppedRecordCount":0,"capture":""}` +
		"\n" + `],"warnings":["w"],` + abiMembers + `,"ranks":[` + "\n]}"
	assert.Equal(t, want, string(w.AppendWindow(nil)), "AppendWindow")
	back, err := Unmarshal(w.AppendWindow(nil))
	require.NoError(t, err)
	require.Equalf(t, int64(2), *back.WindowIndex, "read back: %+v", back)
	require.Equalf(t, uint64(500), *back.AnchorCycle, "read back: %+v", back)
	require.Truef(t, *back.Detailed, "read back: %+v", back)
	assert.Equalf(t, 1, *back.InvocationCount, "read back: %+v", back)

	ranks := Object{RecordCount: Ptr[uint64](5), Dropped: Ptr[uint64](0), WindowIndex: Ptr[int64](2)}
	want = `{"schemaVersion":1,` + abiMembers + `,"recordCount":5,"droppedRecordCount":0,"ranks":[` + "\n]}"
	assert.Equal(t, want, string(ranks.AppendWindow(nil)), "AppendWindow without invocations")
}
