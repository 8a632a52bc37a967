package dump_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/dump"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// small is AIC/0 with three records, AIV/0 entered, AIV/5 with one record
// and an unknown descriptor.
func small() *capturetest.Builder {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1000).
		Span(abi.CoreTypeAIC, 0, 1100, 1200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1).
		Span(abi.CoreTypeAIC, 0, 1200, 1210, abi.RuntimeStageTriggerEvent, 1).
		Write(abi.CoreTypeAIC, 0, abi.ProfileRecord{StartCycle: 1300, EndCycle: 1400, DescID: abi.GraphStageBase + 2, TaskID: 4, StageTaskIndex: 6, OwnerID: 3})
	b.Enter(abi.CoreTypeAIV, 0, 900)
	b.Enter(abi.CoreTypeAIV, 5, 950).Span(abi.CoreTypeAIV, 5, 960, 990, 0x99, 2)
	return b
}

func run(t *testing.T, name string, buf []byte, o dump.Options) (string, error) {
	t.Helper()
	c, err := capture.FromBytes(name, buf)
	require.NoError(t, err)
	var out bytes.Buffer
	err = dump.Write(&out, c, o)
	return out.String(), err
}

func TestDump(t *testing.T) {
	broken := small()
	broken.SetHeader32(abi.CoreTypeAIV, 5, abi.CoreHeaderCoreTypeOffset, uint32(abi.CoreTypeAIC))
	broken.SetHeader32(abi.CoreTypeAIV, 5, abi.CoreHeaderReservedOffset, 3)
	broken.Put64(broken.RecordOffset(abi.CoreTypeAIC, 0, 1, abi.ProfileRecordEndCycleOffset), 1150)
	broken.Buf[broken.HeaderOffset(abi.CoreTypeAIC, 7, abi.CoreHeaderPaddingOffset+9)] = 0xab
	broken.Buf = append(broken.Buf, make([]byte, 40)...)

	cases := []struct {
		name string
		buf  []byte
		o    dump.Options
	}{
		{"valid", small().Bytes(), dump.Options{Records: dump.DefaultRecords}},
		{"records-1", small().Bytes(), dump.Options{Records: 1}},
		{"broken", broken.Bytes(), dump.Options{Records: -1}},
		{"slot-idle", small().Bytes(), dump.Options{Slot: "AIV/6", Records: 8}},
		{"slot-broken", broken.Bytes(), dump.Options{Slot: "AIV/5", Records: 8}},
		{"npy", capturetest.NPY(small().Bytes()), dump.Options{Slot: "AIC/0", Records: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, "capture.bin", c.buf, c.o)
			require.NoError(t, err)
			golden.Check(t, filepath.Join("testdata", c.name+".golden"), []byte(out))
		})
	}
}

func TestDumpFollowsTheSchema(t *testing.T) {
	out, err := run(t, "capture.bin", small().Bytes(), dump.Options{Slot: "AIC/0", Records: 1})
	require.NoError(t, err)
	for _, f := range append(abi.CoreHeaderFields(), abi.ProfileRecordFields()...) {
		assert.Contains(t, out, "  "+f.Name+" ", "every schema field is shown: out")
	}
	assert.Contains(t, out, "0x20067 TaskType_MatMul", "out")
	assert.Contains(t, out, "1 (AIC)", "out")
}

func TestDumpFoldsIdleSlots(t *testing.T) {
	out, err := run(t, "capture.bin", small().Bytes(), dump.Options{Records: 0})
	require.NoError(t, err)
	assert.Contains(t, out, "\nAIC/1..AIC/23 idle (23 slots @0x0240..@0x35ff)\n", "out")
	assert.Contains(t, out, "\nAIV/1..AIV/4 idle (4 slots @", "out")
	assert.Contains(t, out, "\nAIV/6..AIV/47 idle (42 slots @", "out")
	assert.NotContainsf(t, out, "AIC/1 @", "an idle slot gets no header dump: out = %q, want no %q", out, "AIC/1 @")
}

func TestDumpWithoutLayout(t *testing.T) {
	b := small()
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCapacityOffset, 17)
	out, err := run(t, "capture.bin", b.Bytes(), dump.Options{Records: 8})
	require.Error(t, err, "got no error, want one")
	assert.ErrorIsf(t, err, dump.ErrNoLayout, "%v: errors.Is(err, dump.ErrNoLayout) = false, want true", err)
	golden.Check(t, filepath.Join("testdata", "no-layout.golden"), []byte(out))

	// Too short for even one header: the problem and nothing more.
	out, err = run(t, "short.bin", b.Bytes()[:40], dump.Options{})
	assert.ErrorIs(t, err, dump.ErrNoLayout, "errors.Is(err, dump.ErrNoLayout) = false, want true")
	assert.Contains(t, out, "error short-buffer @0x28", "out")
	assert.NotContainsf(t, out, "entry_cycle", "out = %q, want no %q", out, "entry_cycle")
}

func TestDumpUsage(t *testing.T) {
	for _, slot := range []string{"AIV/48", "AIX/1", "AIC/-1", "AIC3"} {
		_, err := run(t, "capture.bin", small().Bytes(), dump.Options{Slot: slot})
		require.Errorf(t, err, "%s: got no error, want one", slot)
		assert.NotErrorIs(t, err, dump.ErrNoLayout, "errors.Is(err, dump.ErrNoLayout) = true, want false")
		assert.Contains(t, err.Error(), "--slot")
	}
}
