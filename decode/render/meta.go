package render

import (
	"strconv"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsontext"
)

// AppendMeta appends the megaKernelCycleTrace object of the inputs: the
// reference decoder's object for one input, the per-rank objects under
// "ranks" for several (see chromejson.Write). Both formats carry it:
// the JSON as its megaKernelCycleTrace and metadata members, Perfetto
// as ChromeEventBundle metadata.
func AppendMeta(b []byte, inputs []Input, arrows []flows.Stats, ps []Placement) []byte {
	if len(inputs) == 1 && inputs[0].Config.Invocation == nil {
		return appendRankMeta(b, &inputs[0], arrows[0], "")
	}
	var records, dropped uint64
	for i := range inputs {
		records += inputs[i].Decoded.Summary.Records
		dropped += inputs[i].Decoded.Summary.Dropped
	}
	b = append(b, `{"schemaVersion":`...)
	b = strconv.AppendInt(b, SchemaVersion, 10)
	b = appendABI(b)
	b = append(b, `,"recordCount":`...)
	b = strconv.AppendUint(b, records, 10)
	b = append(b, `,"droppedRecordCount":`...)
	b = strconv.AppendUint(b, dropped, 10)
	if inputs[0].Config.Invocation != nil {
		b = appendInvocations(b, inputs)
		// The window's warnings, as upstream's window object has them.
		b = append(b, `,"warnings":[`...)
		for i, w := range windowWarnings(dropped, ps) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, w)
		}
		b = append(b, ']')
	}
	b = append(b, `,"ranks":[`...)
	for i := range inputs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n"...)
		b = appendRankMeta(b, &inputs[i], arrows[i], ps[i].overlap)
	}
	return append(b, "\n]}"...)
}

// appendRankMeta appends one capture's object, keys in the reference's
// order, then abiVersion and abiFingerprint (the ABI it was decoded with).
// overlap is the capture's warning as an invocation that overlaps another
// in time, or "".
func appendRankMeta(b []byte, in *Input, arrows flows.Stats, overlap string) []byte {
	cfg, sum := &in.Config, in.Decoded.Summary
	b = append(b, `{"schemaVersion":`...)
	b = strconv.AppendInt(b, SchemaVersion, 10)
	b = append(b, `,"rank":`...)
	b = strconv.AppendUint(b, uint64(cfg.Rank), 10)
	b = append(b, `,"deviceId":`...)
	b = strconv.AppendUint(b, uint64(cfg.DeviceID), 10)
	b = append(b, `,"socName":`...)
	b = jsontext.AppendString(b, cfg.SoCName)
	b = append(b, `,"cycleFrequencyMHz":`...)
	b = jsontext.AppendFloat(b, cfg.FrequencyMHz)
	b = append(b, `,"anchorCycle":`...)
	b = strconv.AppendUint(b, sum.Anchor, 10)
	b = append(b, `,"recordCapacityPerCore":{`...)
	for i, t := range abi.CoreTypes() {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, t.String())
		b = append(b, ':')
		b = strconv.AppendUint(b, uint64(sum.Layout.Capacities.For(t)), 10)
	}
	b = append(b, `},"maxRecordCapacityPerCore":`...)
	b = strconv.AppendUint(b, abi.MaxRecordsPerCore, 10)
	b = append(b, `,"recordCount":`...)
	b = strconv.AppendUint(b, sum.Records, 10)
	b = append(b, `,"droppedRecordCount":`...)
	b = strconv.AppendUint(b, sum.Dropped, 10)
	b = append(b, `,"profileBufferBytes":`...)
	b = strconv.AppendUint(b, sum.Layout.Size(), 10)
	b = append(b, `,"detailedTaskNames":`...)
	b = strconv.AppendBool(b, cfg.DetailedNames)
	b = append(b, `,"kernelName":`...)
	b = jsontext.AppendString(b, cfg.KernelName)
	b = append(b, `,"ownerLabel":`...)
	b = jsontext.AppendString(b, cfg.OwnerLabel)
	b = append(b, `,"warnings":[`...)
	sep := false
	lines := in.Decoded.Warnings.Lines()
	if overlap != "" {
		lines = append(lines, overlap)
	}
	for _, w := range lines {
		if sep {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, w)
		sep = true
	}
	if in.Config.Deps != nil {
		if w := flows.Warning(arrows); w != "" {
			if sep {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, w)
		}
	}
	b = append(b, ']')
	if c := in.Decoded.Warnings.ShiftCycles; c > 0 {
		b = append(b, `,"timestampShiftCycles":`...)
		b = strconv.AppendUint(b, c, 10)
	}
	if in.Config.Deps != nil {
		b = append(b, `,"dependencyArrows":`...)
		b = strconv.AppendUint(b, arrows.Arrows, 10)
		b = append(b, `,"waitsWithoutProducer":`...)
		b = strconv.AppendUint(b, arrows.WaitsWithoutProducer, 10)
	}
	b = appendABI(b)
	if res := in.Decoded.Layout; res != nil {
		b = appendLayout(b, res)
	}
	return append(b, '}')
}

// appendLayout appends the layout facts: the cube slot count and how the
// layout was found (machine-readable sources and the summary phrase).
func appendLayout(b []byte, res *capture.Resolved) []byte {
	b = append(b, `,"cubeSlots":`...)
	b = strconv.AppendUint(b, uint64(res.Layout.CubeSlots), 10)
	b = append(b, `,"layoutSource":`...)
	b = jsontext.AppendString(b, string(res.Source))
	b = append(b, `,"cubeSlotsSource":`...)
	b = jsontext.AppendString(b, string(res.CubeSlotsFrom.Source))
	b = append(b, `,"layoutFound":`...)
	return jsontext.AppendString(b, res.How)
}

func appendABI(b []byte) []byte {
	b = append(b, `,"abiVersion":`...)
	b = strconv.AppendInt(b, abi.Version, 10)
	b = append(b, `,"abiFingerprint":`...)
	return jsontext.AppendString(b, abi.FingerprintHex)
}
