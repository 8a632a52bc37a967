package tracemerge

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/internal/jsonread"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBadOptions(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{KernelPattern: "", KernelPatternSet: true}, "--kernel-pattern is empty"},
		{Options{KernelPattern: "(", KernelPatternSet: true}, "--kernel-pattern: error parsing regexp"},
		{Options{KernelIndex: -1}, "--kernel-index must be >= 0"},
		{Options{KernelIndex: math.MaxInt}, "no trace has that many outer kernels"},
		{Options{KernelIndex: 1}, "too few outer kernels: 1 invocation(s) from --kernel-index 1 need 2 of the events matching (?i)(?:Hyper[_]?Mega[_]?Moe) with the best score (9), but " + fw + " has 1"},
	} {
		c.o.Framework, c.o.MegaKernel = fw, mk
		_, err := runMerge(t, c.o)
		require.ErrorContainsf(t, err, c.want, "error %v, want one containing %q", err, c.want)
	}
}

func TestTooFewKernels(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	ev := []mkEvent{
		{"A", 0, 1000, "1", "2", 0},
		{"A", 0, 1000, "10", "2", 1},
		{"A", 0, 1000, "20", "2", 2},
	}
	mk := writeMK(t, ev, oneRankMeta("HyperMegaMoe"))
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.EqualErrorf(t, err, "too few outer kernels: 3 invocation(s) from --kernel-index 0 need 3 of the events matching (?i)(?:Hyper[_]?Mega[_]?Moe) with the best score (9), but "+fw+" has 1", "error %v, want %q", err, "too few outer kernels: 3 invocation(s) from --kernel-index 0 need 3 of the events matching (?i)(?:Hyper[_]?Mega[_]?Moe) with the best score (9), but "+fw+" has 1")
}

func TestRefusals(t *testing.T) {
	good := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	for name, c := range map[string]struct {
		fw, mk string
		want   string
	}{
		"schema version": {good, writeMK(t, simpleMK, `{"schemaVersion":2,"rank":0}`), "megaKernelCycleTrace.schemaVersion 2 is not one this build reads ([1])"},
		"no schema":      {good, writeMK(t, simpleMK, `{"rank":0}`), "megaKernelCycleTrace has no schemaVersion"},
		"ts past 2^53": {writeFile(t, "n.json", `{"traceEvents":[`+"\n"+`{"ph":"X","cat":"kernel","name":"HyperMegaMoe","pid":0,"tid":0,"ts":1e300,"dur":1}]}`), mk,
			`n.json:2: byte 17: outer kernel "HyperMegaMoe" at ts 1e300: the invocation's events would end at 1e+300 us, past 2^53 us`},
		"MK NaN":      {good, writeMK(t, []mkEvent{{"A", 0, 1000, "NaN", "1", -1}}, oneRankMeta("K")), "ts NaN is not finite"},
		"syntax":      {writeFile(t, "s.json", `{"traceEvents":[{"ph":"X",}]}`), mk, `s.json:1: byte 26: expected an object key, found '}'`},
		"not a trace": {writeFile(t, "s.json", `{"events":[]}`), mk, "no traceEvents array"},
		"trailing":    {writeFile(t, "s.json", kinetoTrace+` x`), mk, "data after the trace object"},
		"bad literal": {writeFile(t, "s.json", `[{"a":tru}]`), mk, `"tru" is not a JSON value`},
	} {
		_, err := runMerge(t, Options{Framework: c.fw, MegaKernel: c.mk})
		var ie *InputError
		require.ErrorAsf(t, err, &ie, "%s: error %v (%T), want one that is a %T", name, err, err, ie)
		require.ErrorContainsf(t, err, c.want, "%s: error %v, want one containing %q", name, err, c.want)
	}
}

