package decode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One test case per decoding rule (docs/decode.md, gen/doc/ABI.md) that a capture can break:
// Decode fails with a *capture.Problem at the offending byte, slot and
// record, and nothing is decoded.
func TestDecodeErrors(t *testing.T) {
	const aic, aiv = 16, 32
	planned := capture.Request{Capacities: &abi.Capacities{AIC: aic, AIV: aiv}}
	valid := func() *capturetest.Builder {
		b := capturetest.New(abi.MinCubeSlots, aic, aiv)
		b.Enter(abi.CoreTypeAIC, 0, 100).Span(abi.CoreTypeAIC, 0, 100, 200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
		b.Enter(abi.CoreTypeAIV, 0, 100).Span(abi.CoreTypeAIV, 0, 150, 250, abi.RuntimeStageWaitDependency, 2)
		b.Enter(abi.CoreTypeAIV, 17, 120)
		b.Span(abi.CoreTypeAIV, 17, 130, 140, abi.GraphStageBase+1, 3).Span(abi.CoreTypeAIV, 17, 140, 180, abi.GraphStageBase+2, 3)
		return b
	}
	b0 := valid()
	aiv17 := b0.Slot(abi.CoreTypeAIV, 17)
	layoutSize := int(b0.Layout.Size())
	headers := 3 * abi.MinCubeSlots * abi.CoreHeaderSize
	npyBase := int64(len(capturetest.NPY(nil)))

	for _, tc := range []struct {
		name   string
		bytes  func() []byte
		opts   capture.Request
		code   capture.Code
		off    int64
		slot   string
		record int
	}{
		{"short-buffer", func() []byte { return valid().Bytes()[:headers-1] },
			planned, capture.CodeShortBuffer, int64(headers - 1), "", -1},
		{"bad-capacity-unaligned", func() []byte {
			return valid().SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCapacityOffset, 17).Bytes()
		}, capture.Request{}, capture.CodeBadCapacity, abi.CoreHeaderRecordCapacityOffset, "AIC/0", -1},
		{"bad-capacity-too-large", func() []byte {
			b := valid()
			return b.SetHeader32(abi.CoreTypeAIV, 0, abi.CoreHeaderRecordCapacityOffset, abi.MaxRecordsPerCore+16).Bytes()
		}, capture.Request{}, capture.CodeBadCapacity, int64(b0.Slot(abi.CoreTypeAIV, 0).Offset) + abi.CoreHeaderRecordCapacityOffset, "AIV/0", -1},
		{"truncated-layout", func() []byte { return valid().Bytes()[:layoutSize-1] },
			planned, capture.CodeTruncated, int64(layoutSize - 1), "", -1},
		{"truncated-npy", func() []byte {
			f := capturetest.NPY(valid().Bytes())
			return f[:len(f)-10]
		}, planned, capture.CodeTruncated, npyBase + int64(layoutSize) - 10, "", -1},
		{"bad-npy", func() []byte {
			f := capturetest.NPY(valid().Bytes())
			f[6] = 9 // format version 9.0
			return f
		}, planned, capture.CodeBadNPY, 6, "", -1},
		{"slot-identity", func() []byte {
			return valid().SetHeader32(abi.CoreTypeAIV, 17, abi.CoreHeaderBlockIDOffset, 5).Bytes()
		}, planned, capture.CodeSlotIdentity, int64(aiv17.Offset) + abi.CoreHeaderCoreTypeOffset, "AIV/17", -1},
		{"capacity-mismatch", func() []byte {
			return valid().SetHeader32(abi.CoreTypeAIV, 17, abi.CoreHeaderRecordCapacityOffset, 48).Bytes()
		}, planned, capture.CodeCapacityMismatch, int64(aiv17.Offset) + abi.CoreHeaderRecordCapacityOffset, "AIV/17", -1},
		{"reserved-nonzero", func() []byte {
			return valid().SetHeader32(abi.CoreTypeAIV, 17, abi.CoreHeaderReservedOffset, 1).Bytes()
		}, planned, capture.CodeReservedNonzero, int64(aiv17.Offset) + abi.CoreHeaderReservedOffset, "AIV/17", -1},
		{"count-over-capacity", func() []byte {
			return valid().SetHeader32(abi.CoreTypeAIV, 17, abi.CoreHeaderRecordCountOffset, aiv+1).Bytes()
		}, planned, capture.CodeCountOverCapacity, int64(aiv17.Offset) + abi.CoreHeaderRecordCountOffset, "AIV/17", -1},
		{"negative-interval", func() []byte {
			b := valid()
			return b.Put64(b.RecordOffset(abi.CoreTypeAIV, 17, 1, abi.ProfileRecordEndCycleOffset), 139).Bytes()
		}, planned, capture.CodeNegativeInterval, int64(aiv17.RecordOffset(1)) + abi.ProfileRecordEndCycleOffset, "AIV/17", 1},
		{"no-records", func() []byte {
			b := capturetest.New(abi.MinCubeSlots, aic, aiv)
			b.Enter(abi.CoreTypeAIV, 3, 100)
			// A core that wrote nothing, and one whose records were all dropped.
			b.Enter(abi.CoreTypeAIV, 4, 100).SetHeader32(abi.CoreTypeAIV, 4, abi.CoreHeaderDroppedCountOffset, 9)
			return b.Bytes()
		}, planned, capture.CodeNoRecords, 0, "", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "cap.bin"
			data := tc.bytes()
			if strings.Contains(tc.name, "npy") {
				name = "cap.npy"
			}
			_, err := mustDecode(name, data, tc.opts)
			var p *capture.Problem
			require.ErrorAsf(t, err, &p, "got %v, want a *capture.Problem %s", err, tc.code)
			assert.Equalf(t, tc.code, p.Code, "code (%v)", p)
			assert.Equalf(t, tc.slot, p.Slot, "slot (%v)", p)
			assert.Equalf(t, tc.off, p.Off, "offset (%v)", p)
			assert.Equalf(t, tc.record, p.Record, "record (%v)", p)
			msg := err.Error()
			for _, want := range []string{name + ":", fmt.Sprintf("@%#x", tc.off), tc.slot} {
				assert.Contains(t, msg, want, "message")
			}
		})
	}
}

// The capture is valid before the faults the cases above put in it.
func TestDecodeErrorsBaseIsValid(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 32)
	b.Enter(abi.CoreTypeAIC, 0, 100).Span(abi.CoreTypeAIC, 0, 100, 200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
	b.Enter(abi.CoreTypeAIV, 0, 100).Span(abi.CoreTypeAIV, 0, 150, 250, abi.RuntimeStageWaitDependency, 2)
	for _, o := range []capture.Request{{}, {Capacities: &abi.Capacities{AIC: 16, AIV: 32}}} {
		_, err := mustDecode("cap.bin", b.Bytes(), o)
		assert.NoErrorf(t, err, "%+v", o)
		_, err = mustDecode("cap.npy", capturetest.NPY(b.Bytes()), o)
		assert.NoErrorf(t, err, "npy %+v", o)
	}
}
