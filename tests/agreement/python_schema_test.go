package agreement_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/abigen/gogen"
	"github.com/megakernel/cycleabi/internal/abigen/pygen"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/megakernel/cycleabi/internal/testkit/pytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPythonLayoutMatchesSchemaAndDWARF: the module's dtypes have the
// schema's item sizes and field offsets and sizes, its struct formats the
// schema's sizes, and its version, fingerprint, constants and enums the
// schema's; and with every C++ compiler on PATH, the struct layout the
// compiler gave the header (read from its DWARF) equals the dtypes'.
func TestPythonLayoutMatchesSchemaAndDWARF(t *testing.T) {
	s, err := schema.LoadFile(schemaFile)
	require.NoError(t, err)
	abs := moduleDir(t, genPy)
	out := pytest.Run(t, t.TempDir(), `
import json, struct, sys
sys.path.insert(0, sys.argv[1])
import cycleabi_abi as abi
structs = {}
for name in sys.argv[2:]:
    dt = getattr(abi, name + "_DTYPE")
    structs[name] = {"itemsize": dt.itemsize, "calcsize": struct.calcsize(getattr(abi, name + "_FORMAT")),
                     "fields": [[n, dt.fields[n][1], dt.fields[n][0].itemsize, dt.fields[n][0].str[0]] for n in dt.names]}
enums = {}
for name, obj in vars(abi).items():
    if isinstance(obj, type) and issubclass(obj, abi.enum.IntEnum) and obj is not abi.enum.IntEnum:
        enums[name] = [[m.name, int(m)] for m in obj]
print(json.dumps({"version": abi.ABI_VERSION, "fingerprint": abi.FINGERPRINT, "hex": abi.FINGERPRINT_HEX,
                  "structs": structs, "enums": enums, "max_records": abi.max_records_per_core(),
                  "constants": {k: v for k, v in vars(abi).items() if k.isupper() and isinstance(v, int)}}))
`, append([]string{abs}, upperSnakeNames(s)...)...)
	var py struct {
		Version     uint32
		Fingerprint uint64
		Hex         string
		Structs     map[string]struct {
			Itemsize, Calcsize int
			Fields             [][]any
		}
		Enums      map[string][][]any
		MaxRecords uint64 `json:"max_records"`
		Constants  map[string]uint64
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	require.NoErrorf(t, dec.Decode(&py), "%s", out)
	assert.Equal(t, s.Version, py.Version, "Python ABI_VERSION, schema")
	assert.Equal(t, s.Fingerprint, py.Fingerprint, "Python FINGERPRINT, schema")
	assert.Equal(t, s.FingerprintHex(), py.Hex, "Python FINGERPRINT_HEX, schema")
	assert.Equal(t, abi.Fingerprint, py.Fingerprint, "Python FINGERPRINT, Go")
	assert.Equal(t, uint64(abi.MaxRecordsPerCore), py.MaxRecords, "Python max_records_per_core()")
	for _, c := range s.Constants {
		if got, ok := py.Constants[upperSnake(c.Name)]; assert.Truef(t, ok, "Python %s is missing (schema %s)", upperSnake(c.Name), c.Name) {
			assert.Equalf(t, c.Value, got, "Python %s, schema %s", upperSnake(c.Name), c.Name)
		}
	}
	for _, e := range s.Enums {
		var want [][]any
		for _, v := range e.Values {
			want = append(want, []any{v.Name, json.Number(strconv.FormatUint(uint64(v.Value), 10))})
		}
		assert.Equalf(t, fmt.Sprint(want), fmt.Sprint(py.Enums[e.Name]), "Python enum %s = %v, schema %v", e.Name, py.Enums[e.Name], want)
	}
	pyOffsets := map[string]map[string][2]int64{} // struct -> field -> offset, size
	for _, st := range s.Structs {
		ps, ok := py.Structs[upperSnake(st.Name)]
		if !assert.Truef(t, ok, "no dtype for %s", st.Name) {
			continue
		}
		assert.Equalf(t, st.Size, ps.Itemsize, "%s: dtype itemsize, schema size", st.Name)
		assert.Equalf(t, st.Size, ps.Calcsize, "%s: struct format bytes, schema size", st.Name)
		pyOffsets[st.Name] = map[string][2]int64{}
		if len(ps.Fields) != len(st.Fields) {
			assert.Fail(t, fmt.Sprintf("%s: dtype fields %v, schema has %d", st.Name, ps.Fields, len(st.Fields)))
			continue
		}
		for i, f := range st.Fields {
			pf := ps.Fields[i]
			off, _ := pf[1].(json.Number).Int64()
			size, _ := pf[2].(json.Number).Int64()
			order := pf[3].(string)
			pyOffsets[st.Name][f.Name] = [2]int64{off, size}
			assert.Equalf(t, f.Name, pf[0], "%s: dtype field %d = %v: name", st.Name, i, pf)
			assert.Equalf(t, int64(f.Offset), off, "%s: dtype field %d = %v: offset of schema %s", st.Name, i, pf, f.Name)
			assert.Equalf(t, int64(f.Size), size, "%s: dtype field %d = %v: size of schema %s", st.Name, i, pf, f.Name)
			if f.Type.Width() > 1 {
				assert.Equalf(t, "<", order, "%s.%s: dtype byte order, want little-endian", st.Name, f.Name)
			}
		}
	}
	for _, cxx := range cxxtest.Compilers(t) {
		t.Run(cxx.Name, func(t *testing.T) {
			obj := compileDWARFProbe(t, cxx, "c++11", []string{"-gdwarf-4", "-O0"}, genCpp, s)
			dt, err := readDebugTypes(obj)
			require.NoError(t, err)
			for _, st := range s.Structs {
				ds := dt.structs[st.Name]
				if !assert.NotNilf(t, ds, "%s: not in the DWARF", st.Name) {
					continue
				}
				assert.Equalf(t, py.Structs[upperSnake(st.Name)].Itemsize, int(ds.ByteSize), "%s: %d bytes in the object, dtype itemsize", st.Name, ds.ByteSize)
				for _, f := range ds.Field {
					want, ok := pyOffsets[st.Name][f.Name]
					if assert.Truef(t, ok, "%s.%s: in the object, not in the dtype", st.Name, f.Name) {
						assert.Equalf(t, want[0], f.ByteOffset, "%s.%s: offset in the object, dtype", st.Name, f.Name)
						assert.Equalf(t, want[1], f.Type.Size(), "%s.%s: size in the object, dtype", st.Name, f.Name)
					}
				}
				assert.Equalf(t, len(st.Fields), len(ds.Field), "%s: members in the object, dtype fields", st.Name)

			}
		})
	}
}

// upperSnake is the Python spelling of a schema name (pygen's rule, said
// again here so the test does not reuse the code it tests).
func upperSnake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	isUp := func(r rune) bool { return r >= 'A' && r <= 'Z' }
	isLow := func(r rune) bool { return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' }
	for i, r := range rs {
		if isUp(r) && i > 0 && (isLow(rs[i-1]) || i+1 < len(rs) && isUp(rs[i-1]) && rs[i+1] >= 'a' && rs[i+1] <= 'z') {
			b.WriteByte('_')
		}
		b.WriteString(strings.ToUpper(string(r)))
	}
	return b.String()
}

func upperSnakeNames(s *schema.Schema) []string {
	var names []string
	for _, st := range s.Structs {
		names = append(names, upperSnake(st.Name))
	}
	return names
}

// TestPythonDescNames: desc_name and event_name give decode's names
// (kernelnames.Names.StageName and EventName) for every namespace edge, every
// named descriptor and enum value, ids outside every namespace, and names
// files that override the schema, name graph stages and task stages.
func TestPythonDescNames(t *testing.T) {
	ids := map[uint32]bool{0: true, 1: true, 0xFFFF: true, 0xFFFFFFFF: true, 0xFFFFFFFE: true, 0x7FFFFFFF: true}
	for _, ns := range abi.Namespaces() {
		for _, d := range []int64{-1, 0, 1, 5, 0x65, int64(ns.Count()) - 1, int64(ns.Count())} {
			if v := int64(ns.Base()) + d; v >= 0 && v <= 0xFFFFFFFF {
				ids[uint32(v)] = true
			}
		}
	}
	for _, tt := range abi.TaskTypes() {
		ids[abi.TaskTypeBase+uint32(tt)] = true
	}
	rng := rand.New(rand.NewSource(7))
	for range 200 {
		ids[rng.Uint32()] = true
		ids[0x10000+uint32(rng.Intn(0x30000))] = true
	}
	for _, id := range []uint32{abi.RuntimeStageWaitDependency, abi.RuntimeStageTerminateTask, abi.RuntimeStageTriggerEvent} {
		ids[id] = true
	}
	var list []uint32
	for id := range ids {
		list = append(list, id)
	}
	sort.Slice(list, func(i, j int) bool { return list[i] < list[j] })

	names := &kernelnames.Names{
		Stages: map[uint32]string{0x10001: "Prefetch", abi.RuntimeStageTriggerEvent: "Signal", 0x30000: "Dispatch",
			0x30005: "Expert FFN \"quoted\"", abi.TaskTypeBase + uint32(abi.TaskTypeMatMul): "MyMatMul", 7: "seven", 0xFFFFFFFF: ""},
		Tasks: kernelnames.TaskNamesOf(map[uint32]string{0: "Combine", 3: "", 17: "Dispatch_π"}),
	}
	type rec struct {
		Desc, Task, Index, Owner uint32
	}
	var recs []rec
	for i, id := range list {
		recs = append(recs, rec{id, []uint32{0, 3, 17, 5}[i%4], uint32(i % 7), []uint32{abi.InvalidOwnerID, 0, 42}[i%3]})
	}
	input, err := json.Marshal(map[string]any{"ids": list, "stages": names.Stages, "tasks": maps.Collect(names.Tasks.All()), "records": recs})
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.json"), input, 0o644))
	abs := moduleDir(t, genPy)
	out := pytest.Run(t, dir, `
import json, sys
sys.path.insert(0, sys.argv[1])
import cycleabi_abi as abi
d = json.load(open("in.json"))
stages = {int(k): v for k, v in d["stages"].items()}
tasks = {int(k): v for k, v in d["tasks"].items()}
out = {"plain": [abi.desc_name(i) for i in d["ids"]],
       "named": [abi.desc_name(i, stages) for i in d["ids"]],
       "events": [[abi.event_name(r["Desc"], r["Task"], r["Index"], r["Owner"], stages, tasks, detailed=det, owner_label="Expert")
                   for det in (False, True)] for r in d["records"]]}
print(json.dumps(out))
`, abs)
	var py struct {
		Plain, Named []string
		Events       [][2]string
	}
	require.NoErrorf(t, json.Unmarshal(out, &py), "%.500s", out)
	require.Len(t, py.Plain, len(list), "Python named")
	require.Len(t, py.Events, len(recs), "Python named")
	bad := 0
	for i, id := range list {
		if !assert.Equalf(t, (*kernelnames.Names)(nil).StageName(id), py.Plain[i], "desc_name(%#x)", id) {
			bad++
		}
		if !assert.Equalf(t, names.StageName(id), py.Named[i], "desc_name(%#x, stages)", id) {
			bad++
		}
		if bad > 10 {
			t.FailNow()
		}
	}
	for i, r := range recs {
		pr := &abi.ProfileRecord{DescID: r.Desc, TaskID: r.Task, StageTaskIndex: r.Index, OwnerID: r.Owner}
		for k, detailed := range []bool{false, true} {
			assert.Equalf(t, names.EventName(pr, detailed, "Expert"), py.Events[i][k], "event_name(%+v, detailed=%v)", r, detailed)
		}
	}
}

// replaceOnce replaces exactly one occurrence of old in text.
func replaceOnce(t *testing.T, text, old, new string) string {
	t.Helper()
	require.Equalf(t, 1, strings.Count(text, old), "edit: %q occurs", old)
	return strings.Replace(text, old, new, 1)
}

// regeneratedWriter renders gen/go's package from the model s (as abigen
// would after a schema change), builds it in a module of its own with
// program (package main, importing it as "example.com/changed/abi") and
// runs the program with the path of a file it is to write the capture to.
// It returns the capture: written by the changed ABI's own Go writer, not
// by the committed one.
func regeneratedWriter(t *testing.T, s *schema.Schema, program string) []byte {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build the regenerated Go writer")
	}
	files, err := gogen.Generate(s)
	require.NoError(t, err, "gen/go from the changed schema")
	dir := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	write("go.mod", []byte("module example.com/changed\n\ngo 1.26\n"))
	for rel, data := range files {
		if !strings.HasSuffix(rel, "_test.go") {
			write(path.Join("abi", path.Base(rel)), data)
		}
	}
	// The package's hand-written half, as committed: it works over the
	// generated tables of any schema.
	const handDir = "../../gen/go/abi"
	entries, err := os.ReadDir(handDir)
	require.NoError(t, err)
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_gen.go") && !strings.HasSuffix(n, "_test.go") {
			write(path.Join("abi", n), readFile(t, filepath.Join(handDir, n)))
		}
	}
	write("main.go", []byte(program))
	out := filepath.Join(dir, "capture.bin")
	cmd := exec.Command(goBin, "run", ".", out)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	msg, err := cmd.CombinedOutput()
	require.NoErrorf(t, err, "the regenerated Go writer:\n%s", msg)
	return readFile(t, out)
}

