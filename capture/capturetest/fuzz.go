package capturetest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The capture fuzz targets (decode's FuzzDecode, validate's FuzzValidate,
// fuzz's FuzzAgreement) share their seeds and checks here.

const (
	// FuzzName labels a fuzzed capture in errors.
	FuzzName = "fuzz.bin"
	// MaxFuzzInput is the largest capture a target looks at: a megabyte
	// exercises every path a larger one does.
	MaxFuzzInput = 1 << 20
	// MaxFuzzCubeSlots bounds the cube slot count a capture target asks
	// for, so the per-slot work and memory stay small.
	MaxFuzzCubeSlots = 4096
)

// A capture target's input is the capture's leading bytes and a count of
// zero bytes that follow them. Most of a real capture is zero (idle slots,
// unused record space): keeping the zeros out of the fuzzed bytes keeps
// inputs small, so the fuzzer mutates what matters and minimises quickly.
// Any capture is some such pair.

// FuzzSeed is one seed of the capture targets: the capture (its bytes
// and trailing zeros) and the layout options (cube slots 0 = the minimum;
// planned: the capacities are given).
type FuzzSeed struct {
	Data      []byte
	Zeros     uint32
	CubeSlots uint16
	Planned   bool
	AIC, AIV  uint32
}

// seed splits a whole capture into its bytes and trailing zeros.
func seed(buf []byte, cubeSlots uint16, planned bool, aic, aiv uint32) FuzzSeed {
	data := bytes.TrimRight(buf, "\x00")
	return FuzzSeed{Data: data, Zeros: uint32(len(buf) - len(data)), CubeSlots: cubeSlots, Planned: planned, AIC: aic, AIV: aiv}
}

// fuzzBytes rebuilds the capture a target was given; ok is false past
// MaxFuzzInput.
func fuzzBytes(data []byte, zeros uint32) ([]byte, bool) {
	if uint64(len(data))+uint64(zeros) > MaxFuzzInput {
		return nil, false
	}
	buf := make([]byte, len(data)+int(zeros))
	copy(buf, data)
	return buf, true
}

// FuzzSeeds are valid and broken captures of small layouts, written
// through the Go mirror of the device writer: starting points from which
// the fuzzer reaches every check. They keep their records in the first
// slots, so their bytes before the trailing zeros stay short.
func FuzzSeeds() []FuzzSeed {
	aic, aiv := abi.CoreTypeAIC, abi.CoreTypeAIV
	task := func(t abi.TaskType) uint32 { return abi.TaskTypeBase + uint32(t) }
	// cube: AIC records only; AIV/0 idle, so the AIV capacity reads as 0.
	cube := func() *Builder {
		b := New(abi.MinCubeSlots, 16, 0)
		b.Enter(aic, 0, 1000).Span(aic, 0, 1010, 1100, task(abi.TaskTypeMatMul), 1)
		b.Span(aic, 0, 1100, 1110, abi.RuntimeStageTriggerEvent, 1)
		b.Enter(aic, 1, 990).Span(aic, 1, 995, 2000, abi.GraphStageBase+3, 2)
		return b
	}
	// vector: the AIV-pipeline layout, AIC capacity 0.
	vector := func() *Builder {
		b := New(abi.MinCubeSlots, 0, 16)
		b.Enter(aic, 0, 500)
		b.Span(aic, 0, 1, 2, task(abi.TaskTypeMatMul), 0) // dropped: capacity 0
		b.Enter(aiv, 0, 1000).Span(aiv, 0, 1001, 1500, task(abi.TaskTypeRmsNorm), 0)
		b.Span(aiv, 0, 1500, 1500, task(abi.TaskTypeShmemPutMemSignal), 1)
		b.Enter(aiv, 1, 1002).Span(aiv, 1, 1003, 1400, abi.RuntimeStageWaitDependency, 2)
		return b
	}
	var seeds []FuzzSeed
	for _, b := range []*Builder{cube(), vector()} {
		l := b.Layout
		seeds = append(seeds,
			seed(b.Bytes(), 0, false, 0, 0),
			seed(b.Bytes(), abi.MinCubeSlots, true, l.Capacities.AIC, l.Capacities.AIV),
			seed(NPY(b.Bytes()), 0, false, 0, 0))
	}

	// Drops, unsorted and overlapping records, unknown descriptors.
	b := cube()
	b.Enter(aic, 2, 4000)
	for i := range 20 {
		b.Span(aic, 2, uint64(5000-100*i), uint64(5150-100*i), 0x50000+uint32(i), uint32(i))
	}
	seeds = append(seeds, seed(b.Bytes(), 0, false, 0, 0))

	// One fault each, at the places decode stops.
	faults := []func(b *Builder){
		func(b *Builder) { b.SetHeader32(aic, 1, abi.CoreHeaderReservedOffset, 1) },
		func(b *Builder) { b.SetHeader32(aic, 1, abi.CoreHeaderRecordCountOffset, 17) },
		func(b *Builder) { b.SetHeader32(aic, 1, abi.CoreHeaderBlockIDOffset, 6) },
		func(b *Builder) { b.SetHeader32(aic, 1, abi.CoreHeaderRecordCapacityOffset, 32) },
		func(b *Builder) { b.SetHeader32(aic, 0, abi.CoreHeaderRecordCapacityOffset, 17) },
		func(b *Builder) { b.Put64(b.RecordOffset(aic, 0, 1, abi.ProfileRecordEndCycleOffset), 1) },
		func(b *Builder) { b.SetHeader32(aic, 1, abi.CoreHeaderRecordCountOffset, 0) },
		func(b *Builder) { b.SetHeader32(aic, 0, abi.CoreHeaderCoreTypeOffset, 2) },
	}
	for _, fault := range faults {
		b := cube()
		fault(b)
		seeds = append(seeds, seed(b.Bytes(), 0, false, 0, 0))
	}
	whole := cube().Bytes()
	seeds = append(seeds,
		seed(whole[:abi.MinCubeSlots*abi.CoreHeaderSize*3-1], 0, false, 0, 0), // short
		seed(append(whole, make([]byte, 100)...), 0, false, 0, 0),             // bytes after the layout
		FuzzSeed{},
		seed(NPYWithHeader("{'descr': '<u4', 'fortran_order': False, 'shape': (3, 7), }", whole), 0, false, 0, 0),
		seed(whole, 40, true, 16, 0),         // truncated for 40 cube slots
		seed(whole, 23, false, 0, 0),         // too few cube slots
		seed(whole, 0, true, 16, 1),          // an unaligned planned capacity
		seed(whole, 0, true, 0xFFFFFFF0, 16)) // past MaxRecordsPerCore

	// A larger cube slot count, planned.
	big := New(40, 0, 16)
	big.Enter(aiv, 0, 7).Span(aiv, 0, 8, 9, task(abi.TaskTypeShmemGetMem), 3)
	seeds = append(seeds, seed(big.Bytes(), 40, true, 0, 16))
	return seeds
}

// AddFuzzSeeds adds FuzzSeeds to a target whose arguments are the capture
// and its layout request (data, zeros, cubeSlots, planned, aic, aiv).
func AddFuzzSeeds(f *testing.F) {
	for _, s := range FuzzSeeds() {
		f.Add(s.Data, s.Zeros, s.CubeSlots, s.Planned, s.AIC, s.AIV)
	}
}

// FuzzInput turns a target's arguments into the capture (data and
// zeros trailing zero bytes) and its layout options (the cube slot count
// reduced to at most MaxFuzzCubeSlots); ok is false for a capture past
// MaxFuzzInput.
func FuzzInput(data []byte, zeros uint32, cubeSlots uint16, planned bool, aic, aiv uint32) (buf []byte, o capture.Request, ok bool) {
	if buf, ok = fuzzBytes(data, zeros); !ok {
		return nil, o, false
	}
	o.CubeSlots = uint32(cubeSlots) % (MaxFuzzCubeSlots + 1)
	if planned {
		o.Capacities = &abi.Capacities{AIC: aic, AIV: aiv}
	}
	return buf, o, true
}

// RequestMakesNoLayout reports whether the options alone rule out every
// layout: too few cube slots, or a planned capacity the ABI refuses. Such
// options are a plain error, not a problem of the capture.
func RequestMakesNoLayout(o capture.Request) bool {
	if o.CubeSlots != 0 && o.CubeSlots < abi.MinCubeSlots {
		return true
	}
	return o.Capacities != nil && (abi.CheckCapacity(uint64(o.Capacities.AIC)) != nil || abi.CheckCapacity(uint64(o.Capacities.AIV)) != nil)
}

// CheckProblem requires err to be a well-formed *capture.Problem about
// the capture: an error, naming the file, at an offset inside it (the end
// of the file for bytes that are missing), with a slot whenever it names
// a record. It returns the problem.
func CheckProblem(t testing.TB, err error, size int) *capture.Problem {
	t.Helper()
	var p *capture.Problem
	require.ErrorAsf(t, err, &p, "error is not a *capture.Problem: %T %v", err, err)
	assert.Equalf(t, FuzzName, p.File, "problem names file: %v", p)
	assert.GreaterOrEqualf(t, p.Off, int64(0), "problem offset is outside the %d-byte file: %v", size, p)
	assert.LessOrEqualf(t, p.Off, int64(size), "problem offset is outside the %d-byte file: %v", size, p)
	assert.Equalf(t, capture.Error, p.Severity, "problem severity: %v", p)
	assert.NotEmptyf(t, p.Code, "problem code: %v", p)
	assert.GreaterOrEqualf(t, p.Record, -1, "problem record: %v", p)
	if p.Record >= 0 {
		assert.NotEmptyf(t, p.Slot, "problem record %d names no slot: %v", p.Record, p)
	}
	assert.Truef(t, strings.HasPrefix(p.Error(), FuzzName+": "), "problem text %q does not start with the file name", p.Error())
	return p
}
