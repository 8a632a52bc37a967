package gogen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goTest writes files (as Generate returns them) and extra test files into a
// module of their own and runs go vet and go test on it: the generated code
// must compile, pass vet and behave as the tests say.
func goTest(t *testing.T, files map[string][]byte, tests map[string]string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	write("go.mod", []byte("module example.com/gen\n\ngo 1.26\n"))
	for rel, data := range files {
		write(rel, data)
	}
	// The hand-written half of the package, as committed: it must work over
	// any schema's tables.
	for name, data := range handWritten(t) {
		write(path.Join(PackageDir, name), data)
	}
	for rel, src := range tests {
		write(rel, []byte(src))
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s\n%s", strings.Join(args, " "), out)
	}
}

// smallBehaviour checks that the package generated from testdata/small.yaml
// follows that model, not the real ABI: three regions in a different order
// than their enum, a 32-byte header and 40-byte record, u8 and u16 fields,
// a namespace at base 0 and another alignment and stride limit.
const smallBehaviour = `package abi

import (
	"errors"
	"testing"
)

func TestSmall(t *testing.T) {
	// (0xFFFF - 32) / 40 / 8 * 8
	if MaxRecordsPerCore != 1632 {
		t.Errorf("MaxRecordsPerCore = %d", MaxRecordsPerCore)
	}
	l, err := NewLayout(3, Capacities{Little: 8, NPU: 16, Big: 0})
	if err != nil {
		t.Fatal(err)
	}
	if l.NumSlots() != 21 {
		t.Errorf("NumSlots = %d", l.NumSlots())
	}
	little, npu, big := uint64(32+40*8), uint64(32+40*16), uint64(32)
	if got, want := l.Size(), 12*little+3*npu+6*big; got != want {
		t.Errorf("Size = %d, want %d", got, want)
	}
	if got, want := l.SlotOffset(KindBig, 1), 12*little+3*npu+big; got != want {
		t.Errorf("SlotOffset(Big, 1) = %d, want %d", got, want)
	}
	for i, want := range map[int]string{0: "Little/0", 11: "Little/11", 12: "NPU/0", 15: "Big/0", 20: "Big/5"} {
		if s := l.Slot(i); s.String() != want {
			t.Errorf("Slot(%d) = %s, want %s", i, s, want)
		}
	}
	var ce *CapacityError
	if _, err := NewLayout(3, Capacities{Little: 8, NPU: 12}); !errors.As(err, &ce) || ce.CoreType != KindNPU {
		t.Errorf("NPU capacity 12: %v", err)
	}
	if _, err := NewLayout(1, Capacities{}); err == nil {
		t.Errorf("1 cube slot accepted (MinCubes = 2)")
	}
	for id, want := range map[uint32]string{3: "Wait", 5: "Phase5", 0x100: "Op_Load", 0x105: "Op_storeAll", 0x101: "Op_1", 0x203: "Free_3", 0x300: "Desc_768", 0x10: "Desc_16"} {
		if got := DescName(id); got != want {
			t.Errorf("DescName(%#x) = %q, want %q", id, got, want)
		}
	}
	if ns, idx := LookupDesc(3); ns != NamespacePhase || idx != 3 {
		t.Errorf("LookupDesc(3) = %v, %d", ns, idx)
	}
	if OpStoreAll.String() != "storeAll" || KindNPU.String() != "NPU" || Kind(9).String() != "Kind(9)" {
		t.Errorf("enum names: %s %s %s", OpStoreAll, KindNPU, Kind(9))
	}
	r := Rec{StartCycle: 1, EndCycle: 2, DescID: 3, TaskID: 4, StageTaskIndex: 5, OwnerID: 6, LaneID: 0xAB, Flags: 0xBEEF}
	b := r.Append(nil)
	if len(b) != RecSize || b[RecLaneIDOffset] != 0xAB || b[RecFlagsOffset] != 0xEF || b[RecFlagsOffset+1] != 0xBE {
		t.Errorf("Append = % x", b)
	}
	if got, err := DecodeRec(b); err != nil || got != r {
		t.Errorf("DecodeRec = %+v, %v", got, err)
	}
	if mhz, err := SystemCounterMHz("X200"); err != nil || mhz != 1 {
		t.Errorf("SystemCounterMHz(X200) = %v, %v", mhz, err)
	}
	// The family renames the enum-named namespace (Ops at 0x100) and names
	// ids in the two others; Load (value 0) has no name under it.
	if f, ok := FamilyForKernel("tiny_kernel"); !ok || f != FamilyTiny || f.OwnerLabel() != "Row" {
		t.Errorf("FamilyForKernel(tiny_kernel) = %v, %v", f, ok)
	}
	for id, want := range map[uint32]string{0x105: "Op_Shuffle", 0x107: "Op_Seven", 0x100: "Op_0", 0x1: "Fetch", 0x3: "Wait", 0x203: "Settle", 0x204: "Free_4"} {
		if got := FamilyTiny.DescName(id); got != want {
			t.Errorf("FamilyTiny.DescName(%#x) = %q, want %q", id, got, want)
		}
	}
	if FamilyNone.DescName(0x100) != "Op_Load" || FamilyNone.DescName(0x1) != "Phase1" {
		t.Errorf("FamilyNone names %q %q", FamilyNone.DescName(0x100), FamilyNone.DescName(0x1))
	}
	if st, ok := FamilyTiny.Stage(0x203); !ok || st.Class != StageWait || st.HasTaskType {
		t.Errorf("FamilyTiny.Stage(0x203) = %+v, %v", st, ok)
	}
	if st, _ := FamilyTiny.Stage(0x1); st.TaskType != 7 || !st.HasTaskType {
		t.Errorf("FamilyTiny.Stage(0x1) = %+v", st)
	}
}
`