// TestPythonFollowsSchemaChange changes the schema as an ABI change would
// (the record grows a u32 field and padding to 40 bytes, TaskType gains a
// value), renders the Python module from the changed model in memory, and
// reads a capture written by gen/go's writer regenerated from the changed
// model (built and run in a module of its own): every field, the new one
// too, comes back as written, the records the full slot dropped are
// counted, and the new task type has its name.
// The committed module, generated from the old schema, does not read it so.
func TestPythonFollowsSchemaChange(t *testing.T) {
	text := string(readFile(t, schemaFile))
	text = replaceOnce(t, text, "    doc: One cycle record; record i of a slot starts 64 + 32*i bytes into the slot.\n    size: 32\n",
		"    doc: One cycle record; record i of a slot starts 64 + 40*i bytes into the slot.\n    size: 40\n")
	text = replaceOnce(t, text, "        doc: The task's owner (e.g. an expert); InvalidOwnerID = no owner.\n",
		"        doc: The task's owner (e.g. an expert); InvalidOwnerID = no owner.\n"+
			"      - {name: flags, type: u32, offset: 32, doc: Flags a new kernel writes.}\n"+
			"      - {name: tail, type: pad, offset: 36, size: 4, doc: Padding.}\n")
	text = replaceOnce(t, text, "      - {name: ShmemGetMem, value: 141, doc: Remote get.}\n",
		"      - {name: ShmemGetMem, value: 141, doc: Remote get.}\n      - {name: NewOp, value: 142, doc: A new task type.}\n")
	s, err := schema.Load("abi/schema.yaml", []byte(text))
	require.NoError(t, err, "the changed schema does not load")
	require.NotEqual(t, abi.Fingerprint, s.Fingerprint, "the changed schema has the committed fingerprint")
	files, err := pygen.Generate(s)
	require.NoError(t, err)
	newDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(newDir, pygen.ModuleFile), files[pygen.ModuleFile], 0o644))

	caps := map[string]uint64{"AIC": 16, "AIV": 32}
	newOp := uint64(0x20000 + 142)
	type written struct {
		slot  string
		block int
		recs  [][]uint64 // start, end, desc, task, index, owner, flags
	}
	cores := []written{
		{"AIC", 0, [][]uint64{{100, 150, newOp, 1, 0, 0xFFFFFFFF, 0xA5A5A5A5}, {160, 170, 0x10007, 1, 0, 3, 1}, {400, 900, 0x20067, 2, 1, 7, 0}}},
		{"AIV", 0, [][]uint64{{120, 130, 0x30005, 9, 4, 1, 0xFFFFFFFF}}},
		{"AIV", 3, [][]uint64{{110, 119, newOp, 5, 2, 0, 2}, {300, 301, 0x10000, 5, 2, 0, 3}}},
		{"AIV", 5, nil}, // filled past its capacity: the writer drops 2
	}
	for i := uint64(0); i < caps["AIV"]+2; i++ {
		cores[3].recs = append(cores[3].recs, []uint64{1000 + 10*i, 1005 + 10*i, 0x10001, 7, i, 2, i << 20})
	}
	recFields := []string{"start_cycle", "end_cycle", "desc_id", "task_id", "stage_task_index", "owner_id", "flags"}
	goFields := []string{"StartCycle", "EndCycle", "DescID", "TaskID", "StageTaskIndex", "OwnerID", "Flags"}
	var program strings.Builder
	fmt.Fprintf(&program, `package main

import (
	"os"

	"example.com/changed/abi"
)

func main() {
	caps := abi.Capacities{AIC: %d, AIV: %d}
	l, err := abi.NewLayout(24, caps)
	if err != nil {
		panic(err)
	}
	buf := make([]byte, l.Size())
	for _, c := range cores {
		off := l.SlotOffset(c.t, c.block)
		slot := buf[off : off+abi.SlotStride(caps.For(c.t))]
		if err := abi.InitSlot(slot, 90, c.t, c.block, caps.For(c.t)); err != nil {
			panic(err)
		}
		for i := range c.recs {
			if _, err := abi.WriteRecord(slot, &c.recs[i]); err != nil {
				panic(err)
			}
		}
	}
	if err := os.WriteFile(os.Args[1], buf, 0o644); err != nil {
		panic(err)
	}
}

var cores = []struct {
	t     abi.CoreType
	block uint32
	recs  []abi.ProfileRecord
}{
`, caps["AIC"], caps["AIV"])
	var want [][]uint64
	for _, c := range cores {
		ct := uint64(s.Enum("CoreType").Value(c.slot).Value)
		fmt.Fprintf(&program, "\t{abi.CoreType%s, %d, []abi.ProfileRecord{\n", c.slot, c.block)
		for i, r := range c.recs {
			program.WriteString("\t\t{")
			for k, name := range goFields {
				fmt.Fprintf(&program, "%s: %d, ", name, r[k])
			}
			program.WriteString("},\n")
			if uint64(i) < caps[c.slot] {
				want = append(want, append(append([]uint64{}, r...), ct, uint64(c.block)))
			}
		}
		program.WriteString("\t}},\n")
	}
	program.WriteString("}\n")
	sort.SliceStable(want, func(i, j int) bool { return want[i][0] < want[j][0] })
	data := regeneratedWriter(t, s, program.String())

	jobs := []*pyJob{{label: "changed-ABI capture", data: data}}
	got := runReader(t, newDir, jobs)[0]
	require.Nil(t, got.Error, "the regenerated module refuses the changed ABI's capture")
	require.Empty(t, got.Plain, "the regenerated module refuses the changed ABI's capture")
	wantColumns := append(append([]string{}, recFields...), "core_type", "block_id")
	assert.Equalf(t, fmt.Sprint(wantColumns), fmt.Sprint(got.Columns), "records() columns %v, want %v", got.Columns, wantColumns)
	assert.Equalf(t, fmt.Sprint(want), fmt.Sprint(got.Records), "the regenerated module reads\n%v\nthe writer wrote (in trace order)\n%v", got.Records, want)
	assert.Equalf(t, "[24 16 32]", fmt.Sprint(got.Layout), "layout %v dropped", got.Layout)
	assert.Equalf(t, uint64(2), got.Dropped, "layout %v dropped", got.Layout)
	old := runReader(t, genPy, []*pyJob{{label: "changed-ABI capture, old module", data: data}})[0]
	assert.False(t, old.Error == nil && fmt.Sprint(old.Records) == fmt.Sprint(got.Records), "the committed module reads the changed ABI's capture the same way: the test cannot tell the modules apart")
	abs := moduleDir(t, genPy)
	names := pytest.Run(t, newDir, `
import sys
sys.path.insert(0, ".")
import cycleabi_abi as new
print(new.desc_name(0x20000 + 142), new.TaskType.NewOp.value, new.PROFILE_RECORD_DTYPE.itemsize, new.FINGERPRINT_HEX)
sys.path[0] = sys.argv[1]
del sys.modules["cycleabi_abi"]
import cycleabi_abi as old
print(old.desc_name(0x20000 + 142), old.PROFILE_RECORD_DTYPE.itemsize, old.FINGERPRINT_HEX)
`, abs)
	wantNames := fmt.Sprintf("TaskType_NewOp 142 40 %s\nTaskType_142 32 %s\n", s.FingerprintHex(), abi.FingerprintHex)
	assert.Equalf(t, wantNames, string(names), "names and sizes in Python:\n%s", names)
}

