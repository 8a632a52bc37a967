package render

import (
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/tracemeta"
)

// AppendMeta appends the megaKernelCycleTrace object of the inputs: the
// reference decoder's object for one input, the per-rank objects under
// "ranks" for several (see chromejson.Write). Both formats carry it:
// the JSON as its megaKernelCycleTrace and metadata members, Perfetto
// as ChromeEventBundle metadata. Package tracemeta holds the object and
// its wording.
func AppendMeta(b []byte, inputs []Input, arrows []flows.Stats, ps []Placement) []byte {
	if len(inputs) == 1 && inputs[0].Config.Invocation == nil {
		o := rankMeta(&inputs[0], arrows[0], "")
		return o.AppendRank(b)
	}
	var records, dropped uint64
	for i := range inputs {
		records += inputs[i].Decoded.Summary.Records
		dropped += inputs[i].Decoded.Summary.Dropped
	}
	w := tracemeta.Object{RecordCount: &records, Dropped: &dropped, Ranks: make([]tracemeta.Object, len(inputs))}
	if inputs[0].Config.Invocation != nil {
		w.Invocations = invocationsMeta(inputs)
		// The window's warnings, as upstream's window object has them.
		w.Warnings = windowWarnings(dropped, ps)
		// As upstream's window object: its index in the session, the
		// cycle its ts 0 stands for (the earliest anchor the invocations
		// are timed from), whether the names are detailed.
		w.WindowIndex = tracemeta.Ptr(inputs[0].Config.WindowIndex)
		w.Detailed = &inputs[0].Config.DetailedNames
		anchor := ps[0].Anchor()
		for i := range ps {
			anchor = min(anchor, ps[i].Anchor())
		}
		w.AnchorCycle = &anchor
	}
	for i := range inputs {
		w.Ranks[i] = rankMeta(&inputs[i], arrows[i], ps[i].overlap)
	}
	return w.AppendWindow(b)
}

// rankMeta is one capture's object. overlap is the capture's warning as
// an invocation that overlaps another in time, or "".
func rankMeta(in *Input, arrows flows.Stats, overlap string) tracemeta.Object {
	cfg, sum := &in.Config, in.Decoded.Summary
	o := tracemeta.Object{
		Rank:        &cfg.Rank,
		DeviceID:    &cfg.DeviceID,
		SoCName:     &cfg.SoCName,
		MHz:         &cfg.FrequencyMHz,
		AnchorCycle: &sum.Anchor,
		Capacities:  make(map[string]uint32, len(abi.CoreTypes())),
		RecordCount: &sum.Records,
		Dropped:     &sum.Dropped,
		BufferBytes: tracemeta.Ptr(sum.Layout.Size()),
		Detailed:    &cfg.DetailedNames,
		KernelName:  &cfg.KernelName,
		OwnerLabel:  &cfg.OwnerLabel,
		Warnings:    in.Decoded.Warnings.Lines(),
	}
	for _, t := range abi.CoreTypes() {
		o.Capacities[t.String()] = uint32(sum.Layout.Capacities.For(t))
	}
	if cfg.KernelFamily != "" {
		o.KernelFamily, o.KernelFamilyFrom = &cfg.KernelFamily, &cfg.KernelFamilyFrom
	}
	if overlap != "" {
		o.Warnings = append(o.Warnings, overlap)
	}
	if in.Config.Deps != nil {
		if w := flows.Warning(arrows); w != "" {
			o.Warnings = append(o.Warnings, w)
		}
		o.DependencyArrows = &arrows.Arrows
		o.WaitsWithoutProducer = &arrows.WaitsWithoutProducer
	}
	if c := in.Decoded.Warnings.ShiftCycles; c > 0 {
		o.ShiftCycles = &c
	}
	if res := in.Decoded.Layout; res != nil {
		o.CubeSlots = tracemeta.Ptr(uint32(res.Layout.CubeSlots))
		o.LayoutSource = tracemeta.Ptr(string(res.Source))
		o.CubeSlotsSource = tracemeta.Ptr(string(res.CubeSlotsFrom.Source))
		o.LayoutFound = &res.How
	}
	return o
}
