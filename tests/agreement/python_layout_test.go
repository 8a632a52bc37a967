package agreement_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/pytest"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPythonDocExample runs the example of docs/python.md as written
// (the first python block of the page, at most five lines,
// from the repository root with gen/py on PYTHONPATH) and requires its
// output to be the counts and durations of every compute descriptor Go
// decodes from the same capture, and the page to state the graph stages'
// share of the compute time as it is.
func TestPythonDocExample(t *testing.T) {
	page := string(readFile(t, "../../docs/python.md"))
	_, block, ok := strings.Cut(page, "```python\n")
	require.True(t, ok, "docs/python.md has no python block")
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok, "the python block is not closed")
	assert.LessOrEqual(t, strings.Count(strings.TrimSpace(block), "\n")+1, 5, "the example")
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	moduleDir(t, genPy)
	got := pytest.RunEnv(t, root, []string{"PYTHONPATH=gen/py"}, block)

	c, err := capture.Open("../../examples/moe_layer.bin")
	require.NoError(t, err)
	defer c.Close()
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	// Every compute record, as analyze counts compute: the example must
	// not leave out the graph stages' (it did, with 86 % of the time).
	count, cycles := map[uint32]int{}, map[uint32]uint64{}
	var total, graph uint64
	require.NoError(t, d.Records(func(r decode.Record) bool {
		if kernelnames.IsCompute(r.DescID) {
			count[r.DescID]++
			cycles[r.DescID] += r.EndCycle - r.StartCycle
			total += r.EndCycle - r.StartCycle
			if ns, _ := abi.LookupDesc(r.DescID); ns == abi.NamespaceGraphStage {
				graph += r.EndCycle - r.StartCycle
			}
		}
		return true
	}))
	mhz, err := abi.SystemCounterMHz("Ascend910B")
	require.NoError(t, err)
	var ids []uint32
	for id := range count {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var want strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&want, "%-28s %5d tasks %12.2f us\n", (*kernelnames.Names)(nil).StageName(id), count[id], float64(cycles[id])/mhz)
	}
	assert.GreaterOrEqual(t, len(ids), 3, "stages Go decodes from docs/python.md's example")
	assert.Equal(t, want.String(), string(got), "docs/python.md's example prints (actual), Go decodes (expected)")

	assert.Contains(t, strings.Join(strings.Fields(page), " "), fmt.Sprintf("hold %.0f %% of the compute time", 100*float64(graph)/float64(total)), "docs/python.md does not say the graph stages")
	t.Logf("the docs/python.md example prints:\n%s", got)
}

// randomCaptures writes n captures through gen/go's mirror of the device
// writer, from a fixed seed: random cube slots and capacities (AIC 0
// included), random slots entered, records with many equal start cycles
// (ties across cores and within a slot), slots out of start order, full
// slots that drop, the occasional negative interval, idle AIC/0 or AIV/0,
// trailing bytes; some under the host-planned layout.
func randomCaptures(t *testing.T, n int) []*pyJob {
	rng := rand.New(rand.NewSource(1013))
	var jobs []*pyJob
	for i := 0; i < n; i++ {
		cube := uint32(24 + rng.Intn(20))
		caps := abi.Capacities{AIC: uint32(16 * rng.Intn(4)), AIV: uint32(16 * (1 + rng.Intn(3)))}
		l, err := abi.NewLayout(cube, caps)
		require.NoError(t, err)
		buf := make([]byte, l.Size()+uint64(rng.Intn(3))*64)
		var o capture.Request
		switch rng.Intn(8) {
		case 0, 1:
			o = capture.Request{CubeSlots: cube, Capacities: &caps}
		case 2: // the default cube slot count, right or wrong
		default:
			o.CubeSlots = cube
		}
		for k := 0; k < l.NumSlots(); k++ {
			s := l.Slot(k)
			// An idle first slot is fine only when the capacities are given.
			idleFirst := s.BlockID == 0 && rng.Intn(4) == 0 && (o.Capacities != nil || rng.Intn(8) == 0)
			if idleFirst || rng.Intn(3) != 0 && s.BlockID != 0 {
				continue
			}
			slot := buf[s.Offset : s.Offset+s.Stride()]
			entry := uint64(1000 + rng.Intn(50))
			require.NoError(t, abi.InitSlot(slot, entry, s.CoreType, s.BlockID, s.Capacity))
			start := entry + uint64(rng.Intn(20))
			for r := rng.Intn(int(s.Capacity) + 3); r > 0; r-- {
				rec := abi.ProfileRecord{StartCycle: start, DescID: uint32(0x10000 + rng.Intn(0x30000)),
					TaskID: rng.Uint32() % 100, StageTaskIndex: uint32(rng.Intn(5)), OwnerID: []uint32{abi.InvalidOwnerID, 3}[rng.Intn(2)]}
				rec.EndCycle = start + uint64(rng.Intn(10))
				if rng.Intn(2000) == 0 {
					rec.EndCycle = start - 1
				}
				_, err := abi.WriteRecord(slot, &rec)
				require.NoError(t, err)

				switch rng.Intn(4) {
				case 0: // the same start again
				case 1:
					start -= uint64(rng.Intn(3)) // out of order
				default:
					start += uint64(rng.Intn(4))
				}
			}
		}
		jobs = append(jobs, &pyJob{label: fmt.Sprintf("random capture %d (cube slots %d, %+v)", i, cube, caps), data: buf, opts: o})
	}
	return jobs
}

