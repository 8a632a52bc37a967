package agreement_test

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/perfetto"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/megakernel/cycleabi/internal/testkit/pytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPythonReadsCaptures: the C++ harness's gold buffer and the
// synthesized example captures (raw and .npy), handed to read_capture as a
// path, bytes, a memoryview and an array, give exactly the records Go
// decodes, in the same order.
func TestPythonReadsCaptures(t *testing.T) {
	var jobs []*pyJob
	for _, f := range []string{goldBin, "../../examples/moe_layer.bin", "../../examples/aiv_pipeline.npy"} {
		data := readFile(t, f)
		npy := bytes.HasPrefix(data, []byte("\x93NUMPY"))
		for _, as := range []string{"path", "bytes", "memoryview", "array", "tensor", "npload"} {
			// Any source's bytes are read as a file of them would be: the
			// bytes of a .npy file (np.fromfile) are a .npy capture too.
			if !npy && as == "npload" {
				continue
			}
			jobs = append(jobs, &pyJob{label: f + " as " + as, data: data, As: as})
		}
	}
	// The gold capture under its host-planned layout, and under wrong ones.
	gold := readFile(t, goldBin)
	for _, o := range []capture.Request{
		{CubeSlots: 24, Capacities: &abi.Capacities{AIC: 32, AIV: 16}},
		{CubeSlots: 25},
		{CubeSlots: 23},
		{Capacities: &abi.Capacities{AIC: 32, AIV: 32}},
		{Capacities: &abi.Capacities{AIC: 17, AIV: 16}},
	} {
		jobs = append(jobs, &pyJob{label: "gold.bin", data: gold, opts: o})
	}
	results := runReader(t, genPy, jobs)
	assert.GreaterOrEqual(t, compareWithGo(t, jobs, results), 10, "only")
}

// TestPythonReadsHarnessCaptures runs the C++ writer harness (every
// scenario, with the first compiler on PATH) and reads each capture in
// Python under the layout the harness planned.
func TestPythonReadsHarnessCaptures(t *testing.T) {
	pytest.Interpreter(t)
	compilers := cxxtest.Compilers(t)
	if len(compilers) == 0 {
		t.Skip("no C++ compiler")
	}
	exe := buildHarness(t, harnessBuild{cxx: compilers[0], std: "c++11"})
	dir, text := runHarness(t, exe, harnessScenarios...)
	m, err := parseManifest(text)
	require.NoError(t, err)
	var jobs []*pyJob
	for _, c := range m {
		caps := c.Capacities
		jobs = append(jobs, &pyJob{label: c.Name, data: readFile(t, filepath.Join(dir, c.File)),
			opts: capture.Request{CubeSlots: c.CubeSlots, Capacities: &caps}})
	}
	compareWithGo(t, jobs, runReader(t, genPy, jobs))
}

// parseFuzzCorpus reads a file in the go-fuzz corpus format ("go test fuzz
// v1", then one Go literal per line: []byte("..."), uint32(5), bool(true)).
func parseFuzzCorpus(data []byte) ([]any, error) {
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) == 0 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("not a go test fuzz v1 file")
	}
	var vals []any
	for _, line := range lines[1:] {
		line = strings.TrimSpace(line)
		open := strings.IndexByte(line, '(')
		if open < 0 || !strings.HasSuffix(line, ")") {
			return nil, fmt.Errorf("bad line %q", line)
		}
		typ, lit := line[:open], line[open+1:len(line)-1]
		switch typ {
		case "[]byte", "string":
			s, err := strconv.Unquote(lit)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", line, err)
			}
			vals = append(vals, []byte(s))
		case "bool":
			b, err := strconv.ParseBool(lit)
			if err != nil {
				return nil, err
			}
			vals = append(vals, b)
		case "int", "int8", "int16", "int32", "int64":
			n, err := strconv.ParseInt(lit, 0, 64)
			if err != nil {
				return nil, err
			}
			vals = append(vals, n)
		case "uint", "uint8", "uint16", "uint32", "uint64":
			n, err := strconv.ParseUint(lit, 0, 64)
			if err != nil {
				return nil, err
			}
			vals = append(vals, int64(n))
		default:
			return nil, fmt.Errorf("unsupported type %q", typ)
		}
	}
	return vals, nil
}

