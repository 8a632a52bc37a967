package plan_test

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/plan/plantest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Each property runs under rapid.Check in TestX (rapid's default 100 cases;
// raise with -rapid.checks) and under go test -fuzz in FuzzX.

func TestRoundUpCapacity(t *testing.T) { rapid.Check(t, propRoundUpCapacity) }
func FuzzRoundUpCapacity(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propRoundUpCapacity)) }

// requirement draws record counts from everywhere that matters: small,
// around the alignment, around MaxRecordsPerCore, and anything in a u64.
func requirement(t *rapid.T, label string) uint64 {
	return rapid.OneOf(
		rapid.Uint64Range(0, 100),
		rapid.Uint64Range(abi.MaxRecordsPerCore-40, abi.MaxRecordsPerCore+40),
		rapid.Uint64Range(0, abi.MaxRecordsPerCore),
		rapid.Uint64(),
	).Draw(t, label)
}

// propRoundUpCapacity: the capacity is aligned, holds the requirement,
// wastes less than one alignment, is a fixed point and grows with the
// requirement; the round-up refuses exactly the requirements past
// MaxRecordsPerCore, and says so with a *CapacityError.
func propRoundUpCapacity(t *rapid.T) {
	req := requirement(t, "required")
	c, err := abi.RoundUpCapacity(req)
	if req > abi.MaxRecordsPerCore {
		var ce *abi.CapacityError
		require.ErrorAsf(t, err, &ce, "RoundUpCapacity(%d) = %d, %v; want a *CapacityError", req, c, err)
		return
	}
	require.NoErrorf(t, err, "RoundUpCapacity(%d)", req)
	require.Equalf(t, uint32(0), c%abi.RecordCapacityAlignment, "RoundUpCapacity = %d", c)
	require.GreaterOrEqualf(t, uint64(c), req, "RoundUpCapacity = %d", c)
	require.Lessf(t, uint64(c), req+abi.RecordCapacityAlignment, "RoundUpCapacity = %d", c)
	require.NoErrorf(t, abi.CheckCapacity(uint64(c)), "RoundUpCapacity(%d) = %d, which CheckCapacity refuses", req, c)
	again, err := abi.RoundUpCapacity(uint64(c))
	require.NoErrorf(t, err, "RoundUpCapacity(%d)", c)
	require.Equalf(t, c, again, "RoundUpCapacity(%d): not idempotent", c)
	more := req + rapid.Uint64Range(0, abi.MaxRecordsPerCore-req).Draw(t, "more")
	c2, err := abi.RoundUpCapacity(more)
	require.NoErrorf(t, err, "RoundUpCapacity(%d)", more)
	require.GreaterOrEqualf(t, c2, c, "RoundUpCapacity(%d) against RoundUpCapacity(%d)", more, req)
}

func TestBufferSize(t *testing.T) { rapid.Check(t, propBufferSize) }
func FuzzBufferSize(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propBufferSize)) }

// capacity draws a valid (aligned, in range) capacity.
func capacity(t *rapid.T, label string) uint32 {
	return abi.RecordCapacityAlignment * rapid.OneOf(
		rapid.Uint32Range(0, 8),
		rapid.Uint32Range(0, abi.MaxRecordsPerCore/abi.RecordCapacityAlignment),
		rapid.Uint32Range(abi.MaxRecordsPerCore/abi.RecordCapacityAlignment-2, abi.MaxRecordsPerCore/abi.RecordCapacityAlignment),
	).Draw(t, label)
}

