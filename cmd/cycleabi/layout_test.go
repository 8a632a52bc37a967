package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
		out, code, err := runCaptured("synth", schedule, "--seed", "3", "-o", capture)
		require.Equal(t, exitOK, code, "%v\n%s", err, out)
		require.Contains(t, out, "--cube-slots 32")

		out, code, err = runCaptured("validate", capture)
		require.Equal(t, exitOK, code, "%v\n%s", err, out)
		assert.Regexp(t, `layout: 32 cube slots, AIC capacity 16, AIV capacity 16 \(found: 32 cube slots from the AIV/0 header at @0x[0-9a-f]+\)`, out)

		out, code, _ = runCaptured("validate", capture, "--format", "json")
		require.Equal(t, exitOK, code)
		var doc validate.Document
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		l := doc.Captures[0].Layout
		require.NotNil(t, l)
		assert.EqualValues(t, 32, l.CubeSlots)
		assert.Equal(t, validate.FromHeaders, l.Source)
		assert.Equal(t, validate.FromHeaders, l.CubeSlotsSource)
		assert.Equal(t, map[string]validate.LayoutSource{"AIC": "headers", "AIV": "headers"}, l.CapacitySources)
		assert.True(t, strings.HasPrefix(l.How, "found: 32 cube slots from the AIV/0 header at @0x"), l.How)
		require.NotEmpty(t, l.Evidence)
		assert.Equal(t, validate.EvidenceJSON{What: "cube_slots", Slot: "AIV/0", Offset: l.Evidence[0].Offset}, l.Evidence[0])

		trace := filepath.Join(dir, "trace.json")
		_, stderr, code := runMain(t, "decode", capture, "-o", trace)
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stderr, "layout 32 cube slots, AIC capacity 16, AIV capacity 16 (found: 32 cube slots from the AIV/0 header at @0x")
		data, err := os.ReadFile(trace)
		require.NoError(t, err)
		var tr struct {
			Meta map[string]any `json:"megaKernelCycleTrace"`
		}
		require.NoError(t, json.Unmarshal(data, &tr))
		assert.EqualValues(t, 32, tr.Meta["cubeSlots"])
		assert.Equal(t, "headers", tr.Meta["layoutSource"])
		assert.Equal(t, "headers", tr.Meta["cubeSlotsSource"])
		assert.Contains(t, tr.Meta["layoutFound"], "found: 32 cube slots from the AIV/0 header")

		out, code, _ = runCaptured("dump", capture, "--records", "0")
		require.Equal(t, exitOK, code)
		assert.Contains(t, out, "layout: 32 cube slots, AIC capacity 16, AIV capacity 16; 96 slots")
		assert.Contains(t, out, "(found: 32 cube slots from the AIV/0 header at @0x")

		// analyze and diff read the capture as decode does: no flags.
		out, code, err = runCaptured("analyze", capture, "--format", "json")
		require.Equal(t, exitOK, code, "%v\n%s", err, out)
		var rep struct {
			Ranks []struct {
				Rank    uint32 `json:"rank"`
				Records uint64 `json:"records"`
			} `json:"ranks"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		require.Len(t, rep.Ranks, 1)
		assert.EqualValues(t, 2, rep.Ranks[0].Rank)
		assert.EqualValues(t, tr.Meta["recordCount"], rep.Ranks[0].Records)
		out, code, err = runCaptured("diff", capture, capture)
		require.Equal(t, exitOK, code, "%v\n%s", err, out)

		// So does a window of invocations (the input of cycleabi merge).
		_, stderr, code = runMain(t, "decode", capture, capture, "--rank", "2", "--rank", "3", "--step", "1", "--step", "1", "-o", trace)
		require.Equal(t, exitOK, code, stderr)
		assert.Equal(t, 2, strings.Count(stderr, "layout 32 cube slots, AIC capacity 16, AIV capacity 16 (found: 32 cube slots from the AIV/0 header"), stderr)
	}
}

// decode prints what opening the capture warned about (.npy).
func TestDecodeCommandNPYWarnings(t *testing.T) {
	b := validCapture().Bytes()
	hdr := fmt.Sprintf("{'descr': '>u8', 'fortran_order': False, 'shape': (%d,), }", len(b)/8)
	path := writeCapture(t, "be.npy", append(capturetest.NPYWithHeader(hdr, b), 0xee, 0xee))
	_, stderr, code := runMain(t, "decode", path, "-o", filepath.Join(t.TempDir(), "t.json"))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "warning: "+path+": bytes-after-layout")
	assert.Contains(t, stderr, "warning: "+path+": npy-byte-order")
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
		args = append(args, "--"+capacityFlagName(r.CoreType), strconv.FormatUint(uint64(v), 10))
	}
	return args
}