// TestNotCandidates: a matching event whose ts or dur upstream's float()
// refuses, or that is not finite, negative or zero, is not a candidate
// (upstream skips it); when nothing is left, the error counts them.
func TestNotCandidates(t *testing.T) {
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	fw := writeFile(t, "n.json", `[
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_1","pid":0,"tid":0,"ts":null,"dur":1},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_2","pid":0,"tid":0,"ts":true,"dur":1},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_3","pid":0,"tid":0,"ts":"12abc","dur":1},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_4","pid":0,"tid":0,"ts":NaN,"dur":1},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_5","pid":0,"tid":0,"ts":"1","dur":"-inf"},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_6","pid":0,"tid":0,"ts":1,"dur":1e999},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_7","pid":0,"tid":0,"ts":-1,"dur":1},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_8","pid":0,"tid":0,"ts":1,"dur":0},
{"ph":"B","cat":"kernel","name":"HyperMegaMoe_9","pid":0,"tid":0,"ts":1}]`)
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	var se *SelectionError
	require.ErrorAsf(t, err, &se, "error %v (%T), want one that is a %T", err, err, se)
	want := `no candidate in ` + fw + ` matches (?i)(?:Hyper[_]?Mega[_]?Moe) (9 event(s) whose name matches are not candidates, which are complete events with a numeric finite ts >= 0 and dur > 0: 3 with ts not a number (null, a boolean, text like "12abc"), 1 with ts not finite, 1 with ts below 0, 2 with dur not finite, 1 with dur not above 0, 1 with ph not X), and the fallback has 0 device kernel(s)`
	require.ErrorContainsf(t, err, want, "error %v, want one containing %q", err, want)

	// Strings as Python's float() reads them are candidates.
	fw = writeFile(t, "s.json", `[{"ph":"X","cat":"kernel","name":"HyperMegaMoe_1","pid":0,"tid":0,"ts":" 1_000.5 ","dur":"+2e1"}]`)
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	checkPlacement(t, m, simpleMK, "1000.5", "0", "HyperMegaMoe_1", true)
}

func TestBrokenGzip(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(kinetoTrace))
	zw.Close()
	fw := writeFile(t, "k.json.gz", gz.String()[:gz.Len()-12])
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))})
	var ie *InputError
	require.ErrorAsf(t, err, &ie, "error %v (%T), want one that is a %T", err, err, ie)
	want := "reading the gzip stream: unexpected EOF"
	require.ErrorContainsf(t, err, want, "error %v, want one containing %q", err, want)
}

// TestInvalidUTF8Replaced: bytes that are not UTF-8, in a framework
// event, in a long top-level value (cut by the copy's 64 KiB chunks) and in
// a MegaKernel event, come out as U+FFFD, as decode's JSON trace and
// encoding/json write them.
func TestInvalidUTF8Replaced(t *testing.T) {
	long := strings.Repeat("é", jsonread.FlushAt/2-1) + "\xff" + strings.Repeat("é", jsonread.FlushAt) // é is 2 bytes: some cut lands inside one
	fw := writeFile(t, "fw.json", `{"note":"`+long+`","traceEvents":[
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_`+"\xc3"+`","pid":0,"tid":7,"ts":10,"dur":20,"args":{"a":"`+"\x80"+`b"}}]}`)
	ev := []mkEvent{{"A\xfe", 0, 1000, "1", "2", -1}}
	mk := writeMK(t, ev, oneRankMeta("HyperMegaMoe"))
	var buf bytes.Buffer
	_, err := Merge(&buf, Options{Framework: fw, MegaKernel: mk, Rank: -1})
	require.NoError(t, err)
	out := buf.String()
	require.True(t, utf8.ValidString(out), "output is valid UTF-8: utf8.ValidString(out) = false, want true")
	require.Contains(t, out, `"note":"`+strings.Repeat("é", jsonread.FlushAt/2-1)+"\uFFFD"+strings.Repeat("é", jsonread.FlushAt)+`"`, "out")
	require.Contains(t, out, `"name":"HyperMegaMoe_`+"\uFFFD"+`"`, "out")
	require.Contains(t, out, `"args":{"a":"`+"\uFFFD"+`b"}`, "out")
	require.Contains(t, out, `"name":"A`+"\uFFFD"+`"`, "out")
	require.Contains(t, out, `"parent_kernel":"HyperMegaMoe_`+"\uFFFD"+`"`, "out")
}

