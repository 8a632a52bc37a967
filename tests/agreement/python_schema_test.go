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
)

// TestPythonLayoutMatchesSchemaAndDWARF: the module's dtypes have the
// schema's item sizes and field offsets and sizes, its struct formats the
// schema's sizes, and its version, fingerprint, constants and enums the
// schema's; and with every C++ compiler on PATH, the struct layout the
// compiler gave the header (read from its DWARF) equals the dtypes'.
func TestPythonLayoutMatchesSchemaAndDWARF(t *testing.T) {
	s, err := schema.LoadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
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
	if err := dec.Decode(&py); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if py.Version != s.Version || py.Fingerprint != s.Fingerprint || py.Hex != s.FingerprintHex() || py.Fingerprint != abi.Fingerprint {
		t.Errorf("Python ABI_VERSION %d FINGERPRINT %#x (%s); schema %d %#x, Go %#x", py.Version, py.Fingerprint, py.Hex, s.Version, s.Fingerprint, uint64(abi.Fingerprint))
	}
	if py.MaxRecords != abi.MaxRecordsPerCore {
		t.Errorf("Python max_records_per_core() = %d, Go %d", py.MaxRecords, abi.MaxRecordsPerCore)
	}
	for _, c := range s.Constants {
		if got, ok := py.Constants[upperSnake(c.Name)]; !ok || got != c.Value {
			t.Errorf("Python %s = %d (present %v), schema %s = %d", upperSnake(c.Name), got, ok, c.Name, c.Value)
		}
	}
	for _, e := range s.Enums {
		var want [][]any
		for _, v := range e.Values {
			want = append(want, []any{v.Name, json.Number(strconv.FormatUint(uint64(v.Value), 10))})
		}
		if fmt.Sprint(py.Enums[e.Name]) != fmt.Sprint(want) {
			t.Errorf("Python enum %s = %v, schema %v", e.Name, py.Enums[e.Name], want)
		}
	}
	pyOffsets := map[string]map[string][2]int64{} // struct -> field -> offset, size
	for _, st := range s.Structs {
		ps, ok := py.Structs[upperSnake(st.Name)]
		if !ok {
			t.Errorf("no dtype for %s", st.Name)
			continue
		}
		if ps.Itemsize != st.Size || ps.Calcsize != st.Size {
			t.Errorf("%s: dtype itemsize %d, struct format %d bytes; schema %d", st.Name, ps.Itemsize, ps.Calcsize, st.Size)
		}
		pyOffsets[st.Name] = map[string][2]int64{}
		if len(ps.Fields) != len(st.Fields) {
			t.Errorf("%s: dtype fields %v, schema has %d", st.Name, ps.Fields, len(st.Fields))
			continue
		}
		for i, f := range st.Fields {
			pf := ps.Fields[i]
			off, _ := pf[1].(json.Number).Int64()
			size, _ := pf[2].(json.Number).Int64()
			order := pf[3].(string)
			pyOffsets[st.Name][f.Name] = [2]int64{off, size}
			if pf[0] != f.Name || off != int64(f.Offset) || size != int64(f.Size) {
				t.Errorf("%s: dtype field %d = %v, schema %s at %d, %d bytes", st.Name, i, pf, f.Name, f.Offset, f.Size)
			}
			if f.Type.Width() > 1 && order != "<" {
				t.Errorf("%s.%s: dtype byte order %q, want little-endian", st.Name, f.Name, order)
			}
		}
	}
	for _, cxx := range cxxtest.Compilers(t) {
		t.Run(cxx.Name, func(t *testing.T) {
			obj := compileDWARFProbe(t, cxx, "c++11", []string{"-gdwarf-4", "-O0"}, genCpp, s)
			dt, err := readDebugTypes(obj)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range s.Structs {
				ds := dt.structs[st.Name]
				if ds == nil {
					t.Errorf("%s: not in the DWARF", st.Name)
					continue
				}
				if int(ds.ByteSize) != py.Structs[upperSnake(st.Name)].Itemsize {
					t.Errorf("%s: %d bytes in the object, dtype itemsize %d", st.Name, ds.ByteSize, py.Structs[upperSnake(st.Name)].Itemsize)
				}
				for _, f := range ds.Field {
					want, ok := pyOffsets[st.Name][f.Name]
					if !ok || f.ByteOffset != want[0] || f.Type.Size() != want[1] {
						t.Errorf("%s.%s: offset %d size %d in the object; dtype %v (present %v)", st.Name, f.Name, f.ByteOffset, f.Type.Size(), want, ok)
					}
				}
				if len(ds.Field) != len(st.Fields) {
					t.Errorf("%s: %d members in the object, %d dtype fields", st.Name, len(ds.Field), len(st.Fields))
				}
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
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.json"), input, 0o644); err != nil {
		t.Fatal(err)
	}
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
	if err := json.Unmarshal(out, &py); err != nil {
		t.Fatalf("%v: %.500s", err, out)
	}
	if len(py.Plain) != len(list) || len(py.Events) != len(recs) {
		t.Fatalf("Python named %d ids and %d records, want %d and %d", len(py.Plain), len(py.Events), len(list), len(recs))
	}
	bad := 0
	for i, id := range list {
		if want := (*kernelnames.Names)(nil).StageName(id); py.Plain[i] != want {
			t.Errorf("desc_name(%#x) = %q, decode %q", id, py.Plain[i], want)
			bad++
		}
		if want := names.StageName(id); py.Named[i] != want {
			t.Errorf("desc_name(%#x, stages) = %q, decode %q", id, py.Named[i], want)
			bad++
		}
		if bad > 10 {
			t.FailNow()
		}
	}
	for i, r := range recs {
		pr := &abi.ProfileRecord{DescID: r.Desc, TaskID: r.Task, StageTaskIndex: r.Index, OwnerID: r.Owner}
		for k, detailed := range []bool{false, true} {
			if want := names.EventName(pr, detailed, "Expert"); py.Events[i][k] != want {
				t.Errorf("event_name(%+v, detailed=%v) = %q, decode %q", r, detailed, py.Events[i][k], want)
			}
		}
	}
}

// replaceOnce replaces exactly one occurrence of old in text.
func replaceOnce(t *testing.T, text, old, new string) string {
	t.Helper()
	if n := strings.Count(text, old); n != 1 {
		t.Fatalf("edit: %q occurs %d times in the schema, want 1", old, n)
	}
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
	if err != nil {
		t.Fatalf("gen/go from the changed schema: %v", err)
	}
	dir := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
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
	if err != nil {
		t.Fatal(err)
	}
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
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the regenerated Go writer: %v\n%s", err, msg)
	}
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
	if err != nil {
		t.Fatalf("the changed schema does not load: %v", err)
	}
	if s.Fingerprint == abi.Fingerprint {
		t.Fatal("the changed schema has the committed fingerprint")
	}
	files, err := pygen.Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	newDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(newDir, pygen.ModuleFile), files[pygen.ModuleFile], 0o644); err != nil {
		t.Fatal(err)
	}

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
	if got.Error != nil || got.Plain != "" {
		t.Fatalf("the regenerated module refuses the changed ABI's capture: %+v %s", got.Error, got.Plain)
	}
	wantColumns := append(append([]string{}, recFields...), "core_type", "block_id")
	if fmt.Sprint(got.Columns) != fmt.Sprint(wantColumns) {
		t.Errorf("records() columns %v, want %v", got.Columns, wantColumns)
	}
	if fmt.Sprint(got.Records) != fmt.Sprint(want) {
		t.Errorf("the regenerated module reads\n%v\nthe writer wrote (in trace order)\n%v", got.Records, want)
	}
	if fmt.Sprint(got.Layout) != "[24 16 32]" || got.Dropped != 2 {
		t.Errorf("layout %v dropped %d, want [24 16 32] and 2", got.Layout, got.Dropped)
	}
	old := runReader(t, genPy, []*pyJob{{label: "changed-ABI capture, old module", data: data}})[0]
	if old.Error == nil && fmt.Sprint(old.Records) == fmt.Sprint(got.Records) {
		t.Error("the committed module reads the changed ABI's capture the same way: the test cannot tell the modules apart")
	}
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
	if string(names) != wantNames {
		t.Errorf("names and sizes in Python:\n%s\nwant\n%s", names, wantNames)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.json"), input, 0o644); err != nil {
		t.Fatal(err)
	}
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
	if err := json.Unmarshal(out, &py); err != nil {
		t.Fatalf("%v: %.500s", err, out)
	}
	if len(py.Families) != len(abi.Families()) {
		t.Fatalf("Python has %d families, Go %d", len(py.Families), len(abi.Families()))
	}
	for _, f := range abi.Families() {
		names := (*kernelnames.Names)(nil).WithFamily(f)
		for i, id := range list {
			if want := names.StageName(id); py.Families[f.String()][i] != want {
				t.Errorf("%s: desc_name(%#x) = %q, decode %q", f, id, py.Families[f.String()][i], want)
			}
			if want := names.StageName(id); py.ByName[f.String()][i] != want {
				t.Errorf("%s by name: desc_name(%#x, family=%q) = %q, decode %q", f, id, strings.ToLower(f.String()), py.ByName[f.String()][i], want)
			}
		}
	}
	if !strings.Contains(py.Unknown, "no such kernel family") || !strings.Contains(py.Unknown, "MegaMoe") {
		t.Errorf("desc_name(family=\"NoSuchFamily\"): %q, want a KeyError listing the families", py.Unknown)
	}
	for i, k := range kernels {
		want := ""
		if f, ok := abi.FamilyForKernel(k); ok {
			want = f.String()
		}
		if py.Kernels[i] != want {
			t.Errorf("family_for_kernel(%q) = %q, Go %q", k, py.Kernels[i], want)
		}
	}
}