// propBufferSize: the buffer size is the sum of the slot strides of every
// region, computed here without overflow; when that sum does not fit in a
// uint64 (or a region's block ids in a u32) BufferSize and NewLayout refuse
// instead of wrapping. Slots tile the buffer. Layout arithmetic only:
// nothing is allocated.
func propBufferSize(t *rapid.T) {
	cubeSlots := rapid.OneOf(
		rapid.Uint32Range(abi.MinCubeSlots, 200),
		rapid.Uint32Range(abi.MinCubeSlots, math.MaxUint32),
		rapid.Uint32Range(0, abi.MinCubeSlots-1),
	).Draw(t, "cube_slots")
	stride := func(c uint32) *big.Int {
		return big.NewInt(abi.CoreHeaderSize + abi.ProfileRecordSize*int64(c))
	}
	var caps abi.Capacities
	want := new(big.Int)
	slots := 0
	fits := cubeSlots >= abi.MinCubeSlots
	for _, r := range abi.Regions() {
		caps.Set(r.CoreType, capacity(t, strings.ToLower(r.CoreType.String())))
		n := uint64(r.SlotsPerCubeSlot) * uint64(cubeSlots)
		want.Add(want, new(big.Int).Mul(new(big.Int).SetUint64(n), stride(caps.For(r.CoreType))))
		slots += int(n)
		fits = fits && n <= math.MaxUint32+1
	}
	fits = fits && want.IsUint64()

	size, err := abi.BufferSize(cubeSlots, caps)
	l, lerr := abi.NewLayout(cubeSlots, caps)
	if !fits {
		require.Errorf(t, err, "cube slots %d, %+v: size %s does not fit, but BufferSize = %d, %v; NewLayout: %v", cubeSlots, caps, want, size, err, lerr)
		require.Errorf(t, lerr, "cube slots %d, %+v: size %s does not fit, but BufferSize = %d, %v; NewLayout: %v", cubeSlots, caps, want, size, err, lerr)
		return
	}
	require.NoErrorf(t, err, "cube slots %d, %+v", cubeSlots, caps)
	require.NoErrorf(t, lerr, "cube slots %d, %+v", cubeSlots, caps)
	require.Equalf(t, want.Uint64(), size, "cube slots %d, %+v: BufferSize", cubeSlots, caps)
	require.Equalf(t, size, l.Size(), "cube slots %d, %+v: Layout.Size", cubeSlots, caps)
	require.Equalf(t, slots, l.NumSlots(), "NumSlots for %d cube slots", cubeSlots)
	// Slots tile the buffer: each starts where the previous ends; check a
	// few, including both ends of every boundary between regions.
	check := []int{0, l.NumSlots() - 1, rapid.IntRange(1, l.NumSlots()-1).Draw(t, "slot")}
	boundary := 0
	for _, r := range abi.Regions() {
		if boundary > 0 {
			check = append(check, boundary-1, boundary)
		}
		boundary += int(l.SlotCount(r.CoreType))
	}
	for _, i := range check {
		s := l.Slot(i)
		var prevEnd uint64
		if i > 0 {
			p := l.Slot(i - 1)
			prevEnd = p.Offset + p.Stride()
		}
		require.Equalf(t, prevEnd, s.Offset, "slot %d (%s): offset against the previous slot's end", i, s)
		require.Equalf(t, abi.SlotStride(s.Capacity), s.Stride(), "slot %d (%s): stride", i, s)
		require.Equalf(t, caps.For(s.CoreType), s.Capacity, "slot %d (%s): capacity", i, s)
		if i == l.NumSlots()-1 {
			require.Equal(t, size, s.Offset+s.Stride(), "the last slot's end against the buffer's size")
		}
	}
}

// TestLimits: capacities 0, 16 and MaxRecordsPerCore lay out (arithmetic
// only, never allocated); MaxRecordsPerCore+16, the next aligned value, and
// MaxRecordsPerCore+1 are refused.
func TestLimits(t *testing.T) {
	for _, c := range []uint32{0, 16, abi.MaxRecordsPerCore} {
		assert.NoErrorf(t, abi.CheckCapacity(uint64(c)), "CheckCapacity(%d)", c)
		var caps abi.Capacities
		slots := uint64(0)
		for _, r := range abi.Regions() {
			caps.Set(r.CoreType, c)
			slots += uint64(r.SlotsPerCubeSlot) * abi.MinCubeSlots
		}
		l, err := abi.NewLayout(abi.MinCubeSlots, caps)
		if !assert.NoErrorf(t, err, "NewLayout with capacity %d", c) {
			continue
		}
		stride := uint64(abi.CoreHeaderSize) + uint64(abi.ProfileRecordSize)*uint64(c)
		assert.LessOrEqualf(t, stride, uint64(abi.SlotStrideLimit), "capacity %d: stride", c)
		assert.Equalf(t, slots*stride, l.Size(), "capacity %d: size", c)
		r, err := abi.RoundUpCapacity(uint64(c))
		if assert.NoErrorf(t, err, "RoundUpCapacity(%d)", c) {
			assert.Equalf(t, c, r, "RoundUpCapacity(%d)", c)
		}
	}
	for _, c := range []uint64{abi.MaxRecordsPerCore + 16, abi.MaxRecordsPerCore + 1, 8} {
		assert.Errorf(t, abi.CheckCapacity(c), "CheckCapacity(%d) accepted", c)
		if c <= math.MaxUint32 {
			_, err := abi.NewLayout(abi.MinCubeSlots, abi.Capacities{AIC: 16, AIV: uint32(c)})
			assert.Errorf(t, err, "NewLayout accepted AIV capacity %d", c)
		}
	}
	_, err := abi.RoundUpCapacity(abi.MaxRecordsPerCore + 1)
	assert.Error(t, err, "RoundUpCapacity(MaxRecordsPerCore+1) accepted")
	// The maximum is the largest aligned capacity whose stride fits a u32.
	require.LessOrEqual(t, abi.SlotStride(abi.MaxRecordsPerCore), uint64(abi.SlotStrideLimit), "MaxRecordsPerCore is not the largest aligned capacity under the stride limit")
	assert.Greater(t, abi.SlotStride(abi.MaxRecordsPerCore+abi.RecordCapacityAlignment), uint64(abi.SlotStrideLimit), "MaxRecordsPerCore is not the largest aligned capacity under the stride limit")
}