// TestPythonReadsRandomCaptures: on random captures written by gen/go's
// writer, Python reads exactly Go's records in trace order (ties and
// out-of-order slots included), or refuses with decode's first error.
func TestPythonReadsRandomCaptures(t *testing.T) {
	jobs := randomCaptures(t, 150)
	results := runReader(t, genPy, jobs)
	accepted := compareWithGo(t, jobs, results)
	t.Logf("%d random captures, %d read", len(jobs), accepted)
	assert.GreaterOrEqualf(t, accepted, len(jobs)/4, "only of %d random captures were read; the generator makes too few valid ones", len(jobs))
}

// foundCaptures are captures whose layout the search must find with
// nothing given, drawn as capture's own property test draws them (real
// and random cube slot counts, capacities 0..512, AIC/0, AIV/0 or the
// whole AIC region idle, trailing zeros or garbage, raw or .npy), plus
// the same captures cut short, with a header moved, or with a stray
// header after the layout: Python must find what Go finds, or refuse as
// Go refuses.
func foundCaptures(t *testing.T, n int) []*pyJob {
	rng := rand.New(rand.NewSource(4242))
	var jobs []*pyJob
	for i := 0; i < n; i++ {
		cube := []uint32{24, 25, 32, 40, 48, 64}[rng.Intn(6)]
		if rng.Intn(2) == 0 {
			cube = uint32(24 + rng.Intn(49))
		}
		aic, aiv := uint32(16*rng.Intn(33)), uint32(16*(1+rng.Intn(32)))
		b := capturetest.New(cube, aic, aiv)
		enter := func(s abi.Slot) {
			b.Enter(s.CoreType, s.BlockID, 1+rng.Uint64()%(1<<40))
			for k := 0; k < rng.Intn(int(min(s.Capacity, 3))+1); k++ {
				start := uint64(1000 + 100*k)
				b.Span(s.CoreType, s.BlockID, start, start+50, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), uint32(k))
			}
		}
		idleAIC := rng.Intn(2) == 0
		for k := 0; k < b.Layout.NumSlots(); k++ {
			s := b.Layout.Slot(k)
			if !(s.CoreType == abi.CoreTypeAIC && idleAIC) && rng.Intn(4) == 0 {
				enter(s)
			}
		}
		if rng.Intn(2) == 0 && !idleAIC {
			enter(b.Slot(abi.CoreTypeAIC, 0))
		}
		if rng.Intn(2) == 0 {
			enter(b.Slot(abi.CoreTypeAIV, 0))
		}
		last := uint32(rng.Intn(int(2 * cube)))
		if h, _ := abi.DecodeCoreHeader(b.Buf[b.Slot(abi.CoreTypeAIV, last).Offset:]); h.IsZero() {
			b.Enter(abi.CoreTypeAIV, last, 5)
		}
		b.Span(abi.CoreTypeAIV, last, 900, 950, abi.TaskTypeBase+uint32(abi.TaskTypeSwiGLU), 1)
		buf := bytes.Clone(b.Bytes())
		fill := byte(0)
		if rng.Intn(2) == 0 {
			fill = 0xA5
		}
		buf = append(buf, bytes.Repeat([]byte{fill}, rng.Intn(3000))...)
		label := fmt.Sprintf("found %d (%d cube slots, AIC %d, AIV %d)", i, cube, aic, aiv)
		switch rng.Intn(6) {
		case 0: // cut short
			buf = buf[:rng.Intn(len(buf))]
			label += ", cut"
		case 1: // a stray AIV header after the layout, where a longer AIV region would put it
			stray := make([]byte, 64+rng.Intn(3)*int(abi.SlotStride(aiv)))
			h := abi.CoreHeader{EntryCycle: 9, CoreType: abi.CoreTypeAIV, BlockID: 2*cube + uint32(len(stray)-64)/uint32(abi.SlotStride(aiv)), RecordCapacity: aiv}
			h.Append(stray[len(stray)-64 : len(stray)-64])
			buf = append(bytes.Clone(b.Bytes()), stray...)
			label += ", stray header after"
		case 2: // a live header moved by one slot
			s := b.Layout.Slot(rng.Intn(b.Layout.NumSlots()))
			h, _ := abi.DecodeCoreHeader(buf[s.Offset:])
			h.BlockID++
			h.Append(buf[s.Offset:s.Offset])
			label += ", header renamed"
		}
		if rng.Intn(3) == 0 {
			buf = capturetest.NPY(buf)
			label += ", npy"
		}
		jobs = append(jobs, &pyJob{label: label, data: buf})
	}
	return jobs
}