// TestSmallPackageBuilds compiles, vets and exercises the package generated
// from testdata/small.yaml.
func TestSmallPackageBuilds(t *testing.T) {
	short.Skip(t, "runs the go command")
	s, err := schema.LoadFile("testdata/small.yaml")
	require.NoError(t, err)
	files, err := Generate(s)
	require.NoError(t, err)
	goTest(t, files, map[string]string{"abi/small_test.go": smallBehaviour})
}

// TestFieldTypeChange edits a field's type in a copy of a schema (moving
// what follows so the schema stays valid) and checks that exactly the
// constants of the moved fields change, to the new offsets, that the struct,
// decoder and encoder follow, and that the fingerprint changes.
func TestFieldTypeChange(t *testing.T) {
	real, err := os.ReadFile(filepath.Join("..", "..", "..", "abi", "schema.yaml"))
	require.NoError(t, err)
	small, err := os.ReadFile(filepath.Join("testdata", "small.yaml"))
	require.NoError(t, err)
	cases := []struct {
		name, file string
		data       []byte
		old, new   string
		// removed and added constant lines of constants.go.
		removed, added []string
		// lines the new package must contain.
		contains []string
		build    bool
	}{{
		// The loader pins the types of the header fields the writer uses
		// (block_id must be u32), so the real schema's change is to padding.
		name: "real CoreHeader: the first 8 padding bytes become a u64 field",
		file: realSchema, data: real,
		old: "      - name: padding\n        type: pad\n        offset: 32\n        size: 32\n",
		new: "      - name: stamp\n        type: u64\n        offset: 32\n        doc: A stamp.\n" +
			"      - name: padding\n        type: pad\n        offset: 40\n        size: 24\n",
		removed: []string{"CoreHeaderPaddingOffset = 32"},
		added:   []string{"CoreHeaderStampOffset = 32", "CoreHeaderPaddingOffset = 40"},
		contains: []string{
			"\tStamp uint64\n",
			"\tPadding [24]byte\n",
			"\t\tStamp:          binary.LittleEndian.Uint64(b[CoreHeaderStampOffset:]),\n",
			"\tdst = binary.LittleEndian.AppendUint64(dst, h.Stamp)\n",
			"\t\th.Reserved == 0 &&\n\t\th.Stamp == 0\n",
			`{Name: "stamp", Type: "u64", Offset: CoreHeaderStampOffset, Size: 8, Doc: "A stamp."},`,
			`{Name: "padding", Type: "pad", Offset: CoreHeaderPaddingOffset, Size: 24, WarnNonzero: true,`,
		},
		build: true,
	}, {
		name: "small Rec.flags: u16 becomes u32",
		file: "testdata/small.yaml", data: small,
		old: "      - {name: pad0, type: pad, offset: 33, size: 1, doc: Padding.}\n" +
			"      - {name: flags, type: u16, offset: 34, doc: Flags.}\n" +
			"      - {name: tail, type: pad, offset: 36, size: 4, doc: Padding.}\n",
		new: "      - {name: pad0, type: pad, offset: 33, size: 3, doc: Padding.}\n" +
			"      - {name: flags, type: u32, offset: 36, doc: Flags.}\n",
		removed: []string{"RecFlagsOffset = 34", "RecTailOffset = 36"},
		added:   []string{"RecFlagsOffset = 36"},
		contains: []string{
			"\tFlags uint32\n",
			"\tPad0 [3]byte\n",
			"\t\tFlags:          binary.LittleEndian.Uint32(b[RecFlagsOffset:]),\n",
			"\tdst = binary.LittleEndian.AppendUint32(dst, r.Flags)\n",
			`{Name: "flags", Type: "u32", Offset: RecFlagsOffset, Size: 4, Doc: "Flags."},`,
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Contains(t, string(c.data), c.old, "the schema lacks the text to edit")
			edited := []byte(strings.Replace(string(c.data), c.old, c.new, 1))
			oldFiles, newFiles := mustGenerate(t, c.file, c.data), mustGenerate(t, c.file, edited)
			oldConsts, newConsts := constLines(oldFiles["abi/constants_gen.go"]), constLines(newFiles["abi/constants_gen.go"])
			sameLines(t, "removed constants", minus(oldConsts, newConsts), c.removed, "Fingerprint")
			sameLines(t, "added constants", minus(newConsts, oldConsts), c.added, "Fingerprint")
			all := ""
			for _, p := range sortedKeys(newFiles) {
				all += string(newFiles[p])
			}
			for _, want := range c.contains {
				assert.Contains(t, all, want, "the new package lacks")
			}
			fp := regexp.MustCompile(`Fingerprint uint64 = 0x[0-9A-F]+`)
			a, b := fp.Find(oldFiles["abi/constants_gen.go"]), fp.Find(newFiles["abi/constants_gen.go"])
			require.NotNilf(t, a, "the fingerprint did not change: %s", b)
			assert.NotEqualf(t, string(b), string(a), "the fingerprint did not change: %s", b)
			if c.build && !testing.Short() {
				goTest(t, newFiles, nil)
			}
		})
	}
}

