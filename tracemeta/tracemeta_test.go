package tracemeta

import (
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
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
	if got := string(o.AppendRank(nil)); got != want {
		t.Errorf("AppendRank:\n got %s\nwant %s", got, want)
	}
	// What is written reads back: the readers and the writer share the type.
	back, err := Unmarshal(o.AppendRank(nil))
	if err != nil {
		t.Fatal(err)
	}
	if *back.Rank != 3 || *back.KernelName != "MegaMoe" || back.Capacities["AIV"] != 32 || *back.SchemaVersion != SchemaVersion || back.CubeSlots != nil {
		t.Errorf("read back: %+v", back)
	}
}

// A member of the wrong type is named by its place in the object.
func TestUnmarshalNamesTheMember(t *testing.T) {
	_, err := Unmarshal([]byte(`{"schemaVersion":1,"ranks":[{"rank":-1}]}`))
	if err == nil || err.Error() != "ranks.rank is a number -1; the schema has uint32" {
		t.Errorf("err = %v", err)
	}
	if strings.Contains(err.Error(), "Object") {
		t.Errorf("err = %v: names a Go type", err)
	}
}

func itoa[T int | uint64](v T) string { return strconv.FormatUint(uint64(v), 10) }
