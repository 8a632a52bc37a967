package tracemerge

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLongNamesCapped: an outer kernel's name, which merge copies into
// the args of every MegaKernel event, and the MegaKernel kernelName, in
// every new thread's name, are cut to 4,096 bytes with a warning naming
// the event; the output stays a small multiple of the inputs (a 1 MB
// name made a 1 MB framework trace a 2.98 GB output).
func TestLongNamesCapped(t *testing.T) {
	long := "HyperMegaMoe_" + strings.Repeat("x", 100000)
	fw := writeFile(t, "k.json", strings.Replace(kinetoTrace, `"HyperMegaMoe_abc123"`, `"`+long+`"`, 1))
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"+strings.Repeat("k", 9000)))
	text := readText(t, mk)
	text = strings.Replace(text, `"args":{"name":"AIC/0"}`, `"args":{"name":"`+strings.Repeat("c", 5000)+`"}`, 1)
	mk = writeFile(t, "mkc.json", text)
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, KernelPattern: "HyperMegaMoe", KernelPatternSet: true})
	require.NoError(t, err)
	assert.LessOrEqualf(t, len(m.raw), 200000, "the output bytes for a framework trace of %d", len(kinetoTrace)+len(long))
	for _, e := range m.internal() {
		args, _ := e["args"].(map[string]any)
		p, _ := args["parent_kernel"].(string)
		assert.Equalf(t, long[:4096], p, "parent_kernel of %d bytes, want the name's first 4096", len(p))
	}
	names, _ := m.threads("0")
	for tid, name := range names {
		assert.LessOrEqualf(t, len(name), 2*4096+1, "thread %v: a name of", tid)
	}
	var ws []string
	for _, w := range m.res["warnings"].([]any) {
		ws = append(ws, w.(string))
	}
	warnings := strings.Join(ws, "\n")
	for _, want := range []string{
		"k.json:9: byte 497: the outer kernel",
		": the outer kernel's name is 100,013 bytes long: kept its first 4,096 bytes (the cap on a name, as in a names file) in the events' parent_kernel",
		": invocation 0: the kernelName is 9,012 bytes long: kept its first 4,096 bytes",
		"mkc.json: the thread_name of tid 1000 is 5,000 bytes long: kept its first 4,096 bytes",
	} {
		assert.Contains(t, warnings, want, "warnings")
	}
}

// TestMegaKernelReadAsPython: merge reads the MegaKernel trace as
// Python's json module does: megaKernelCycleTrace: null is no metadata
// (refused as a missing object is; it was taken as an empty one), a
// second traceEvents is refused at its place (both arrays were merged),
// and an event whose ph is written with an escape is the event it
// encodes in both passes (the second pass compared the raw text and
// failed with "changed while it was merged").
func TestMegaKernelReadAsPython(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	o := Options{Framework: fw, KernelPattern: "HyperMegaMoe", KernelPatternSet: true}
	o.MegaKernel = writeMK(t, simpleMK, "null")
	_, err := runMerge(t, o)
	assert.ErrorContains(t, err, "no megaKernelCycleTrace object", "null metadata")
	text := strings.Replace(readText(t, writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))), "{\"traceEvents\":[", "{\"traceEvents\":[],\n\"traceEvents\":[", 1)
	o.MegaKernel = writeFile(t, "two.json", text)
	_, err = runMerge(t, o)
	assert.ErrorContains(t, err, "two.json:2: byte 33: a second traceEvents key", "two traceEvents")
	text = strings.ReplaceAll(readText(t, writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))), `"ph":"X"`, `"ph":"\u0058"`)
	o.MegaKernel = writeFile(t, "esc.json", text)
	m, err := runMerge(t, o)
	require.NoError(t, err)
	assert.Equal(t, len(simpleMK), len(m.internal()))
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// TestLongKernelNameCappedBeforePattern: the outer-kernel pattern merge
// makes from a kernelName is made from the name cut to 4,096 bytes: an
// 8 MB kernelName of camel-case words took 1.7 GiB and a minute, then
// failed as "--kernel-pattern: expression too large", a flag no one gave.
func TestLongKernelNameCappedBeforePattern(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"+strings.Repeat("Ab", 4<<20)))
	start := time.Now()
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	assert.Falsef(t, err != nil && strings.Contains(err.Error(), "--kernel-pattern") && !strings.Contains(err.Error(), "give --kernel-pattern"), "merge blames a --kernel-pattern no one gave: %.200s", err)
	var se *SelectionError
	assert.Falsef(t, err != nil && !errors.As(err, &se), "merge: %.200s, want no outer kernel found (the capped name matches none)", err)
	assert.LessOrEqual(t, time.Since(start), time.Duration(20*time.Second), "merge took")
}