// handDir is the committed generated package, whose hand-written files
// (every .go file but *_gen.go and tests) complete what Generate writes.
var handDir = filepath.Join("..", "..", "..", "gen", "go", PackageDir)

// handWritten returns the hand-written files of the package by name.
func handWritten(t *testing.T) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(handDir)
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_gen.go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(handDir, n))
		require.NoError(t, err)
		out[n] = data
	}
	require.NotEmptyf(t, out, "no hand-written files in %s", handDir)
	return out
}

// TestHandWritten holds the hand-written files to their side of the split:
// no generated-code line (abigen -check and the stale-file sweep must leave
// them alone), every exported name in fixedNames (so a schema name that
// takes one is Generate's error, with its position, not a compile error),
// and no identifier the schema declares (a region, core type, namespace,
// task type or SoC): they work over the generated tables only.
func TestHandWritten(t *testing.T) {
	s := loadReal(t)
	schemaIdents := map[string]bool{}
	for _, e := range s.Enums {
		for _, v := range e.Values {
			schemaIdents[enumValue(e, v)] = true
		}
	}
	for _, ns := range s.Descriptors.Namespaces {
		schemaIdents[nsConst(ns)] = true
		schemaIdents[ns.Name+"Base"] = true
		schemaIdents[ns.Name+"Count"] = true
		for _, n := range ns.Names {
			schemaIdents[descConst(ns, n)] = true
		}
	}
	for _, c := range s.Constants {
		if c.Name != "MaxRecordsPerCore" { // derived by the loader for every schema
			schemaIdents[c.Name] = true
		}
	}
	for _, st := range s.Structs {
		for _, f := range st.Fields {
			schemaIdents[st.Name+goFieldName(f.Name)+"Offset"] = true
		}
		schemaIdents[st.Name+"Size"] = true
	}
	for name, data := range handWritten(t) {
		assert.Falsef(t, strings.HasPrefix(string(data), "// Code generated"), "%s: a hand-written file carries the generated-code line", name)
		f, err := parser.ParseFile(token.NewFileSet(), name, data, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			var names []*ast.Ident
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names = append(names, d.Name)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						names = append(names, sp.Name)
					case *ast.ValueSpec:
						names = append(names, sp.Names...)
					}
				}
			}
			for _, id := range names {
				if id.IsExported() {
					assert.Contains(t, fixedNames, id.Name, "%s: exported %s is missing from gogen's fixedNames", name, id.Name)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				assert.False(t, schemaIdents[id.Name], "%s: names the schema's %s; hand-written code reads the generated tables", name, id.Name)
			}
			return true
		})
	}
}

func mustGenerate(t *testing.T, file string, data []byte) map[string][]byte {
	t.Helper()
	s, err := schema.Load(file, data)
	require.NoError(t, err, "load")
	files, err := Generate(s)
	require.NoError(t, err)
	return files
}

var constLineRE = regexp.MustCompile(`(?m)^\t(\w+(?: \w+)?) = (.+)$`)

// constLines lists the "Name = value" lines of a generated constants file.
func constLines(src []byte) []string {
	var out []string
	for _, m := range constLineRE.FindAllSubmatch(src, -1) {
		out = append(out, string(m[1])+" = "+string(m[2]))
	}
	return out
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

// sameLines compares two sets of lines, ignoring those starting with skip.
func sameLines(t *testing.T, what string, got, want []string, skip string) {
	t.Helper()
	var kept []string
	for _, l := range got {
		if !strings.HasPrefix(l, skip) {
			kept = append(kept, l)
		}
	}
	sort.Strings(kept)
	want = append([]string(nil), want...)
	sort.Strings(want)
	assert.Equalf(t, strings.Join(want, "\n"), strings.Join(kept, "\n"), "%s", what)
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