// TestNotJSONNamed: a file given where a JSON trace belongs is named for
// what it is.
func TestNotJSONNamed(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("\x93NUMPY\x01\x00"))
	zw.Close()
	for name, c := range map[string]struct {
		data, want string
		asMK       bool
	}{
		"capture":   {"\x00\x10\x00\x00\x00\x00\x00\x00\x9f\x00\x00\x00", "this is binary data (a raw capture? cycleabi decode turns it into a trace), not a MegaKernel trace", true},
		"capture [": {"[\x10\x00\x00\x00\x00\x00\x00\x9f\x00\x00\x00", "this is binary data (a raw capture?", false},
		"npy":       {"\x93NUMPY\x01\x00v\x00{'descr'", "this is a NumPy .npy file", false},
		"npy.gz":    {gz.String(), "this is gzip holding a NumPy .npy file", false},
		"pftrace":   {"\x0a\x1c\x08\x01\x12\x18", "this is a Perfetto protobuf trace (.pftrace; merge reads JSON traces: decode with --format json)", true},
		"png":       {"\x89PNG\r\n\x1a\n\x00\x00", "this is a PNG image, not a framework trace (a Chrome JSON trace: torch profiler / Kineto, or CANN msprof's trace.json)", false},
		"zip":       {"PK\x03\x04\x14\x00", "this is a zip archive (torch.save?", false},
		"empty":     {"", "this is an empty file", false},
		"yaml":      {"tasks:\n  - id: 0\n", `this is text that is not JSON (it starts "tasks:")`, false},
		"html":      {"<!doctype html>", "this is HTML or XML", false},
		"bad gzip":  {"\x1f\x8b\x08\x00", "gzip data that does not open", false},
	} {
		p := writeFile(t, "x", c.data)
		o := Options{Framework: p, MegaKernel: mk}
		if c.asMK {
			o = Options{Framework: fw, MegaKernel: p}
		}
		_, err := runMerge(t, o)
		var ie *InputError
		require.ErrorAsf(t, err, &ie, "%s: error %v (%T), want one that is a %T", name, err, err, ie)
		require.ErrorContainsf(t, err, p+": "+c.want, "%s: error %v, want one containing %q", name, err, p+": "+c.want)
	}
}

// TestUTF8WriterSplits: however the bytes are cut into writes, the
// output is the input with each invalid byte as U+FFFD.
func TestUTF8WriterSplits(t *testing.T) {
	in := "a\xffé€\xe2\x82😀\xf0\x9f" // invalid, 2, 3, a cut 3, 4, a cut 4 at the end
	want := "a\uFFFDé€\uFFFD\uFFFD😀\uFFFD\uFFFD"
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			var out bytes.Buffer
			u := &utf8Writer{w: &out}
			for _, part := range []string{in[:i], in[i:j], in[j:]} {
				_, err := u.Write([]byte(part))
				require.NoError(t, err)
			}
			require.NoError(t, u.flush())
			require.Equalf(t, want, out.String(), "cuts at %d and %d: out.String()", i, j)
		}
	}
}

// TestMetadataErrorPlaced: a megaKernelCycleTrace of the wrong shape is
// named with the line and byte where the object starts.
func TestMetadataErrorPlaced(t *testing.T) {
	fw := writeFile(t, "fw.json", `{"traceEvents":[]}`)
	text := "{\"traceEvents\":[],\n \"megaKernelCycleTrace\": {\"schemaVersion\": \"one\"}}"
	mk := writeFile(t, "mk.json", text)
	_, err := Merge(&bytes.Buffer{}, Options{Framework: fw, MegaKernel: mk, Rank: -1})
	want := mk + fmt.Sprintf(":2: byte %d: megaKernelCycleTrace", strings.Index(text, `{"schemaVersion"`)) + ": schemaVersion is a string; the schema has int"
	assert.EqualErrorf(t, err, want, "error %v\nwant %s", err, want)
}