func TestPlanMatchesModel(t *testing.T) { rapid.Check(t, propPlanMatchesModel) }
func FuzzPlanMatchesModel(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propPlanMatchesModel)) }

// propPlanMatchesModel: Plan agrees with the planning rules of docs/plan.md written out the
// slow, obvious way (a counter per worker num_workers names).
func propPlanMatchesModel(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	r, err := plan.Plan(s)
	require.NoError(t, err, "Plan refused a valid schedule")
	records := func(task plan.Task) uint64 {
		n := uint64(1)
		if task.DependentEvent != plan.NoEvent {
			n++
		}
		if task.TaskType != 105 { // ShmemPutMemSignal
			n++
		}
		return n
	}
	busiest := func(queue []uint32, workers int64) uint64 {
		if len(queue) == 0 {
			return 0
		}
		counts := make([]uint64, workers)
		for i, id := range queue {
			counts[int64(i)%workers] += records(s.Tasks[id])
		}
		var m uint64
		for _, c := range counts {
			m = max(m, c)
		}
		return m
	}
	stride := s.VectorWorkerStride
	if stride == 0 {
		stride = 2
	}
	var aic, aiv uint64
	aicWorkers, aivWorkers := s.NumWorkers/2, s.NumWorkers/stride
	if s.Mode == plan.AIVPipeline {
		aicWorkers = 0
		aiv = uint64(len(s.VectorTaskIndices))
	} else {
		aic = busiest(s.CubeTaskIndices, aicWorkers)
		aiv = busiest(s.VectorTaskIndices, aivWorkers)
	}
	roundUp := func(n uint64) uint32 { return uint32((n + 15) / 16 * 16) }
	cube := uint32(max(24, (s.NumWorkers+1)/2))
	// The rules written out: cube tasks on the AIC workers (C slots), vector
	// tasks on the AIV workers (2C slots); any other region of the schema
	// runs nothing and holds no record, its slots a header each.
	model := map[abi.CoreType]struct {
		plan         plan.RegionPlan
		slotsPerCube uint64
	}{
		abi.CoreTypeAIC: {plan.RegionPlan{CoreType: abi.CoreTypeAIC, Workers: uint32(aicWorkers), RequiredRecords: aic, RecordCapacity: roundUp(aic)}, 1},
		abi.CoreTypeAIV: {plan.RegionPlan{CoreType: abi.CoreTypeAIV, Workers: uint32(aivWorkers), RequiredRecords: aiv, RecordCapacity: roundUp(aiv)}, 2},
	}
	want := plan.Result{Mode: s.Mode, NumWorkers: s.NumWorkers, CubeSlotCount: cube}
	for _, reg := range abi.Regions() {
		m, ok := model[reg.CoreType]
		if !ok {
			m.plan, m.slotsPerCube = plan.RegionPlan{CoreType: reg.CoreType}, uint64(reg.SlotsPerCubeSlot)
		}
		want.Regions = append(want.Regions, m.plan)
		want.BufferSize += m.slotsPerCube * uint64(cube) * (64 + 32*uint64(m.plan.RecordCapacity))
	}
	require.Equal(t, want, r, "Plan")
	for _, reg := range abi.Regions() {
		require.LessOrEqualf(t, uint64(r.Region(reg.CoreType).Workers), uint64(reg.SlotsPerCubeSlot)*uint64(r.CubeSlotCount), "%s workers do not fit %d cube slots", reg.CoreType, r.CubeSlotCount)
	}
}

