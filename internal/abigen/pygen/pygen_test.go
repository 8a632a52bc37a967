package pygen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/internal/testkit/pytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	realSchemaPath = "../../../abi/schema.yaml"
	realSchemaName = "abi/schema.yaml" // the name cmd/abigen passes to schema.Load
	committedPath  = "../../../gen/py/" + ModuleFile
)

func loadReal(t *testing.T) *schema.Schema {
	t.Helper()
	data, err := os.ReadFile(realSchemaPath)
	require.NoError(t, err)
	s, err := schema.Load(realSchemaName, data)
	require.NoError(t, err, "the real schema does not load")
	// Stamped with the version, as abigen stamps what it writes into gen/.
	s.Release = buildinfo.Version()
	return s
}

// render is schema.Load then Generate; a failure of either renders as its
// error text, so invalid schemas have goldens too.
func render(file string, data []byte) []byte {
	s, err := schema.Load(file, data)
	if err != nil {
		return []byte(err.Error() + "\n")
	}
	files, err := Generate(s)
	if err != nil {
		return []byte(err.Error() + "\n")
	}
	return files[ModuleFile]
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// edit replaces exactly one occurrence of old in data.
func edit(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	require.Equalf(t, 1, strings.Count(string(data), old), "edit: %q occurs", old)
	return []byte(strings.Replace(string(data), old, new, 1))
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

var fileLineCol = regexp.MustCompile(`^testdata/small\.yaml:\d+:\d+: `)

// invalidCases are edits of testdata/small.yaml that the Python emitter
// refuses; their goldens are the exact error text.
var invalidCases = []struct {
	name, old, new string
}{
	// An enum member named after a Python keyword (Go and C++ allow it).
	{"invalid_keyword_value", "{name: Load, value: 0,", "{name: None, value: 0,"},
	// A constant whose Python name is one the module defines itself.
	{"invalid_name_collision", "{name: Big, value: 0x100000000,", "{name: AbiVersion, value: 0x100000000,"},
	// A record field that would collide with a column records() adds.
	{"invalid_trace_column", "{name: lane, type: u8,", "{name: block_id, type: u8,"},
}

// TestGolden renders the testdata schema and the invalid edits and
// compares each with its golden. The real schema's golden is gen/py itself
// (TestGeneratedModuleIsCurrent).
func TestGolden(t *testing.T) {
	small := readTestdata(t, "small.yaml")
	checkGolden(t, "small.py.golden", render("testdata/small.yaml", small))
	for _, c := range invalidCases {
		t.Run(c.name, func(t *testing.T) {
			got := render("testdata/small.yaml", edit(t, small, c.old, c.new))
			require.NotContainsf(t, string(got), "DO NOT EDIT", "an invalid schema must fail, got:\n%.500s", got)
			for _, line := range strings.Split(strings.TrimSpace(string(got)), "\n") {
				assert.Regexp(t, fileLineCol, line, "error line does not start with testdata/small.yaml:LINE:COL")
			}
			checkGolden(t, c.name+".golden", got)
		})
	}
}

// TestGeneratedModuleIsCurrent is the drift check: rendering
// abi/schema.yaml in memory gives the committed gen/py module byte for byte.
func TestGeneratedModuleIsCurrent(t *testing.T) {
	files, err := Generate(loadReal(t))
	require.NoError(t, err)
	want, err := os.ReadFile(committedPath)
	require.NoError(t, err)
	got := files[ModuleFile]
	// The first line that differs, not testify's dump of both modules.
	assert.True(t, bytes.Equal(got, want), "gen/py/%s is stale (run go run ./cmd/abigen):\n%s", ModuleFile, golden.Diff(got, want))
	assert.Lenf(t, files, 1, "Generate files, want only %s", ModuleFile)
}

// TestDeterministic: equal models give equal bytes, and Generate does not
// change the model.
func TestDeterministic(t *testing.T) {
	s := loadReal(t)
	canon := s.Canonical()
	a, err := Generate(s)
	require.NoError(t, err)
	b, err := Generate(s)
	require.NoError(t, err)
	assert.Equal(t, []byte(b[ModuleFile]), []byte(a[ModuleFile]), "two renders of one model differ")
	assert.Equal(t, canon, s.Canonical(), "Generate changed the model")
}

func TestGenerateRejectsUnvalidatedModel(t *testing.T) {
	for _, s := range []*schema.Schema{nil, {File: "x.yaml"}} {
		files, err := Generate(s)
		assert.Errorf(t, err, "Generate(%+v) = %d files, want an error", s, len(files))
	}
}

// TestUpperSnake pins the Python spelling of schema names.
func TestUpperSnake(t *testing.T) {
	for in, want := range map[string]string{
		"RecordCapacityAlignment": "RECORD_CAPACITY_ALIGNMENT",
		"InvalidOwnerID":          "INVALID_OWNER_ID",
		"MhcGradPrevAAndMapping":  "MHC_GRAD_PREV_A_AND_MAPPING",
		"AIC":                     "AIC",
		"Ascend910B":              "ASCEND910_B",
		"CoreHeader":              "CORE_HEADER",
	} {
		assert.Equalf(t, want, upperSnake(in), "upperSnake(%q)", in)
	}
}

// TestModulesCompile byte-compiles the committed module and the testdata
// schema's with `python -m py_compile`.
func TestModulesCompile(t *testing.T) {
	dir := t.TempDir()
	small := render("testdata/small.yaml", readTestdata(t, "small.yaml"))
	committed, err := os.ReadFile(committedPath)
	require.NoError(t, err)
	for name, data := range map[string][]byte{"real_abi.py": committed, "small_abi.py": small} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	pytest.Run(t, dir, "import py_compile, sys\nfor f in sys.argv[1:]: py_compile.compile(f, doraise=True)", "real_abi.py", "small_abi.py")
}

// hostileDoc is schema text that would break Python source if it were
// pasted in as is: quotes that end strings, a backslash that escapes the
// closing quote or starts an escape (\N{...}, \u...), a comment sign and
// format braces. (Line breaks and control characters never get this far:
// the schema loader refuses them at the doc's file:line:col.)
const hostileDoc = `"end\"\"\" ''' \\ # x \\N{BULLET} \\u0041 {0} %s \\\" y"`

// TestHostileDocs puts hostileDoc in every doc of the testdata schema, and
// requires the module to compile, import and keep the text: the enum's
// docstring and the field table carry the doc with whitespace folded.
func TestHostileDocs(t *testing.T) {
	small := string(readTestdata(t, "small.yaml"))
	docRE := regexp.MustCompile(`doc: [^,}\n]+`)
	hostile := docRE.ReplaceAllString(small, "doc: "+hostileDoc)
	s, err := schema.Load("testdata/small.yaml", []byte(hostile))
	require.NoError(t, err, "the hostile schema does not load")
	require.NotEmpty(t, s.Enums, "the hostile schema's enums")
	require.Contains(t, s.Enums[0].Doc, `\N{BULLET}`, "the hostile doc did not reach the model")
	require.Contains(t, s.Enums[0].Doc, `"""`, "the hostile doc did not reach the model")
	files, err := Generate(s)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hostile_abi.py"), files[ModuleFile], 0o644))
	want := strings.Join(strings.Fields(s.Enums[0].Doc), " ")
	out := pytest.Run(t, dir, `
import json, sys
sys.path.insert(0, ".")
import hostile_abi as m
print(json.dumps(" ".join(m.Kind.__doc__.split())))
print(json.dumps(" ".join(m.HEAD_FIELDS[0][4].split())))
print(m.Layout(2, {m.Kind.Little: 8, m.Kind.NPU: 0, m.Kind.Big: 16}).size)
`)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Lenf(t, lines, 3, "unexpected output:\n%s", out)
	for i, line := range lines[:2] {
		var got string
		require.NoErrorf(t, json.Unmarshal([]byte(line), &got), "line %d %q", i, line)
		assert.Equalf(t, want, got, "doc %d in Python", i)
	}
	// 8 Little slots of 8 records, 2 NPU slots of none, 4 Big of 16 (Head 32 bytes, Rec 40).
	assert.Equal(t, strconv.Itoa(8*(32+8*40)+2*32+4*(32+16*40)), lines[2], "Layout size in Python")
}

// TestSmallSchemaReader reads, with the module generated from the testdata
// schema (three core types whose regions are not in enum order, 32-byte
// headers, 40-byte records with u8 and u16 fields), a capture laid out here
// by hand from that schema's offsets: records come back with every field,
// in trace order (start_cycle, then core type value, then block id, ties
// in record order), and a header in the wrong slot is refused at its
// core_type field with the slot's name.
func TestSmallSchemaReader(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "small_abi.py"), render("testdata/small.yaml", readTestdata(t, "small.yaml")), 0o644))
	// Regions: Little x4 (capacity 8), NPU x1 (capacity 0), Big x2
	// (capacity 16), cube slots 2. Kind values: Big 1, Little 2, NPU 3.
	const head, rec = 32, 40
	littleStride, npuStride, bigStride := head+8*rec, head, head+16*rec
	bigStart := 8*littleStride + 2*npuStride
	buf := make([]byte, bigStart+4*bigStride)
	put := func(at int, width int, v uint64) {
		for k := 0; k < width; k++ {
			buf[at+k] = byte(v >> (8 * k))
		}
	}
	header := func(off int, kind, block, capacity, count uint64) {
		put(off, 8, 7)
		put(off+8, 4, count)
		put(off+16, 4, kind)
		put(off+20, 4, block)
		put(off+24, 4, capacity)
	}
	type record struct{ start, end, desc, lane, flags, kind, block uint64 }
	var want []record
	slot := func(off int, kind, block, capacity uint64, starts ...uint64) {
		header(off, kind, block, capacity, uint64(len(starts)))
		for i, s := range starts {
			r := record{s, s + 3, 0x100 + uint64(i), uint64(i + 1), 0xBEEF, kind, block}
			at := off + head + i*rec
			put(at, 8, r.start)
			put(at+8, 8, r.end)
			put(at+16, 4, r.desc)
			put(at+32, 1, r.lane)
			put(at+34, 2, r.flags)
			want = append(want, r)
		}
	}
	slot(0, 2, 0, 8, 10, 10, 30)
	slot(littleStride, 2, 1, 8, 10)
	header(8*littleStride, 3, 0, 0, 0)
	slot(bigStart, 1, 0, 16, 10, 20)
	slot(bigStart+3*bigStride, 1, 3, 16, 5)
	sort.SliceStable(want, func(i, j int) bool {
		a, b := want[i], want[j]
		return a.start < b.start || a.start == b.start && (a.kind < b.kind || a.kind == b.kind && a.block < b.block)
	})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "good.bin"), buf, 0o644))
	// far.bin: only Big/1 is live, two regions past the first; the given
	// capacities place it, and the cube slot count follows from where it sits.
	good := buf
	buf = make([]byte, len(good))
	header(bigStart+bigStride, 1, 1, 16, 1)
	put(bigStart+bigStride+head, 8, 10)
	put(bigStart+bigStride+head+8, 8, 13)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "far.bin"), buf, 0o644))
	buf = good
	header(bigStart+2*bigStride, 1, 1, 16, 0) // Big/2 claims to be Big/1
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.bin"), buf, 0o644))
	out := pytest.Run(t, dir, `
import json, sys
sys.path.insert(0, ".")
import small_abi as m
c = m.read_capture("good.bin", 2)
r = c.records()
print(json.dumps([[int(x[f]) for f in ("start_cycle", "end_cycle", "desc_id", "lane", "flags", "core_type", "block_id")] for x in r], separators=(",", ":")))
print(json.dumps([c.cube_slots] + list(c.layout.capacities)))
try:
    m.read_capture("bad.bin", 2)
    print("accepted")
except m.CaptureError as e:
    print(json.dumps([e.code, e.offset, e.slot]))
f = m.read_capture("far.bin", little_capacity=8, npu_capacity=0, big_capacity=16)
print(json.dumps([f.cube_slots] + list(f.layout.capacities)))
`)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Lenf(t, lines, 4, "unexpected output:\n%s", out)
	var wantRows [][]uint64
	for _, r := range want {
		wantRows = append(wantRows, []uint64{r.start, r.end, r.desc, r.lane, r.flags, r.kind, r.block})
	}
	wantJSON, _ := json.Marshal(wantRows)
	assert.Equalf(t, string(wantJSON), lines[0], "records in Python\nwant\n%s", wantJSON)
	assert.Equal(t, "[2, 8, 0, 16]", lines[1], "layout in Python")
	assert.Equal(t, fmt.Sprintf(`["slot-identity", %d, "Big/2"]`, bigStart+2*bigStride+16), lines[2], "bad capture in Python")
	assert.Equal(t, "[2, 8, 0, 16]", lines[3], "layout of far.bin in Python")
}

// TestVersion: the module's __version__ is the Release abigen stamps, in
// PEP 440 form; a model without one has none, and a Release that is not a
// version is refused.
func TestVersion(t *testing.T) {
	for _, c := range []struct{ release, want string }{
		{"0.5.0", "\n__version__ = \"0.5.0\"\n"},
		{"0.6.0-rc.1", "\n__version__ = \"0.6.0rc1\"\n"},
		{"", ""},
	} {
		s := loadReal(t)
		s.Release = c.release
		files, err := Generate(s)
		require.NoErrorf(t, err, "Release %q", c.release)
		mod := string(files[ModuleFile])
		if c.want == "" {
			assert.NotContainsf(t, mod, "__version__ =", "Release %q: the module sets __version__", c.release)
		} else {
			assert.Contains(t, mod, c.want, "Release %q: the module lacks it", c.release)
		}
	}
	s := loadReal(t)
	s.Release = "v0.5.0"
	_, err := Generate(s)
	assert.ErrorContainsf(t, err, "v0.5.0", "Release v0.5.0: err = %v, want one naming it", err)
}
