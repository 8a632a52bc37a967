// Package tracemeta is the megaKernelCycleTrace object: the member of a
// trace cycleabi decode writes (a Chrome JSON trace's megaKernelCycleTrace
// and metadata members, a Perfetto trace's ChromeEventBundle metadata)
// that says what was decoded: rank, device, SoC, cycle frequency, layout,
// kernel, record counts, warnings, the ABI, and for several captures the
// per-rank objects and the invocations of a window.
//
// Object is that object, member by member: decode/render fills one and
// appends it (AppendRank, AppendWindow); jsontrace, which reads a trace
// back into captures, and tracemerge, which places one in a framework's
// trace, unmarshal into it. Merge is the part of a merged trace's
// megaKernelTraceMerge object a reader of the merged trace notes. The
// package imports only the ABI, so a reader of traces links no decoder.
package tracemeta

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsonread"
	"github.com/megakernel/cycleabi/internal/jsontext"
)

// SchemaVersion is the version of the megaKernelCycleTrace object this
// build writes and reads.
const SchemaVersion = 1

// Object is a megaKernelCycleTrace object: one capture's (a rank's), or,
// for several captures, the window's, with the captures' own under Ranks.
// A member a trace leaves out is nil when read.
type Object struct {
	SchemaVersion *int     `json:"schemaVersion"`
	Rank          *uint32  `json:"rank"`
	DeviceID      *uint32  `json:"deviceId"`
	SoCName       *string  `json:"socName"`
	MHz           *float64 `json:"cycleFrequencyMHz"`
	AnchorCycle   *uint64  `json:"anchorCycle"`
	// WindowIndex is a window object's windowIndex: which window of a
	// profiling session upstream's profiler exported, counted from 0.
	WindowIndex *int64            `json:"windowIndex"`
	Capacities  map[string]uint32 `json:"recordCapacityPerCore"` // by core type name
	MaxCapacity *uint64           `json:"maxRecordCapacityPerCore"`
	RecordCount *uint64           `json:"recordCount"`
	Dropped     *uint64           `json:"droppedRecordCount"`
	BufferBytes *uint64           `json:"profileBufferBytes"`
	Detailed    *bool             `json:"detailedTaskNames"`
	KernelName  *string           `json:"kernelName"`
	OwnerLabel  *string           `json:"ownerLabel"`
	Warnings    []string          `json:"warnings"`
	// KernelFamily is the kernel family decode read the capture's ids
	// under ("none" for the schema's own tables), KernelFamilyFrom what
	// chose it ("--kernel-family", "kernel name \"MegaMoe\"", the ids it
	// was inferred from): a trace read back is read under it. Written
	// only by a decode that knew it.
	KernelFamily     *string `json:"kernelFamily"`
	KernelFamilyFrom *string `json:"kernelFamilyFrom"`
	// ShiftCycles is how far the timestamps were shifted to keep them
	// non-negative (written only when they were).
	ShiftCycles *uint64 `json:"timestampShiftCycles"`
	// DependencyArrows and WaitsWithoutProducer are written only when a
	// schedule gave the dependencies.
	DependencyArrows     *uint64 `json:"dependencyArrows"`
	WaitsWithoutProducer *uint64 `json:"waitsWithoutProducer"`
	// ABIVersion and ABIFingerprint are the ABI the trace was decoded
	// with: AppendRank and AppendWindow write this build's.
	ABIVersion     *int    `json:"abiVersion"`
	ABIFingerprint *string `json:"abiFingerprint"`
	// The layout members are written when the decoder found the layout.
	CubeSlots       *uint32 `json:"cubeSlots"`
	LayoutSource    *string `json:"layoutSource"`
	CubeSlotsSource *string `json:"cubeSlotsSource"`
	LayoutFound     *string `json:"layoutFound"`
	// The window's members: its invocations (one per capture) and the
	// captures' objects.
	InvocationCount *int         `json:"invocationCount"`
	Invocations     []Invocation `json:"invocations"`
	Ranks           []Object     `json:"ranks"`
}

// Invocation is one entry of a window's invocations: one kernel launch,
// one capture.
type Invocation struct {
	InvocationID int64   `json:"invocationId"`
	Step         *int64  `json:"step"`      // null when unknown
	Direction    *string `json:"direction"` // null when unknown
	KernelName   *string `json:"kernelName"`
	Rank         *uint32 `json:"rank"`
	DeviceID     *uint32 `json:"deviceId"`
	AnchorCycle  *uint64 `json:"anchorCycle"`
	RecordCount  *uint64 `json:"recordCount"`
	Dropped      *uint64 `json:"droppedRecordCount"`
	Capture      *string `json:"capture"`
}