// fuzzCaptureJobs turns the committed corpora of the capture fuzz targets
// (arguments: data, trailing zeros, cube slots, planned, aic, aiv, ...)
// into jobs, as the targets' captureInput does.
func fuzzCaptureJobs(t *testing.T) []*pyJob {
	var jobs []*pyJob
	for _, dir := range []string{"../../decode/testdata/fuzz/FuzzDecode", "../../validate/testdata/fuzz/FuzzValidate", "../../fuzz/testdata/fuzz/FuzzAgreement"} {
		target := filepath.Base(dir)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			vals, err := parseFuzzCorpus(readFile(t, filepath.Join(dir, e.Name())))
			require.NoErrorf(t, err, "%s/%s", target, e.Name())
			require.GreaterOrEqualf(t, len(vals), 6, "%s/%s", target, e.Name())
			data, _ := vals[0].([]byte)
			zeros, _ := vals[1].(int64)
			if int64(len(data))+zeros > 1<<20 {
				continue // past the targets' input cap
			}
			buf := append(append([]byte{}, data...), make([]byte, zeros)...)
			var o capture.Request
			if cube, _ := vals[2].(int64); cube%4097 != 0 {
				o.CubeSlots = uint32(cube % 4097)
			}
			if planned, _ := vals[3].(bool); planned {
				aic, _ := vals[4].(int64)
				aiv, _ := vals[5].(int64)
				o.Capacities = &abi.Capacities{AIC: uint32(aic), AIV: uint32(aiv)}
			}
			jobs = append(jobs, &pyJob{label: target + "/" + e.Name(), data: buf, opts: o})
		}
	}
	return jobs
}

// mutants are the gold capture with one header or record field set to an
// edge value, raw and wrapped in .npy headers (good, truncated, broken),
// from a fixed seed: inputs on which the error paths must agree.
// mistakenFiles are files given where a capture belongs (package sniff
// names them), cut short too, and captures that begin with one's magic
// bytes, which are read as captures.
func mistakenFiles(t *testing.T, gold []byte) []*pyJob {
	t.Helper()
	var pf, gz bytes.Buffer
	c, err := capture.FromBytes("gold", gold)
	require.NoError(t, err)
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	require.NoError(t, perfetto.Write(&pf, []render.Input{{Decoded: d, Config: render.Config{SoCName: "ascend910b", FrequencyMHz: 50, KernelName: "MegaKernel"}}}, render.WriteOptions{}))
	zw := gzip.NewWriter(&gz)
	zw.Write(gold)
	zw.Close()
	var zb bytes.Buffer
	za := zip.NewWriter(&zb)
	w, _ := za.Create("archive/data.pkl")
	w.Write(gold[:1000])
	za.Close()
	files := map[string][]byte{
		"perfetto": pf.Bytes(), "gzip": gz.Bytes(), "zip": zb.Bytes(),
		"png":   append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x01\x00\x00\x00\x00\x80\x08\x06\x00\x00\x00\x5c\x72\xa8\x66"), gold[:200]...),
		"elf":   append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x3e\x00\x01\x00\x00\x00"), gold[:200]...),
		"empty": {},
	}
	var jobs []*pyJob
	for name, b := range files {
		for _, cut := range []int{len(b), 63, 64, 30} {
			if cut <= len(b) {
				jobs = append(jobs, &pyJob{label: fmt.Sprintf("%s cut at %d", name, cut), data: b[:cut]})
			}
		}
		// The magic as the low bytes of AIC/0's entry cycle: a capture.
		if len(b) >= 4 {
			g := append([]byte{}, gold...)
			copy(g, b[:4])
			jobs = append(jobs, &pyJob{label: "gold starting with the magic of " + name, data: g})
		}
	}
	return jobs
}