// TestPythonFindsLayouts: on foundCaptures, read_capture with nothing
// given finds Go's layout (and says how as Go does) or refuses as Go does.
func TestPythonFindsLayouts(t *testing.T) {
	jobs := foundCaptures(t, 200)
	results := runReader(t, genPy, jobs)
	accepted := compareWithGo(t, jobs, results)
	codes := map[string]int{}
	for _, r := range results {
		if r.Error != nil {
			codes[r.Error.Code]++
		}
	}
	t.Logf("%d captures: %d read, errors by code %v", len(jobs), accepted, codes)
	assert.GreaterOrEqualf(t, accepted, len(jobs)/3, "only of %d were read", len(jobs))
}

// damagedCaptures are small captures (a few cube slot counts, capacities
// 0 to 48) with random slots entered and, in each region, a first header
// damaged half the time (another core type or block id, another capacity,
// a few records counted): the captures where the search reads past a
// damaged header in its second pass, or finds an intact layout at another
// cube slot count in its first, or neither. Python must find what Go
// finds, or refuse as Go refuses.
func damagedCaptures(n int) []*pyJob {
	rng := rand.New(rand.NewSource(1313))
	pick := func(vs ...uint32) uint32 { return vs[rng.Intn(len(vs))] }
	var jobs []*pyJob
	for i := 0; i < n; i++ {
		cube := pick(24, 24, 25, 26, 32)
		// A capacity per region: the first region's from one set, the
		// others' from another.
		var caps []uint32
		var layoutCaps abi.Capacities
		label := fmt.Sprintf("damaged %d (%d cube slots", i, cube)
		for r, region := range abi.Regions() {
			var c uint32
			if r == 0 {
				c = pick(0, 16, 16, 32)
			} else {
				c = pick(0, 16, 32, 48)
			}
			caps = append(caps, c)
			layoutCaps.Set(region.CoreType, c)
			label += fmt.Sprintf(", %s %d", region.CoreType, c)
		}
		label += ")"
		b := capturetest.NewWith(cube, layoutCaps)
		for k := 0; k < b.Layout.NumSlots(); k++ {
			s := b.Layout.Slot(k)
			if rng.Intn(5) < 3 {
				b.Enter(s.CoreType, s.BlockID, 100)
				for r := 0; r < rng.Intn(int(min(s.Capacity, 3))+1); r++ {
					b.Span(s.CoreType, s.BlockID, uint64(200+r), uint64(210+r), abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
				}
			}
		}
		for r, region := range abi.Regions() {
			if rng.Intn(2) == 0 {
				continue
			}
			h := abi.CoreHeader{EntryCycle: 100, RecordCount: uint32(rng.Intn(4)), CoreType: abi.CoreType(pick(1, 2, 3)),
				BlockID: pick(0, 1, 2, 5, 40), RecordCapacity: pick(0, 16, 32, caps[r])}
			off := b.Slot(region.CoreType, 0).Offset
			h.Append(b.Buf[off:off])
			label += fmt.Sprintf(", %s/0 says %d/%d capacity %d", region.CoreType, h.CoreType, h.BlockID, h.RecordCapacity)
		}
		buf := append(bytes.Clone(b.Bytes()), make([]byte, 64*rng.Intn(3))...)
		jobs = append(jobs, &pyJob{label: label, data: buf})
	}
	return jobs
}

// TestPythonFindsLayoutsPastDamage: on damagedCaptures, read_capture with
// nothing given finds Go's layout (and says how as Go does) or refuses as
// Go does. (A module that reads past a damaged header in the first pass,
// as capture did before, answers ambiguous-layout for two of them where
// Go finds a layout.)
func TestPythonFindsLayoutsPastDamage(t *testing.T) {
	jobs := damagedCaptures(400)
	results := runReader(t, genPy, jobs)
	accepted := compareWithGo(t, jobs, results)
	codes := map[string]int{}
	for _, r := range results {
		if r.Error != nil {
			codes[r.Error.Code]++
		}
	}
	t.Logf("%d captures: %d read, errors by code %v", len(jobs), accepted, codes)
	assert.GreaterOrEqualf(t, accepted, len(jobs)/10, "the captures do not exercise the search read, errors %v", codes)
	assert.NotEqualf(t, 0, codes["slot-identity"], "the captures do not exercise the search read, errors %v", codes)
	assert.NotEqualf(t, 0, codes["no-layout"], "the captures do not exercise the search read, errors %v", codes)
}

// slotViews prints, for each slot of the capture read from path (as a
// path, and as the array np.load or np.fromfile gives), its name, header
// fields and live record count, and whether its records are a view of
// the source's memory with RECORD_DTYPE; then whether the slots' views,
// tagged with their slot and put in trace order, are records().
const slotViews = `
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import cycleabi_abi as abi

path = sys.argv[2]
array = np.load(path) if path.endswith(".npy") else np.fromfile(path, dtype=np.uint8)
for src in (path, array):
    c = abi.read_capture(src)
    mem = c.buffer if src is path else array
    for s in c.slots:
        h = s.header
        view = s.records.dtype == abi.RECORD_DTYPE and (len(s.records) == 0 or np.shares_memory(s.records, mem))
        print(s.name, int(h["entry_cycle"]), int(h["record_count"]), int(h["dropped_count"]), len(s.records), view)
    parts = []
    for s in c.slots:
        t = np.zeros(len(s.records), dtype=abi.TRACE_RECORD_DTYPE)
        for f in abi.RECORD_DTYPE.names:
            if f in t.dtype.names:
                t[f] = s.records[f]
        t["core_type"], t["block_id"] = int(s.core_type), s.block_id
        parts.append(t)
    every = np.concatenate(parts)
    every = every[np.lexsort((every["block_id"], every["core_type"], every["start_cycle"]))]
    print("records() is the slots' views in trace order:", every.tobytes() == c.records().tobytes())
`

// TestPythonSlotViews: each Slot of a Capture holds its header as Go
// decodes it and its live records as a zero-copy view of the source (the
// memory map of a path, the caller's array), and records() is exactly the
// slots' records in trace order, for a raw and a .npy capture.
func TestPythonSlotViews(t *testing.T) {
	for _, f := range []string{goldBin, "../../examples/aiv_pipeline.npy"} {
		c, err := capture.Open(f)
		require.NoError(t, err)
		r, err := c.Resolve(capture.Request{})
		require.NoError(t, err)
		data := readFile(t, f)[c.Base:]
		c.Close()
		var want strings.Builder
		for k := range r.Layout.NumSlots() {
			s := r.Layout.Slot(k)
			h, err := abi.DecodeCoreHeader(data[s.Offset:])
			require.NoError(t, err)
			live := uint32(0)
			if !h.IsZero() {
				live = min(h.RecordCount, s.Capacity)
			}
			fmt.Fprintf(&want, "%s %d %d %d %d True\n", s, h.EntryCycle, h.RecordCount, h.DroppedCount, live)
		}
		want.WriteString("records() is the slots' views in trace order: True\n")
		abs, err := filepath.Abs(f)
		require.NoError(t, err)
		got := string(pytest.Run(t, t.TempDir(), slotViews, moduleDir(t, genPy), abs))
		assert.Equalf(t, want.String()+want.String(), got, "%s: Python's slots\nwant (twice: read from the path, then from an array)\n%.3000s", f, want.String())
	}
}

// TestPythonReadsSynthCaptures simulates the example schedules with synth
// (several seeds; planned capacities, capacities scaled to 0.8 so the
// busiest cores drop records, idle cores whose waits time out) and reads
// each capture, raw and as .npy, with nothing given and under the planned
// layout: Python gives the records Go decodes, in the same order, and
// finds the same layout.
func TestPythonReadsSynthCaptures(t *testing.T) {
	var jobs []*pyJob
	for _, f := range []string{"../../examples/moe_layer.yaml", "../../examples/aiv_pipeline.yaml"} {
		s, err := plan.ParseFile(f)
		require.NoError(t, err)
		for seed := uint64(1); seed <= 3; seed++ {
			for _, o := range []synth.Options{{Seed: seed}, {Seed: seed, CapacityScale: 0.8}, {Seed: seed, IdleCores: 3, WaitTimeout: 100000}} {
				c, err := synth.Run(s, o)
				require.NoErrorf(t, err, "%s: synth %+v", f, o)
				caps := c.Layout.Capacities
				label := fmt.Sprintf("%s synth %+v", filepath.Base(f), o)
				npy := append(capture.NPYHeader(uint64(len(c.Buffer))), c.Buffer...)
				jobs = append(jobs,
					&pyJob{label: label, data: c.Buffer},
					&pyJob{label: label + " as .npy", data: npy},
					&pyJob{label: label + " under the planned layout", data: c.Buffer,
						opts: capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &caps}})
			}
		}
	}
	assert.Equal(t, len(jobs), compareWithGo(t, jobs, runReader(t, genPy, jobs)))
}
