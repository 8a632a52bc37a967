package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
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
		if code != ExitOK {
			t.Fatalf("%v\n%s: code = %v, want %v", errOut, out, code, ExitOK)
		}
		if !strings.Contains(out, "--cube-slots 32") {
			t.Fatalf("out = %q, want it to contain %q", out, "--cube-slots 32")
		}

		out, code, errOut = runOut(t, "validate", capture)
		if code != ExitOK {
			t.Fatalf("%v\n%s: code = %v, want %v", errOut, out, code, ExitOK)
		}
		if !regexp.MustCompile(`layout: 32 cube slots, AIC capacity 16, AIV capacity 16 \(found: 32 cube slots from the AIV/0 header at @0x[0-9a-f]+\)`).MatchString(out) {
			t.Errorf("out = %q, want a match for %s", out, `layout: 32 cube slots, AIC capacity 16, AIV capacity 16 \(found: 32 cube slots from the AIV/0 header at @0x[0-9a-f]+\)`)
		}

		out, code, _ = runOut(t, "validate", capture, "--format", "json")
		if code != ExitOK {
			t.Fatalf("code = %v, want %v", code, ExitOK)
		}
		var doc validate.Document
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		l := doc.Captures[0].Layout
		if l == nil {
			t.Fatalf("l is nil, want non-nil")
		}
		if l.CubeSlots != 32 {
			t.Errorf("l.CubeSlots = %v, want 32", l.CubeSlots)
		}
		if l.Source != validate.FromHeaders {
			t.Errorf("l.Source = %q, want %q", l.Source, validate.FromHeaders)
		}
		if l.CubeSlotsSource != validate.FromHeaders {
			t.Errorf("l.CubeSlotsSource = %q, want %q", l.CubeSlotsSource, validate.FromHeaders)
		}
		if want := map[string]validate.LayoutSource{"AIC": "headers", "AIV": "headers"}; !reflect.DeepEqual(l.CapacitySources, want) {
			t.Errorf("l.CapacitySources = %v, want %v", l.CapacitySources, want)
		}
		if !strings.HasPrefix(l.How, "found: 32 cube slots from the AIV/0 header at @0x") {
			t.Errorf("%s", l.How)
		}
		if len(l.Evidence) == 0 {
			t.Fatalf("l.Evidence is empty, want something")
		}
		if want := (validate.EvidenceJSON{What: "cube_slots", Slot: "AIV/0", Offset: l.Evidence[0].Offset}); !reflect.DeepEqual(l.Evidence[0], want) {
			t.Errorf("l.Evidence[0] = %v, want %v", l.Evidence[0], want)
		}

		trace := filepath.Join(dir, "trace.json")
		_, stderr, code := runMain(t, "decode", capture, "-o", trace)
		if code != ExitOK {
			t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
		}
		if want := "layout 32 cube slots, AIC capacity 16, AIV capacity 16 (found: 32 cube slots from the AIV/0 header at @0x"; !strings.Contains(stderr, want) {
			t.Errorf("stderr = %q, want it to contain %q", stderr, want)
		}
		data, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		var tr struct {
			Meta map[string]any `json:"megaKernelCycleTrace"`
		}
		if err := json.Unmarshal(data, &tr); err != nil {
			t.Fatal(err)
		}
		if got, _ := tr.Meta["cubeSlots"].(float64); got != 32 {
			t.Errorf("cubeSlots = %v, want 32", tr.Meta["cubeSlots"])
		}
		if !reflect.DeepEqual(tr.Meta["layoutSource"], "headers") {
			t.Errorf("tr.Meta[\"layoutSource\"] = %v, want %v", tr.Meta["layoutSource"], "headers")
		}
		if !reflect.DeepEqual(tr.Meta["cubeSlotsSource"], "headers") {
			t.Errorf("tr.Meta[\"cubeSlotsSource\"] = %v, want %v", tr.Meta["cubeSlotsSource"], "headers")
		}
		if got, _ := tr.Meta["layoutFound"].(string); !strings.Contains(got, "found: 32 cube slots from the AIV/0 header") {
			t.Errorf("layoutFound = %q, want it to contain %q", tr.Meta["layoutFound"], "found: 32 cube slots from the AIV/0 header")
		}

		out, code, _ = runOut(t, "dump", capture, "--records", "0")
		if code != ExitOK {
			t.Fatalf("code = %v, want %v", code, ExitOK)
		}
		if want := "layout: 32 cube slots, AIC capacity 16, AIV capacity 16; 96 slots"; !strings.Contains(out, want) {
			t.Errorf("out = %q, want it to contain %q", out, want)
		}
		if want := "(found: 32 cube slots from the AIV/0 header at @0x"; !strings.Contains(out, want) {
			t.Errorf("out = %q, want it to contain %q", out, want)
		}

		// analyze and diff read the capture as decode does: no flags.
		out, code, errOut = runOut(t, "analyze", capture, "--format", "json")
		if code != ExitOK {
			t.Fatalf("%v\n%s: code = %v, want %v", errOut, out, code, ExitOK)
		}
		var rep struct {
			Ranks []struct {
				Rank    uint32 `json:"rank"`
				Records uint64 `json:"records"`
			} `json:"ranks"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if len(rep.Ranks) != 1 {
			t.Fatalf("len(rep.Ranks) = %d, want 1: %v", len(rep.Ranks), rep.Ranks)
		}
		if rep.Ranks[0].Rank != 2 {
			t.Errorf("rep.Ranks[0].Rank = %v, want 2", rep.Ranks[0].Rank)
		}
		if want, ok := tr.Meta["recordCount"].(float64); !ok || float64(rep.Ranks[0].Records) != want {
			t.Errorf("analyze's records = %d, want decode's recordCount %v", rep.Ranks[0].Records, tr.Meta["recordCount"])
		}
		out, code, errOut = runOut(t, "diff", capture, capture)
		if code != ExitOK {
			t.Fatalf("%v\n%s: code = %v, want %v", errOut, out, code, ExitOK)
		}

		// So does a window of invocations (the input of cycleabi merge).
		_, stderr, code = runMain(t, "decode", capture, capture, "--rank", "2", "--rank", "3", "--step", "1", "--step", "1", "-o", trace)
		if code != ExitOK {
			t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
		}
		if got := strings.Count(stderr, "layout 32 cube slots, AIC capacity 16, AIV capacity 16 (found: 32 cube slots from the AIV/0 header"); got != 2 {
			t.Errorf("%s: got %v, want 2", stderr, got)
		}
	}
}

// decode prints what opening the capture warned about (.npy).
func TestDecodeCommandNPYWarnings(t *testing.T) {
	t.Parallel()
	b := validCapture().Bytes()
	hdr := fmt.Sprintf("{'descr': '>u8', 'fortran_order': False, 'shape': (%d,), }", len(b)/8)
	path := writeCapture(t, "be.npy", append(capturetest.NPYWithHeader(hdr, b), 0xee, 0xee))
	_, stderr, code := runMain(t, "decode", path, "-o", filepath.Join(t.TempDir(), "t.json"))
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if !strings.Contains(stderr, "warning: "+path+": bytes-after-layout") {
		t.Errorf("stderr = %q, want it to contain %q", stderr, "warning: "+path+": bytes-after-layout")
	}
	if !strings.Contains(stderr, "warning: "+path+": npy-byte-order") {
		t.Errorf("stderr = %q, want it to contain %q", stderr, "warning: "+path+": npy-byte-order")
	}
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