func mutants(t *testing.T) []*pyJob {
	gold := readFile(t, goldBin)
	l, err := abi.NewLayout(24, abi.Capacities{AIC: 32, AIV: 16})
	require.NoError(t, err)
	rng := rand.New(rand.NewSource(13))
	edge := []uint64{0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 48, 0xFFFFFFFF, 0x80000000, 1 << 40}
	fields := []struct {
		off, size int
	}{{0, 8}, {8, 4}, {12, 4}, {16, 4}, {20, 4}, {24, 4}, {28, 4}, {40, 4}}
	var jobs []*pyJob
	slots := []abi.Slot{l.Slot(0), l.Slot(5), l.Slot(23), l.Slot(24), l.Slot(25), l.Slot(40)}
	for i := 0; i < 240; i++ {
		buf := append([]byte{}, gold...)
		s := slots[rng.Intn(len(slots))]
		var off, size int
		if rng.Intn(4) == 0 {
			// A record's start or end cycle.
			off = int(s.RecordOffset(uint32(rng.Intn(8)))) + 8*rng.Intn(2)
			size = 8
		} else {
			f := fields[rng.Intn(len(fields))]
			off, size = int(s.Offset)+f.off, f.size
		}
		v := edge[rng.Intn(len(edge))]
		for k := 0; k < size; k++ {
			buf[off+k] = byte(v >> (8 * k))
		}
		if rng.Intn(5) == 0 {
			buf = buf[:rng.Intn(len(buf))]
		}
		jobs = append(jobs, &pyJob{label: fmt.Sprintf("mutant %d (@%#x = %#x)", i, off, v), data: buf})
	}
	npy := func(header string, payload []byte) []byte {
		pre := []byte("\x93NUMPY\x01\x00")
		pad := (64 - (10+len(header)+1)%64) % 64
		h := header + strings.Repeat(" ", pad) + "\n"
		pre = append(pre, byte(len(h)), byte(len(h)>>8))
		return append(append(pre, h...), payload...)
	}
	n := len(gold)
	for i, h := range []string{
		fmt.Sprintf("{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }", n),
		fmt.Sprintf("{'descr': '<u4', 'fortran_order': False, 'shape': (%d,), }", n/4),
		fmt.Sprintf("{'descr': '<u8', 'fortran_order': False, 'shape': (%d,), }", n/8+1),
		fmt.Sprintf("{'descr': '<f2', 'fortran_order': True, 'shape': (2, %d), }", n/4),
		fmt.Sprintf("{'descr': '<f2', 'fortran_order': True, 'shape': (1, %d), }", n/2),
		fmt.Sprintf("{'descr': [('a', '<u4'), ('b', '|V4', (2,))], 'fortran_order': False, 'shape': (%d,), }", n/12),
		fmt.Sprintf("{'descr': 'O', 'fortran_order': False, 'shape': (%d,), }", n),
		fmt.Sprintf("{'descr': '<U1', 'fortran_order': False, 'shape': (%dL,), }", n/4),
		fmt.Sprintf("{'descr': '<u+1', 'fortran_order': False, 'shape': (%d,), }", n),
		"{'descr': '|u1', 'fortran_order': False, 'shape': (-1,), }",
		"{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999,), }",
		"{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 4294967296, 0), }",
		"{'descr': '|u1', 'fortran_order': False, 'shape': [True], }",
		"{'descr': '|u1', 'shape': (3,) 'x': 1}",
		"{'descr': \"|u1\", 'fortran_order': None, 'shape': (),}",
		"[1, 2, 3]",
		"{'descr': '|u1', 'fortran_order': False, 'shape': (53760,), } trailing",
	} {
		jobs = append(jobs, &pyJob{label: fmt.Sprintf("npy %d %s", i, h), data: npy(h, gold)})
	}
	whole := npy(fmt.Sprintf("{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }", n), gold)
	for _, cut := range []int{0, 3, 6, 9, 10, 11, 40, 127, 128, 129, len(whole) - 1} {
		jobs = append(jobs, &pyJob{label: fmt.Sprintf("npy cut at %d", cut), data: whole[:cut]})
	}
	jobs = append(jobs, mistakenFiles(t, gold)...)
	// Layouts the search cannot settle, and requests the headers contradict.
	amb, err := abi.NewLayout(33, abi.Capacities{AIC: 16, AIV: 16})
	require.NoError(t, err)
	ambiguous := make([]byte, amb.Size()) // fits 33 cube slots with AIV capacity 16, and 81 with 0
	require.NoError(t, abi.InitSlot(ambiguous, 1000, abi.CoreTypeAIC, 0, 16))
	_, err = abi.WriteRecord(ambiguous, &abi.ProfileRecord{StartCycle: 1100, EndCycle: 1200})
	require.NoError(t, err)

	jobs = append(jobs, &pyJob{label: "ambiguous", data: ambiguous})
	// Headers only (both capacities 0): the layout is the largest cube slot
	// count the size allows; it holds no record.
	headersOnly := capturetest.New(30, 0, 0)
	headersOnly.Enter(abi.CoreTypeAIC, 0, 1).Enter(abi.CoreTypeAIV, 0, 1).Enter(abi.CoreTypeAIV, 59, 1)
	jobs = append(jobs, &pyJob{label: "headers only", data: headersOnly.Bytes()})
	// Two cube slot counts the walk accepts (40, from AIV/1's header; 168,
	// from the size), told apart only by holding each to the header the
	// other was found from (capture's rapid property found this one).
	cross := capturetest.New(40, 224, 368)
	cross.Enter(abi.CoreTypeAIC, 0, 1).Enter(abi.CoreTypeAIV, 1, 5)
	cross.Span(abi.CoreTypeAIV, 1, 900, 950, abi.TaskTypeBase+uint32(abi.TaskTypeSwiGLU), 1)
	jobs = append(jobs, &pyJob{label: "cross-checked", data: cross.Bytes()})
	for _, o := range []capture.Request{
		{CubeSlots: 33},
		{CubeSlots: 81},
		{Capacities: &abi.Capacities{AIC: 16, AIV: 0}},
		{CubeSlots: 33, Capacities: &abi.Capacities{AIC: 16, AIV: 16}},
		{CubeSlots: 34, Capacities: &abi.Capacities{AIC: 16, AIV: 16}},
	} {
		jobs = append(jobs, &pyJob{label: "ambiguous, resolved", data: ambiguous, opts: o})
	}
	for _, o := range []capture.Request{
		{CubeSlots: 25},
		{CubeSlots: 4096},
		{Capacities: &abi.Capacities{AIC: 32, AIV: 32}},
		{Capacities: &abi.Capacities{AIC: 16, AIV: 16}},
		{CubeSlots: 24, Capacities: &abi.Capacities{AIC: 32, AIV: 32}},
		{CubeSlots: 24, Capacities: &abi.Capacities{AIC: 32, AIV: 16}},
		{CubeSlots: 24, Capacities: &abi.Capacities{AIC: 48, AIV: 16}},
		{CubeSlots: 30, Capacities: &abi.Capacities{AIC: 32, AIV: 16}},
	} {
		jobs = append(jobs, &pyJob{label: "gold, requested", data: gold, opts: o})
		jobs = append(jobs, &pyJob{label: "gold cut short, requested", data: gold[:len(gold)-100], opts: o})
	}
	v2 := append([]byte("\x93NUMPY\x02\x00\x00\x00\x20\x00"), whole[10:]...)
	jobs = append(jobs, &pyJob{label: "npy v2 bad length", data: v2})
	v9 := append([]byte("\x93NUMPY\x09\x00"), whole[8:]...)
	jobs = append(jobs, &pyJob{label: "npy v9", data: v9})
	return jobs
}

