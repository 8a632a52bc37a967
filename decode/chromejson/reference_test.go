package chromejson

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/megakernel/cycleabi/decode/internal/capturedraw"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestReferenceDecoder runs the Python reference decoder
// (testdata/reference/cycle_trace.py, its decoding functions verbatim)
// over random captures, valid and bent, next to this package: both must
// refuse the same captures and otherwise write the same trace, but for
// the one deliberate change from the reference (docs/decode.md) and ts/dur rounded to the nanosecond
// (compare.py). Skipped without python3 unless CYCLEABI_REQUIRE_PYTHON is set.
func TestReferenceDecoder(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		require.Empty(t, os.Getenv("CYCLEABI_REQUIRE_PYTHON"), "python3 not found and CYCLEABI_REQUIRE_PYTHON is set")
		t.Skip("python3 not found")
	}
	dir := t.TempDir()
	type refCase struct {
		Name   string         `json:"name"`
		Buffer string         `json:"buffer"`
		AIC    *uint32        `json:"aic"`
		AIV    *uint32        `json:"aiv"`
		Config map[string]any `json:"config"`
		Trace  *string        `json:"trace"`
		Error  string         `json:"error,omitempty"`
	}
	var cases []refCase
	rapid.Check(t, func(rt *rapid.T) {
		g := capturedraw.Draw(rt)
		buf := g.B.Bytes()
		if rapid.IntRange(0, 2).Draw(rt, "bend") == 0 {
			bend(rt, g, buf)
		}
		cfg := decodetest.DefaultConfig()
		cfg.Names = g.Names
		cfg.DetailedNames = rapid.Bool().Draw(rt, "detailed")
		cfg.FrequencyMHz = rapid.SampledFrom([]float64{50, 1000, 3}).Draw(rt, "mhz")
		cfg.Rank = rapid.Uint32Range(0, 3).Draw(rt, "rank")
		cfg.DeviceID = rapid.Uint32Range(0, 3).Draw(rt, "device")
		cfg.OwnerLabel = rapid.SampledFrom([]string{"Owner", "Expert"}).Draw(rt, "ownerLabel")

		c := refCase{Name: strconv.Itoa(len(cases)), Buffer: filepath.Join(dir, fmt.Sprintf("%d.bin", len(cases)))}
		require.NoError(rt, os.WriteFile(c.Buffer, buf, 0o644))
		if p := g.Opts.Capacities; p != nil {
			c.AIC, c.AIV = &p.AIC, &p.AIV
		}
		stages, tasks := map[string]string{}, map[string]string(nil)
		if cfg.Names != nil {
			tasks = map[string]string{}
			for id, n := range cfg.Names.Stages {
				stages[strconv.FormatUint(uint64(id), 10)] = n
			}
			for id, n := range cfg.Names.Tasks.All() {
				tasks[strconv.FormatUint(uint64(id), 10)] = n
			}
		}
		c.Config = map[string]any{
			"rank": cfg.Rank, "device_id": cfg.DeviceID, "cycle_frequency_mhz": cfg.FrequencyMHz,
			"detailed_task_names": cfg.DetailedNames, "kernel_name": cfg.KernelName, "owner_label": cfg.OwnerLabel,
			"stage_names": stages, "soc_name": cfg.SoCName, "task_stage_names": tasks,
			"cube_slot_count": max(g.Opts.CubeSlots, abi.MinCubeSlots),
		}
		d, err := decodetest.Decode(c.Buffer, buf, g.Opts)
		if err == nil {
			out, err := traceOf(render.Input{Decoded: d, Config: cfg})
			require.NoError(rt, err)
			path := filepath.Join(dir, c.Name+".json")
			require.NoError(rt, os.WriteFile(path, out, 0o644))
			c.Trace = &path
		} else {
			c.Error = err.Error()
		}
		cases = append(cases, c)
	})
	manifest := filepath.Join(dir, "manifest.json")
	data, _ := json.Marshal(cases)
	require.NoError(t, os.WriteFile(manifest, data, 0o644))
	out, err := exec.Command(python, filepath.Join("..", "testdata", "reference", "compare.py"), manifest).CombinedOutput()
	require.NoErrorf(t, err, "the Go trace differs from the reference decoder's:\n%s", out)
	t.Logf("%s", out)
}

// bend breaks one field of a capture the way a faulty device or a bad
// copy would; some bends are still valid captures.
func bend(t *rapid.T, g capturedraw.Capture, buf []byte) {
	l := g.B.Layout
	s := l.Slot(rapid.IntRange(0, l.NumSlots()-1).Draw(t, "slot"))
	field := rapid.SampledFrom([]int{
		abi.CoreHeaderRecordCountOffset, abi.CoreHeaderDroppedCountOffset, abi.CoreHeaderCoreTypeOffset,
		abi.CoreHeaderBlockIDOffset, abi.CoreHeaderRecordCapacityOffset, abi.CoreHeaderReservedOffset,
		abi.CoreHeaderPaddingOffset, -1,
	}).Draw(t, "field")
	v := rapid.SampledFrom([]uint32{0, 1, 2, 16, 17, s.Capacity, s.Capacity + 1, 0xFFFFFFFF}).Draw(t, "value")
	if field >= 0 {
		g.B.Put32(int(s.Offset)+field, v)
		return
	}
	// A record's end_cycle: before its start, or not.
	if s.Capacity == 0 {
		return
	}
	i := rapid.IntRange(0, int(s.Capacity)-1).Draw(t, "record")
	g.B.Put64(g.B.RecordOffset(s.CoreType, s.BlockID, i, abi.ProfileRecordEndCycleOffset), uint64(v))
}
