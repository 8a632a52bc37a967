package cppgen

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeHeader puts header into a fresh directory as HeaderFile and returns
// the directory, for -I.
func writeHeader(t *testing.T, header string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, HeaderFile), []byte(header), 0o644))
	return dir
}

func writeSource(t *testing.T, dir, name, src string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

// slotOffset is the test's own reading of the layout: regions in order,
// each SlotsPerCubeSlot*cubeSlots slots of header + capacity*record bytes.
// caps holds one capacity per region, in region order. ok is false when the
// core type has no region or blockID is outside it.
func slotOffset(lay *schema.Layout, coreType string, blockID, cubeSlots uint64, caps []uint64) (off uint64, ok bool) {
	for i, r := range lay.Regions {
		stride := uint64(lay.Header.Size) + caps[i]*uint64(lay.Record.Size)
		slots := uint64(r.SlotsPerCubeSlot) * cubeSlots
		if r.CoreType.Name == coreType {
			return off + blockID*stride, blockID < slots
		}
		off += slots * stride
	}
	return 0, false
}

// layoutAsserts renders static_asserts that pin the constexpr layout helpers
// of the header for s to slotOffset's numbers, at every region's first and
// last slot and just past it, for a few capacity sets.
func layoutAsserts(s *schema.Schema) string {
	lay := s.Layout
	ct := lay.CoreTypes.Name
	align := lay.Alignment.Value
	var b strings.Builder
	cube := lay.MinCubeSlots.Value + 1
	for _, mult := range []uint64{0, 1, 3} {
		var caps []uint64
		var args []string
		for i := range lay.Regions {
			c := align * (mult + uint64(i)) // different capacity per region
			caps = append(caps, c)
			args = append(args, fmt.Sprint(c))
		}
		capArgs := strings.Join(args, ", ")
		for _, r := range lay.Regions {
			slots := uint64(r.SlotsPerCubeSlot) * cube
			for _, block := range []uint64{0, 1, slots - 1, slots} {
				want := "kNoSlot"
				if off, ok := slotOffset(lay, r.CoreType.Name, block, cube, caps); ok {
					want = fmt.Sprintf("%dull", off)
				}
				fmt.Fprintf(&b, "static_assert(SlotOffset(%s::%s, %d, %d, %s) == %s, \"SlotOffset %s/%d caps %s\");\n",
					ct, r.CoreType.Name, block, cube, capArgs, want, r.CoreType.Name, block, capArgs)
			}
		}
	}
	fmt.Fprintf(&b, "static_assert(SlotOffset(static_cast<%s>(0xFFFF), 0, %d, %s) == kNoSlot, \"no region\");\n",
		ct, cube, strings.Repeat("0, ", len(lay.Regions)-1)+"0")
	return b.String()
}

// recorderInstances instantiates BasicRecorder, every member, for each
// core type of s: a class template's members are compiled only when used.
func recorderInstances(s *schema.Schema) string {
	var b strings.Builder
	for _, r := range s.Layout.Regions {
		fmt.Fprintf(&b, "template class BasicRecorder<%s::%s, %s>;\n", s.Layout.CoreTypes.Name, r.CoreType.Name, constName(s.Layout.MinCubeSlots.Name))
	}
	return b.String()
}

// TestHeadersCompile compiles the in-memory headers of the real and the
// small schema (a file that includes only the header, which must stand
// alone; TestGeneratedHeaderIsCurrent makes the real one gen/cpp's) with
// every compiler on PATH at every standard, together with static_asserts on the constexpr layout helpers computed here from the
// model: the helpers follow the schema's regions, whatever their order. The
// Recorder is instantiated for every core type.
func TestHeadersCompile(t *testing.T) {
	compilers := cxxtest.Compilers(t)
	_, real := loadReal(t)
	cases := []struct {
		name, file string
		data       []byte
	}{
		{"real", realSchemaName, real},
		{"small", "testdata/small.yaml", readTestdata(t, "small.yaml")},
	}
	for _, c := range cases {
		s, err := schema.Load(c.file, c.data)
		require.NoError(t, err)
		dir := writeHeader(t, mustHeader(t, c.file, c.data))
		src := writeSource(t, dir, "layout_asserts.cpp", "#include \""+HeaderFile+"\"\n\nnamespace cycleabi {\n"+layoutAsserts(s)+recorderInstances(s)+"}  // namespace cycleabi\n")
		for _, cxx := range compilers {
			for _, std := range cxxtest.Standards {
				t.Run(c.name+"/"+cxx.Name+"/"+std, func(t *testing.T) {
					t.Parallel()
					cxx.Compile(t, std, "-I", dir, "-fsyntax-only", src)
				})
			}
		}
	}
}

var staticAssertRE = regexp.MustCompile(`(?m)^static_assert\(.*\);$`)

// assertLines is the set of one-line static_asserts in header.
func assertLines(header string) map[string]bool {
	set := map[string]bool{}
	for _, l := range staticAssertRE.FindAllString(header, -1) {
		set[l] = true
	}
	return set
}

func minus(a, b map[string]bool) []string {
	var out []string
	for l := range a {
		if !b[l] {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// TestFieldTypeChange edits a field's type in a copy of a schema (moving
// what follows so the schema stays valid) and checks that exactly the
// static_asserts of the moved fields change, to the new numbers; that the
// new header compiles; and that the old asserts reject the new structs.
func TestFieldTypeChange(t *testing.T) {
	_, real := loadReal(t)
	small := readTestdata(t, "small.yaml")
	cases := []struct {
		name, file string
		data       []byte
		old, new   string
		// removed and added static_asserts, as "offsetof(S, f) == n" or
		// "sizeof(S::f) == n".
		removed, added []string
		// lines the new header must contain.
		contains []string
	}{{
		name: "real CoreHeader: the first 8 padding bytes become a u64 field",
		file: realSchemaName, data: real,
		old: "      - name: padding\n        type: pad\n        offset: 32\n        size: 32\n",
		new: "      - name: stamp\n        type: u64\n        offset: 32\n        doc: A stamp.\n" +
			"      - name: padding\n        type: pad\n        offset: 40\n        size: 24\n",
		removed:  []string{"offsetof(CoreHeader, padding) == 32", "sizeof(CoreHeader::padding) == 32"},
		added:    []string{"offsetof(CoreHeader, stamp) == 32", "sizeof(CoreHeader::stamp) == 8", "offsetof(CoreHeader, padding) == 40", "sizeof(CoreHeader::padding) == 24"},
		contains: []string{"  uint64_t stamp;", "  uint8_t padding[24];", "constexpr uint32_t kCoreHeaderPaddingOffset = 40;", "  header->stamp = 0;"},
	}, {
		name: "small Rec.flags: u16 becomes u32",
		file: "testdata/small.yaml", data: small,
		old: "      - {name: pad0, type: pad, offset: 33, size: 1, doc: Padding.}\n" +
			"      - {name: flags, type: u16, offset: 34, doc: Flags.}\n" +
			"      - {name: tail, type: pad, offset: 36, size: 4, doc: Padding.}\n",
		new: "      - {name: pad0, type: pad, offset: 33, size: 3, doc: Padding.}\n" +
			"      - {name: flags, type: u32, offset: 36, doc: Flags.}\n",
		removed:  []string{"offsetof(Rec, flags) == 34", "sizeof(Rec::flags) == 2", "sizeof(Rec::pad0) == 1", "offsetof(Rec, tail) == 36", "sizeof(Rec::tail) == 4"},
		added:    []string{"offsetof(Rec, flags) == 36", "sizeof(Rec::flags) == 4", "sizeof(Rec::pad0) == 3"},
		contains: []string{"  uint32_t flags;", "constexpr uint32_t kRecFlagsOffset = 36;", "uint32_t flags) {"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oldHeader := mustHeader(t, c.file, c.data)
			newHeader := mustHeader(t, c.file, edit(t, c.data, c.old, c.new))
			oldAsserts, newAsserts := assertLines(oldHeader), assertLines(newHeader)
			removed, added := minus(oldAsserts, newAsserts), minus(newAsserts, oldAsserts)
			checkAsserts(t, "removed", removed, c.removed)
			checkAsserts(t, "added", added, c.added)
			for _, want := range c.contains {
				assert.Containsf(t, newHeader, want+"\n", "new header lacks the line %q", want)
			}
			fp := regexp.MustCompile(`kFingerprint = .*;`)
			assert.NotEqual(t, fp.FindString(newHeader), fp.FindString(oldHeader), "kFingerprint did not change")

			compilers := cxxtest.Compilers(t)
			dir := writeHeader(t, newHeader)
			src := writeSource(t, dir, "new.cpp", "#include \""+HeaderFile+"\"\n")
			compilers[0].Compile(t, "c++11", "-I", dir, "-fsyntax-only", src)
			// The old asserts on the new structs: each must fail.
			stale := writeSource(t, dir, "stale.cpp", "#include \""+HeaderFile+"\"\nnamespace cycleabi {\n"+strings.Join(removed, "\n")+"\n}\n")
			out, err := compilers[0].Try("c++11", "-I", dir, "-fsyntax-only", stale)
			require.Error(t, err, "the old static_asserts compiled against the new header")
			for _, l := range removed {
				msg := regexp.MustCompile(`"(.*)"`).FindStringSubmatch(l)[1]
				if strings.Contains(l, "offsetof(Rec, tail)") || strings.Contains(l, "sizeof(Rec::tail)") {
					// The field is gone: the compiler reports the name, not the assert.
					msg = "tail"
				}
				assert.Containsf(t, out, msg, "compiling the old assert %s did not report", l)
			}
		})
	}
}

// checkAsserts compares static_assert lines with their expected conditions.
func checkAsserts(t *testing.T, what string, got, want []string) {
	t.Helper()
	var conds []string
	for _, l := range got {
		conds = append(conds, strings.TrimPrefix(l[:strings.Index(l, ", \"")], "static_assert("))
	}
	sort.Strings(conds)
	want = append([]string(nil), want...)
	sort.Strings(want)
	assert.Equalf(t, strings.Join(want, "\n"), strings.Join(conds, "\n"), "%s static_asserts", what)
}
