package agreement_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/internal/testkit/pytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pyFindLayout is the Python program of TestPythonLayoutCases: for each
// job (a buffer file, the cube slot count and capacities given) it prints
// one JSON line with what find_layout answers: the layout, its source and
// how it was found, or the CaptureError, or a LayoutError's text.
const pyFindLayout = `
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import cycleabi_abi as abi

for job in json.load(open(sys.argv[2])):
    buf = np.fromfile(job["path"], dtype=np.uint8)
    try:
        layout, source, how = abi.find_layout(buf, 0, job["cube_slots"], job["caps"], name="capture.bin")
        out = {"layout": [layout.cube_slots] + list(layout.capacities), "source": source, "how": how}
    except abi.CaptureError as e:
        out = {"error": {"code": e.code, "offset": e.offset, "slot": e.slot, "message": e.message}}
    except abi.LayoutError as e:
        out = {"plain": str(e)}
    print(json.dumps(out))
`

// TestPythonLayoutCases runs the layout search's table
// (capture/testdata/layout, which capture's TestLayoutCases runs against
// Resolve) through gen/py's find_layout: each case's want section must be
// Python's answer too. Python's messages carry Go's hint after "; " where
// Go keeps it apart, and Python has no hints for a found layout; cases
// whose request uses a host plan or a partial resolution, which
// find_layout has not, are Go's only.
func TestPythonLayoutCases(t *testing.T) {
	files, err := filepath.Glob("../../capture/testdata/layout/*.txtar")
	require.NoError(t, err, "no layout cases")
	require.NotEmpty(t, files, "no layout cases")
	type job struct {
		Path      string   `json:"path"`
		CubeSlots *uint32  `json:"cube_slots"`
		Caps      []uint32 `json:"caps"`
		name      string
		want      map[string]string
	}
	dir := t.TempDir()
	var jobs []*job
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		lc, err := capturetest.ParseLayoutCase(data)
		require.NoErrorf(t, err, "%s", file)
		if lc.GoOnly {
			continue
		}
		want, _ := golden.Section(lc.Archive, "want")
		j := &job{Path: filepath.Join(dir, filepath.Base(file)+".bin"), name: filepath.Base(file), want: map[string]string{}}
		for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
			key, rest, _ := strings.Cut(line, " ")
			j.want[key] = rest
		}
		if n := lc.Request.CubeSlots; n != 0 {
			j.CubeSlots = &n
		}
		if caps := lc.Request.Capacities; caps != nil {
			for _, r := range abi.Regions() {
				j.Caps = append(j.Caps, caps.For(r.CoreType))
			}
		}
		require.NoError(t, os.WriteFile(j.Path, lc.Bytes, 0o644))
		jobs = append(jobs, j)
	}
	list, err := json.Marshal(jobs)
	require.NoError(t, err)
	jobsFile := filepath.Join(dir, "jobs.json")
	require.NoError(t, os.WriteFile(jobsFile, list, 0o644))
	out := bytes.Split(bytes.TrimSpace(pytest.Run(t, dir, pyFindLayout, moduleDir(t, genPy), jobsFile)), []byte("\n"))
	require.Equalf(t, len(jobs), len(out), "find_layout's answers to the cases:\n%.2000s", bytes.Join(out, []byte("\n")))
	for i, j := range jobs {
		var py struct {
			Layout []uint32 `json:"layout"`
			Source string   `json:"source"`
			How    string   `json:"how"`
			Error  *struct {
				Code    string  `json:"code"`
				Offset  int64   `json:"offset"`
				Slot    *string `json:"slot"`
				Message string  `json:"message"`
			} `json:"error"`
			Plain string `json:"plain"`
		}
		require.NoErrorf(t, json.Unmarshal(out[i], &py), "%s: %.500s", j.name, out[i])
		switch {
		case py.Plain != "":
			assert.Equalf(t, j.want["request"], "error: "+py.Plain, "%s: find_layout refuses the request", j.name)
		case py.Error != nil:
			where := fmt.Sprintf("%s @%#x", py.Error.Code, py.Error.Offset)
			if py.Error.Slot != nil {
				where += " slot " + *py.Error.Slot
			}
			msg, hint := j.want["message"], j.want["hint"]
			assert.Equalf(t, j.want["error"], where, "%s: find_layout's error", j.name)
			assert.Truef(t, py.Error.Message == msg || py.Error.Message == msg+"; "+hint, "%s: find_layout says %q\nwant %q (then \"; %s\" or not)", j.name, py.Error.Message, msg, hint)

		case len(py.Layout) != len(abi.Regions())+1:
			assert.Fail(t, fmt.Sprintf("%s: find_layout answers %s", j.name, out[i]))
		default:
			var caps abi.Capacities
			for k, r := range abi.Regions() {
				caps.Set(r.CoreType, py.Layout[k+1])
			}
			got := fmt.Sprintf("(%s) %s %s", abi.Layout{CubeSlots: py.Layout[0], Capacities: caps}, py.Source, py.How)
			assert.Equalf(t, fmt.Sprintf("%s %s %s", j.want["layout"], j.want["source"], j.want["how"]), got, "%s: find_layout finds", j.name)
		}
	}
	t.Logf("find_layout answered %d cases as Go", len(jobs))
}
