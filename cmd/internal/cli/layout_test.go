package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The capture: a kernel with 64 workers (32 cube slots), written
// by synth, decodes and validates with no layout flag, and both say how
// the layout was found; dump shows it in its header.
func TestLayoutFoundWithoutFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var tasks, cube, vector []string
	for i := range 96 {
		if i%2 == 0 {
			tasks = append(tasks, "{task_type: MatMul}")
			cube = append(cube, fmt.Sprint(i))
		} else {
			tasks = append(tasks, "{task_type: SwiGLU}")
			vector = append(vector, fmt.Sprint(i))
		}
	}
	schedule := writeSchedule(t, fmt.Sprintf("num_workers: 64\ntasks: [%s]\ncube_task_indices: [%s]\nvector_task_indices: [%s]\n",
		strings.Join(tasks, ", "), strings.Join(cube, ", "), strings.Join(vector, ", ")))
	for _, name := range []string{"rank2.bin", "rank2.npy"} {
		capture := filepath.Join(dir, name)
		out, code, errOut := runOut(t, "synth", schedule, "--seed", "3", "-o", capture)
		require.Equalf(t, ExitOK, code, "%v\n%s: code", errOut, out)
		require.Contains(t, out, "--cube-slots 32", "out")

		out, code, errOut = runOut(t, "validate", capture)
		require.Equalf(t, ExitOK, code, "%v\n%s: code", errOut, out)
		assert.Regexpf(t, regexp.MustCompile(`layout: 32 cube slots, AIC capacity 16, AIV capacity 16 \(found: 32 cube slots from the AIV/0 header at @0x[0-9a-f]+\)`), out, "out, want a match for %s", `layout: 32 cube slots, AIC capacity 16, AIV capacity 16 \(found: 32 cube slots from the AIV/0 header at @0x[0-9a-f]+\)`)

		out, code, _ = runOut(t, "validate", capture, "--format", "json")
		require.Equal(t, ExitOK, code, "code")
		var doc validate.Document
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		l := doc.Captures[0].Layout
		require.NotNil(t, l, "l is nil, want non-nil")
		assert.Equal(t, uint32(32), l.CubeSlots, "l.CubeSlots")
		assert.Equal(t, validate.FromHeaders, l.Source, "l.Source")
		assert.Equal(t, validate.FromHeaders, l.CubeSlotsSource, "l.CubeSlotsSource")
		assert.Equal(t, map[string]validate.LayoutSource{"AIC": "headers", "AIV": "headers"}, l.CapacitySources, "l.CapacitySources")
		assert.Truef(t, strings.HasPrefix(l.How, "found: 32 cube slots from the AIV/0 header at @0x"), "%s", l.How)
		require.NotEmpty(t, l.Evidence, "l.Evidence is empty, want something")
		assert.Equal(t, (validate.EvidenceJSON{What: "cube_slots", Slot: "AIV/0", Offset: l.Evidence[0].Offset}), l.Evidence[0], "l.Evidence[0]")

		trace := filepath.Join(dir, "trace.json")
		_, stderr, code := runMain(t, "decode", capture, "-o", trace)
		require.Equalf(t, ExitOK, code, "%s: code", stderr)
		assert.Contains(t, stderr, "layout 32 cube slots, AIC capacity 16, AIV capacity 16 (found: 32 cube slots from the AIV/0 header at @0x", "stderr")
		data, err := os.ReadFile(trace)
		require.NoError(t, err)
		var tr struct {
			Meta map[string]any `json:"megaKernelCycleTrace"`
		}
		require.NoError(t, json.Unmarshal(data, &tr))
		got, _ := tr.Meta["cubeSlots"].(float64)
		assert.Equalf(t, float64(32), got, "cubeSlots = %v, want 32", tr.Meta["cubeSlots"])
		assert.Equal(t, "headers", tr.Meta["layoutSource"], "tr.Meta[\"layoutSource\"]")
		assert.Equal(t, "headers", tr.Meta["cubeSlotsSource"], "tr.Meta[\"cubeSlotsSource\"]")
		layoutFound, _ := tr.Meta["layoutFound"].(string)
		assert.Contains(t, layoutFound, "found: 32 cube slots from the AIV/0 header", "layoutFound")

		out, code, _ = runOut(t, "dump", capture, "--records", "0")
		require.Equal(t, ExitOK, code, "code")
		assert.Contains(t, out, "layout: 32 cube slots, AIC capacity 16, AIV capacity 16; 96 slots", "out")
		assert.Contains(t, out, "(found: 32 cube slots from the AIV/0 header at @0x", "out")

		// analyze and diff read the capture as decode does: no flags.
		out, code, errOut = runOut(t, "analyze", capture, "--format", "json")
		require.Equalf(t, ExitOK, code, "%v\n%s: code", errOut, out)
		var rep struct {
			Ranks []struct {
				Rank    uint32 `json:"rank"`
				Records uint64 `json:"records"`
			} `json:"ranks"`
		}
		require.NoErrorf(t, json.Unmarshal([]byte(out), &rep), "%s", out)
		require.Len(t, rep.Ranks, 1, "len(rep.Ranks)")
		assert.Equal(t, uint32(2), rep.Ranks[0].Rank, "rep.Ranks[0].Rank")
		// decode's recordCount, a JSON number (float64).
		assert.Equal(t, tr.Meta["recordCount"], float64(rep.Ranks[0].Records), "analyze's records, want decode's recordCount")
		out, code, errOut = runOut(t, "diff", capture, capture)
		require.Equalf(t, ExitOK, code, "%v\n%s: code", errOut, out)

		// So does a window of invocations (the input of cycleabi merge).
		_, stderr, code = runMain(t, "decode", capture, capture, "--rank", "2", "--rank", "3", "--step", "1", "--step", "1", "-o", trace)
		require.Equalf(t, ExitOK, code, "%s: code", stderr)
		assert.Equalf(t, 2, strings.Count(stderr, "layout 32 cube slots, AIC capacity 16, AIV capacity 16 (found: 32 cube slots from the AIV/0 header"), "%s", stderr)
	}
}

// decode prints what opening the capture warned about (.npy).
func TestDecodeCommandNPYWarnings(t *testing.T) {
	t.Parallel()
	b := validCapture().Bytes()
	hdr := fmt.Sprintf("{'descr': '>u8', 'fortran_order': False, 'shape': (%d,), }", len(b)/8)
	path := writeCapture(t, "be.npy", append(capturetest.NPYWithHeader(hdr, b), 0xee, 0xee))
	_, stderr, code := runMain(t, "decode", path, "-o", filepath.Join(t.TempDir(), "t.json"))
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "warning: "+path+": bytes-after-layout", "stderr")
	assert.Contains(t, stderr, "warning: "+path+": npy-byte-order", "stderr")
}

// capacityArgs returns a capacity flag for every region of the schema, in
// buffer order: caps' value for the regions it names, def for the others.
func capacityArgs(caps map[abi.CoreType]uint32, def uint32) []string {
	var args []string
	for _, r := range abi.Regions() {
		v, ok := caps[r.CoreType]
		if !ok {
			v = def
		}
		args = append(args, "--"+CapacityFlagName(r.CoreType), strconv.FormatUint(uint64(v), 10))
	}
	return args
}