// AppendRank appends o as one capture's object: its members in the
// reference decoder's order, then the ABI and the layout. A member the
// reference always writes is written as its zero when nil; the optional
// ones only when set.
func (o *Object) AppendRank(b []byte) []byte {
	b = append(b, `{"schemaVersion":`...)
	b = strconv.AppendInt(b, SchemaVersion, 10)
	b = append(b, `,"rank":`...)
	b = strconv.AppendUint(b, uint64(deref(o.Rank)), 10)
	b = append(b, `,"deviceId":`...)
	b = strconv.AppendUint(b, uint64(deref(o.DeviceID)), 10)
	b = append(b, `,"socName":`...)
	b = jsontext.AppendString(b, deref(o.SoCName))
	b = append(b, `,"cycleFrequencyMHz":`...)
	b = jsontext.AppendFloat(b, deref(o.MHz))
	b = append(b, `,"anchorCycle":`...)
	b = strconv.AppendUint(b, deref(o.AnchorCycle), 10)
	b = append(b, `,"recordCapacityPerCore":{`...)
	for i, t := range abi.CoreTypes() {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, t.String())
		b = append(b, ':')
		b = strconv.AppendUint(b, uint64(o.Capacities[t.String()]), 10)
	}
	b = append(b, `},"maxRecordCapacityPerCore":`...)
	b = strconv.AppendUint(b, abi.MaxRecordsPerCore, 10)
	b = append(b, `,"recordCount":`...)
	b = strconv.AppendUint(b, deref(o.RecordCount), 10)
	b = append(b, `,"droppedRecordCount":`...)
	b = strconv.AppendUint(b, deref(o.Dropped), 10)
	b = append(b, `,"profileBufferBytes":`...)
	b = strconv.AppendUint(b, deref(o.BufferBytes), 10)
	b = append(b, `,"detailedTaskNames":`...)
	b = strconv.AppendBool(b, deref(o.Detailed))
	b = append(b, `,"kernelName":`...)
	b = jsontext.AppendString(b, deref(o.KernelName))
	b = append(b, `,"ownerLabel":`...)
	b = jsontext.AppendString(b, deref(o.OwnerLabel))
	b = appendStrings(append(b, `,"warnings":`...), o.Warnings)
	b = appendOptionalUint(b, `,"timestampShiftCycles":`, o.ShiftCycles)
	b = appendOptionalUint(b, `,"dependencyArrows":`, o.DependencyArrows)
	b = appendOptionalUint(b, `,"waitsWithoutProducer":`, o.WaitsWithoutProducer)
	if o.KernelFamily != nil {
		b = append(b, `,"kernelFamily":`...)
		b = jsontext.AppendString(b, *o.KernelFamily)
		b = append(b, `,"kernelFamilyFrom":`...)
		b = jsontext.AppendString(b, deref(o.KernelFamilyFrom))
	}
	b = appendABI(b)
	if o.CubeSlots != nil {
		b = append(b, `,"cubeSlots":`...)
		b = strconv.AppendUint(b, uint64(*o.CubeSlots), 10)
		b = append(b, `,"layoutSource":`...)
		b = jsontext.AppendString(b, deref(o.LayoutSource))
		b = append(b, `,"cubeSlotsSource":`...)
		b = jsontext.AppendString(b, deref(o.CubeSlotsSource))
		b = append(b, `,"layoutFound":`...)
		b = jsontext.AppendString(b, deref(o.LayoutFound))
	}
	return append(b, '}')
}

// AppendWindow appends o as the object of several captures: the ABI and
// the totals, then each capture's object under "ranks", one a line. The
// object of a window of invocations (o has invocations) is written as
// upstream's profiler writes its window's (profiler/profiler.py@8f3c6ce,
// _build_trace): schemaVersion, windowIndex, the window's anchorCycle
// (the cycle its ts 0 stands for), invocationCount, recordCount,
// droppedRecordCount, detailedTaskNames, invocations and warnings (nil
// members written as 0 and false), then the ABI and the ranks.
func (o *Object) AppendWindow(b []byte) []byte {
	b = append(b, `{"schemaVersion":`...)
	b = strconv.AppendInt(b, SchemaVersion, 10)
	if o.Invocations == nil {
		b = appendABI(b)
		b = append(b, `,"recordCount":`...)
		b = strconv.AppendUint(b, deref(o.RecordCount), 10)
		b = append(b, `,"droppedRecordCount":`...)
		b = strconv.AppendUint(b, deref(o.Dropped), 10)
	} else {
		b = append(b, `,"windowIndex":`...)
		b = strconv.AppendInt(b, deref(o.WindowIndex), 10)
		b = append(b, `,"anchorCycle":`...)
		b = strconv.AppendUint(b, deref(o.AnchorCycle), 10)
		b = append(b, `,"invocationCount":`...)
		b = strconv.AppendInt(b, int64(len(o.Invocations)), 10)
		b = append(b, `,"recordCount":`...)
		b = strconv.AppendUint(b, deref(o.RecordCount), 10)
		b = append(b, `,"droppedRecordCount":`...)
		b = strconv.AppendUint(b, deref(o.Dropped), 10)
		b = append(b, `,"detailedTaskNames":`...)
		b = strconv.AppendBool(b, deref(o.Detailed))
		b = append(b, `,"invocations":[`...)
		for i := range o.Invocations {
			if i > 0 {
				b = append(b, ',')
			}
			b = o.Invocations[i].append(append(b, '\n'))
		}
		b = append(b, "\n]"...)
		b = appendStrings(append(b, `,"warnings":`...), o.Warnings)
		b = appendABI(b)
	}
	b = append(b, `,"ranks":[`...)
	for i := range o.Ranks {
		if i > 0 {
			b = append(b, ',')
		}
		b = o.Ranks[i].AppendRank(append(b, '\n'))
	}
	return append(b, "\n]}"...)
}