// TestPythonRefusesWhatValidateRefuses runs every committed input of the
// capture fuzz targets, and mutants of the gold capture, through
// read_capture and through decode and validate: Python must refuse exactly
// the captures validate reports errors for, with decode's first error
// (code, file offset, slot, record), and read exactly Go's records from
// the rest.
func TestPythonRefusesWhatValidateRefuses(t *testing.T) {
	jobs := append(fuzzCaptureJobs(t), mutants(t)...)
	results := runReader(t, genPy, jobs)
	accepted := compareWithGo(t, jobs, results)
	codes := map[string]int{}
	for _, r := range results {
		if r.Error != nil {
			codes[r.Error.Code]++
		}
	}
	t.Logf("%d inputs: %d read, errors by code %v", len(jobs), accepted, codes)
	// The corpora and mutants must reach every error code, or the test
	// proves less than it claims.
	for _, code := range []capture.Code{capture.CodeBadNPY, capture.CodeTruncated, capture.CodeShortBuffer,
		capture.CodeBadCapacity, capture.CodeSlotIdentity, capture.CodeCapacityMismatch, capture.CodeReservedNonzero,
		capture.CodeCountOverCapacity, capture.CodeNegativeInterval, capture.CodeNoRecords, capture.CodeNotACapture,
		capture.CodeLayoutMismatch, capture.CodeNoLayout, capture.CodeAmbiguousLayout} {
		assert.NotEqualf(t, 0, codes[string(code)], "no input makes Python report %s", code)
	}
	assert.NotEqual(t, 0, accepted, "no input was read")
}