// TestPythonFamilyNames: under every kernel family, the Python module's
// family_for_kernel and desc_name give what decode gives (abi.FamilyForKernel,
// kernelnames.Names{Family}.StageName): every stage id and task type of every
// family, the runtime stages, and ids no family names.
func TestPythonFamilyNames(t *testing.T) {
	ids := map[uint32]bool{abi.RuntimeStageWaitDependency: true, abi.RuntimeStageTerminateTask: true, abi.RuntimeStageTriggerEvent: true,
		0x10008: true, 0x3FFFF: true, 5: true}
	for _, f := range abi.Families() {
		for _, st := range f.Stages() {
			ids[st.DescID], ids[st.DescID+1] = true, true
		}
	}
	for v := uint32(0); v < 160; v++ {
		ids[abi.TaskTypeBase+v] = true
	}
	var list []uint32
	for id := range ids {
		list = append(list, id)
	}
	sort.Slice(list, func(i, j int) bool { return list[i] < list[j] })
	var kernels []string
	for _, f := range abi.Families() {
		kernels = append(kernels, f.KernelNames()...)
	}
	kernels = append(kernels, "mega_moe", "MEGAMOEGRAD", "MegaKernel", "")
	input, err := json.Marshal(map[string]any{"ids": list, "kernels": kernels})
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.json"), input, 0o644))
	out := pytest.Run(t, dir, `
import json, sys
sys.path.insert(0, sys.argv[1])
import cycleabi_abi as abi
d = json.load(open("in.json"))
out = {"families": {}, "byName": {}, "kernels": []}
for fam in abi.FAMILIES:
    out["families"][fam.name] = [abi.desc_name(i, family=fam) for i in d["ids"]]
    # A family by name, as --kernel-family takes it (case ignored).
    out["byName"][fam.name] = [abi.desc_name(i, family=fam.name.lower()) for i in d["ids"]]
try:
    abi.desc_name(0x10002, family="NoSuchFamily")
    out["unknown"] = "no error"
except KeyError as e:
    out["unknown"] = str(e)
for k in d["kernels"]:
    fam = abi.family_for_kernel(k)
    out["kernels"].append(fam.name if fam else "")
print(json.dumps(out))
`, moduleDir(t, genPy))
	var py struct {
		Families map[string][]string
		ByName   map[string][]string
		Kernels  []string
		Unknown  string
	}
	require.NoErrorf(t, json.Unmarshal(out, &py), "%.500s", out)
	require.Len(t, py.Families, len(abi.Families()), "Python")
	for _, f := range abi.Families() {
		names := (*kernelnames.Names)(nil).WithFamily(f)
		for i, id := range list {
			assert.Equalf(t, names.StageName(id), py.Families[f.String()][i], "%s: desc_name(%#x)", f, id)
			assert.Equalf(t, names.StageName(id), py.ByName[f.String()][i], "%s by name: desc_name(%#x, family=%q), decode", f, id, strings.ToLower(f.String()))

		}
	}
	require.Contains(t, py.Unknown, "no such kernel family", "desc_name(family=\"NoSuchFamily\")")
	assert.Contains(t, py.Unknown, "MegaMoe", "desc_name(family=\"NoSuchFamily\")")
	for i, k := range kernels {
		want := ""
		if f, ok := abi.FamilyForKernel(k); ok {
			want = f.String()
		}
		assert.Equalf(t, want, py.Kernels[i], "family_for_kernel(%q)", k)
	}
}