func (inv *Invocation) append(b []byte) []byte {
	b = append(b, `{"invocationId":`...)
	b = strconv.AppendInt(b, inv.InvocationID, 10)
	b = append(b, `,"step":`...)
	if inv.Step != nil {
		b = strconv.AppendInt(b, *inv.Step, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"direction":`...)
	if inv.Direction != nil {
		b = jsontext.AppendString(b, *inv.Direction)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"kernelName":`...)
	b = jsontext.AppendString(b, deref(inv.KernelName))
	b = append(b, `,"rank":`...)
	b = strconv.AppendUint(b, uint64(deref(inv.Rank)), 10)
	b = append(b, `,"deviceId":`...)
	b = strconv.AppendUint(b, uint64(deref(inv.DeviceID)), 10)
	b = append(b, `,"anchorCycle":`...)
	b = strconv.AppendUint(b, deref(inv.AnchorCycle), 10)
	b = append(b, `,"recordCount":`...)
	b = strconv.AppendUint(b, deref(inv.RecordCount), 10)
	b = append(b, `,"droppedRecordCount":`...)
	b = strconv.AppendUint(b, deref(inv.Dropped), 10)
	b = append(b, `,"capture":`...)
	b = jsontext.AppendString(b, deref(inv.Capture))
	return append(b, '}')
}

func appendABI(b []byte) []byte {
	b = append(b, `,"abiVersion":`...)
	b = strconv.AppendInt(b, abi.Version, 10)
	b = append(b, `,"abiFingerprint":`...)
	return jsontext.AppendString(b, abi.FingerprintHex)
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, s)
	}
	return append(b, ']')
}

func appendOptionalUint(b []byte, key string, v *uint64) []byte {
	if v == nil {
		return b
	}
	return strconv.AppendUint(append(b, key...), *v, 10)
}

// deref is *p, or the zero value for nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// Ptr returns a pointer to v, for filling an Object.
func Ptr[T any](v T) *T { return &v }

// Unmarshal reads a megaKernelCycleTrace object from data. A member of
// the wrong type is named by its path in the object and what it holds
// ("ranks.rank is a number -1; the schema has uint32"), not by a Go type.
func Unmarshal(data []byte) (*Object, error) {
	o := new(Object)
	// Keys as Python reads them: "RecordCount" is not recordCount, and a
	// key repeated is its last value.
	err := json.Unmarshal(jsonread.ExactKeys(data, reflect.TypeFor[Object]()), o)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return nil, fmt.Errorf("%s is a %s; the schema has %s", te.Field, te.Value, te.Type)
	}
	if err != nil {
		return nil, err
	}
	return o, nil
}

// Merge is what a reader of a merged trace (what cycleabi merge writes)
// notes of its megaKernelTraceMerge object: where merge placed the
// MegaKernel part, one alignment per invocation.
type Merge struct {
	Alignments []Alignment `json:"alignments"`
}

// Alignment is one invocation's placement under the framework's kernel.
type Alignment struct {
	InvocationID    int64       `json:"invocationId"`
	OuterKernelName string      `json:"outerKernelName"`
	OuterKernelTs   json.Number `json:"outerKernelTs"`
}

// UnmarshalMerge reads the megaKernelTraceMerge object from data, as
// Unmarshal does the megaKernelCycleTrace object.
func UnmarshalMerge(data []byte) (*Merge, error) {
	m := new(Merge)
	err := json.Unmarshal(jsonread.ExactKeys(data, reflect.TypeFor[Merge]()), m)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return nil, fmt.Errorf("%s is a %s; the schema has %s", te.Field, te.Value, te.Type)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}