func TestScheduleText(t *testing.T) { rapid.Check(t, propScheduleText) }
func FuzzScheduleText(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propScheduleText))
}

// propScheduleText: a generated schedule written as YAML, as JSON and as
// JSON with explicit nulls parses back to itself; the JSON fast path
// accepts the JSON forms and agrees with the YAML parser on them.
func propScheduleText(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	byName := rapid.Bool().Draw(t, "by_name")
	want := plan.WithoutSource(s)
	for _, style := range []plantest.Style{plantest.YAML, plantest.JSON, plantest.JSONNull} {
		text := plantest.Text(s, style, byName)
		y, err := plan.ParseYAML("s", text)
		require.NoErrorf(t, err, "style %d: YAML parser\n%s", style, text)
		require.Equalf(t, want, plan.WithoutSource(y), "style %d: YAML parser read\n\n%s", style, text)
		j, ok := plan.ParseJSON(text)
		if style == plantest.YAML {
			continue
		}
		require.Truef(t, ok, "style %d: the JSON fast path refused\n%s", style, text)
		require.Equalf(t, want, plan.WithoutSource(j), "style %d: JSON fast path read\n\n%s", style, text)
	}
}

// FuzzJSONMatchesYAML: on any bytes, whatever the JSON fast path accepts
// the YAML parser accepts too, with the same result; the fast path never
// decides an error message.
func FuzzJSONMatchesYAML(f *testing.F) {
	for _, seed := range []string{
		`{"num_workers": 2, "tasks": [{"task_type": "MatMul", "dependent_event": 1}], "cube_task_indices": [0]}`,
		`{"mode": "aiv_pipeline", "num_workers": 3, "tasks": [{"task_type": 102}], "vector_task_indices": [0, 0]}`,
		"{\"num_workers\": -0, \"tasks\": []}\r\n",
		`{"num_workers": 2, "tasks": [{"task_type": 1, "owner_id": null}], "vector_worker_stride": 1}`,
		`{"num_workers": 2, "tasks": [], "tasks": []}`,
		`{"num_workers": 2, "tasks": [{"task_type": "Mat\u004dul"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		j, ok := plan.ParseJSON(data)
		if !ok {
			return
		}
		y, err := plan.ParseYAML("f", data)
		require.NoErrorf(t, err, "JSON fast path accepted what YAML refuses:\n%q", data)
		require.Equalf(t, plan.WithoutSource(y), plan.WithoutSource(j), "parsers disagree on %q:\nJSON", data)
	})
}

func TestJSONPositions(t *testing.T) { rapid.Check(t, propJSONPositions) }
func FuzzJSONPositions(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propJSONPositions)) }

// propJSONPositions: an error in a schedule that took the JSON fast path
// points where the YAML parser's node for the same path is, for every
// path an error can name, present or absent (a sample of them per case).
func propJSONPositions(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	style := rapid.SampledFrom([]plantest.Style{plantest.JSON, plantest.JSONNull}).Draw(t, "style")
	text := plantest.Text(s, style, rapid.Bool().Draw(t, "by_name"))
	_, ok := plan.ParseJSON(text)
	require.Truef(t, ok, "fast path refused\n%s", text)
	paths := []string{"", "mode", "num_workers", "vector_worker_stride", "tasks", "cube_task_indices", "vector_task_indices", "tasks[999]"}
	for i := range s.Tasks {
		for _, k := range []string{"", ".task_type", ".dependent_event", ".trigger_event", ".graph_stage", ".owner_id", ".stage_task_index"} {
			paths = append(paths, fmt.Sprintf("tasks[%d]%s", i, k))
		}
	}
	for i := range s.CubeTaskIndices {
		paths = append(paths, fmt.Sprintf("cube_task_indices[%d]", i))
	}
	for i := range s.VectorTaskIndices {
		paths = append(paths, fmt.Sprintf("vector_task_indices[%d]", i))
	}
	// Each lookup parses the text again as YAML: check a sample.
	for range 6 {
		p := rapid.SampledFrom(paths).Draw(t, "path")
		yl, yc, jl, jc := plan.Positions(text, p)
		require.Equalf(t, jl, yl, "%s: YAML, JSON\n%s", p, text)
		require.Equalf(t, jc, yc, "%s: YAML, JSON\n%s", p, text)
	}
}
