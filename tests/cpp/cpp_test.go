// Package cpp_test builds the committed C++ header, gen/cpp/cycleabi_abi.h,
// with every C++ compiler on PATH and checks it against the Go side: the
// header compiles standalone under strict flags at every standard, under the
// qualifier configurations a device build uses, and a host program built from
// it (testdata/layout_check.cpp) gives the same layout numbers and writes the same
// slot bytes as the Go code.
package cpp_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/cppgen/cxxtest"
	"github.com/megakernel/cycleabi/internal/schema"
)

const genCpp = "../../gen/cpp"

// TestHeaderCompilesStandalone compiles a file that only includes the
// header, with every compiler at every standard.
func TestHeaderCompilesStandalone(t *testing.T) {
	compilers := cxxtest.Compilers(t)
	src := filepath.Join(t.TempDir(), "standalone.cpp")
	if err := os.WriteFile(src, []byte("#include \"cycleabi_abi.h\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cxx := range compilers {
		for _, std := range cxxtest.Standards {
			t.Run(cxx.Name+"/"+std, func(t *testing.T) {
				t.Parallel()
				cxx.Compile(t, std, "-I", genCpp, "-fsyntax-only", src)
			})
		}
	}
}

// TestQualifierMacros compiles testdata/kernel_usage.cpp with the qualifiers a device
// build predefines, played by qualifiers a host compiler has: every pointer
// into the buffer must carry CYCLEABI_GM, or the compile fails.
func TestQualifierMacros(t *testing.T) {
	type config struct {
		name    string
		defines []string
	}
	configs := []config{
		{"default", nil},
		{"volatile", []string{"-DCYCLEABI_GM=volatile", "-DCYCLEABI_FN=static inline"}},
	}
	for _, cxx := range cxxtest.Compilers(t) {
		cs := configs
		if cxx.IsClang() {
			// The closest a host compiler comes to AscendC's __gm__.
			cs = append(cs, config{"address_space", []string{"-DCYCLEABI_GM=__attribute__((address_space(1)))", "-DCYCLEABI_FN=static inline"}})
		}
		for _, c := range cs {
			for _, std := range []string{"c++11", "c++20"} {
				t.Run(cxx.Name+"/"+c.name+"/"+std, func(t *testing.T) {
					t.Parallel()
					args := append(append([]string{"-I", genCpp}, c.defines...), "-fsyntax-only", "testdata/kernel_usage.cpp")
					cxx.Compile(t, std, args...)
				})
			}
		}
	}
}

// buildLayoutCheck compiles layout_check.cpp with cxx.
func buildLayoutCheck(t *testing.T, cxx cxxtest.Compiler) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "layout_check")
	cxx.Compile(t, "c++11", "-I", genCpp, "-o", exe, "testdata/layout_check.cpp")
	return exe
}

func runLayoutCheck(t *testing.T, exe string, args []string) []string {
	t.Helper()
	out, err := exec.Command(exe, args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("layout_check: %v\n%s", err, msg)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// query is one layout_check command and the line the Go side expects.
type query struct {
	args []string
	want string
}

func q(want string, args ...any) query {
	var ss []string
	for _, a := range args {
		ss = append(ss, fmt.Sprint(a))
	}
	return query{args: ss, want: strings.Join(ss, " ") + " = " + want}
}

// TestLayoutMatchesGo runs layout_check, built with every compiler, over
// capacities and cube slot counts around every edge, and compares each
// answer with the Go side's.
func TestLayoutMatchesGo(t *testing.T) {
	g := loadGoSide(t)
	maxRec := g.maxRecords
	align := g.align
	minCube := g.minCube
	aic, aiv := g.coreTypes[0], g.coreTypes[1]

	var qs []query
	for _, c := range []uint64{0, 1, align, 1024, maxRec, maxRec + align, 0xFFFFFFFF} {
		qs = append(qs, q(fmt.Sprint(g.slotStride(c)), "stride", c))
	}
	for _, c := range []uint64{0, 1, align - 1, align, align + 1, maxRec - 1, maxRec, maxRec + align, 1 << 32, 1<<64 - 1} {
		qs = append(qs, q(fmt.Sprint(g.validCapacity(c)), "valid", c))
	}
	for _, r := range []uint64{0, 1, align - 1, align, align + 1, 1000, maxRec - 1, maxRec, maxRec + 1, 1 << 32, 1<<64 - 1} {
		want := "error"
		if c, ok := g.roundUp(r); ok {
			want = fmt.Sprint(c)
		}
		qs = append(qs, q(want, "roundup", r))
	}
	layouts := [][3]uint64{
		{minCube, align, 2 * align},
		{minCube, 0, align},
		{minCube + 6, 3 * align, 0},
		{2 * minCube, maxRec, maxRec},
		{1 << 20, maxRec, maxRec},
		{1<<32 - 1, maxRec, maxRec}, // overflows 64 bits
		{minCube - 1, align, align}, // too few cube slots
		{minCube, align + 1, align}, // unaligned
		{minCube, align, maxRec + align},
		{0, 0, 0},
	}
	for _, l := range layouts {
		want := "error"
		if size, ok := g.bufferSize(l[0], l[1], l[2]); ok {
			want = fmt.Sprint(size)
		}
		qs = append(qs, q(want, "size", l[0], l[1], l[2]))
	}
	for _, l := range layouts[:5] {
		cube := l[0]
		for _, ct := range []uint64{aic, aiv, 0, 3, 0xFFFFFFFF} {
			for _, block := range []uint64{0, 1, cube - 1, cube, 2*cube - 1, 2 * cube, 0xFFFFFFFF} {
				want := "none"
				if off, ok := g.slotOffset(ct, block, cube, l[1], l[2]); ok {
					want = fmt.Sprint(off)
				}
				qs = append(qs, q(want, "slot", ct, block, cube, l[1], l[2]))
			}
		}
	}
	for _, w := range []struct{ ct, block, cube, aicCap, aivCap, n uint64 }{
		{aiv, 5, minCube, align, 2 * align, 0},
		{aiv, 5, minCube, align, 2 * align, 3},
		{aiv, 2*minCube - 1, minCube, align, 2 * align, 2 * align}, // exactly full
		{aiv, 0, minCube, align, 2 * align, 2*align + 5},           // 5 dropped
		{aic, minCube - 1, minCube, align, 2 * align, align + 1},   // last AIC slot, 1 dropped
		{aic, 0, minCube, 0, align, 3},                             // capacity 0: every record dropped
		{aic, minCube, minCube, align, align, 1},                   // no such slot
		{aiv, 1, minCube - 1, align, align, 1},                     // invalid layout
	} {
		qs = append(qs, q(g.write(t, w.ct, w.block, w.cube, w.aicCap, w.aivCap, w.n), "write", w.ct, w.block, w.cube, w.aicCap, w.aivCap, w.n))
	}
	// dropped_count is a u32 on both sides: the drop after 0xFFFFFFFF wraps.
	qs = append(qs, query{args: []string{"wrap"}, want: "wrap = dropped 0 appended 0"})

	var args []string
	for _, qq := range qs {
		args = append(args, qq.args...)
	}
	for _, cxx := range cxxtest.Compilers(t) {
		t.Run(cxx.Name, func(t *testing.T) {
			got := runLayoutCheck(t, buildLayoutCheck(t, cxx), args)
			if len(got) != len(qs) {
				t.Fatalf("layout_check printed %d lines for %d queries:\n%s", len(got), len(qs), strings.Join(got, "\n"))
			}
			for i, qq := range qs {
				if got[i] != qq.want {
					t.Errorf("C++: %s\n   Go: %s", got[i], qq.want)
				}
			}
		})
	}
}

// goSide answers layout questions the Go way.
type goSide struct {
	s                          *schema.Schema
	align, maxRecords, minCube uint64
	hdr, rec                   uint64
	coreTypes                  []uint64 // in region order
}

func loadGoSide(t *testing.T) *goSide {
	t.Helper()
	s, err := schema.LoadFile("../../abi/schema.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lay := s.Layout
	g := &goSide{
		s: s, align: lay.Alignment.Value, maxRecords: lay.MaxRecordsPerCore.Value, minCube: lay.MinCubeSlots.Value,
		hdr: uint64(lay.Header.Size), rec: uint64(lay.Record.Size),
	}
	for _, r := range lay.Regions {
		g.coreTypes = append(g.coreTypes, uint64(r.CoreType.Value))
	}
	if len(g.coreTypes) != 2 {
		t.Fatalf("layout_check's queries assume two regions (AIC, AIV); the schema has %d", len(g.coreTypes))
	}
	return g
}

func (g *goSide) slotStride(c uint64) uint64 { return g.hdr + c*g.rec }

func (g *goSide) validCapacity(c uint64) bool { return c%g.align == 0 && c <= g.maxRecords }

func (g *goSide) roundUp(r uint64) (uint64, bool) {
	if r > g.maxRecords {
		return 0, false
	}
	return (r + g.align - 1) / g.align * g.align, true
}

func (g *goSide) caps(aicCap, aivCap uint64) []uint64 { return []uint64{aicCap, aivCap} }

func (g *goSide) bufferSize(cube, aicCap, aivCap uint64) (uint64, bool) {
	if cube < g.minCube || !g.validCapacity(aicCap) || !g.validCapacity(aivCap) {
		return 0, false
	}
	var total uint64
	for i, r := range g.s.Layout.Regions {
		// slots < 2^38 (at most 64 per cube slot), so only this product can overflow.
		hi, lo := bits.Mul64(uint64(r.SlotsPerCubeSlot)*cube, g.slotStride(g.caps(aicCap, aivCap)[i]))
		sum := total + lo
		if hi != 0 || sum < total {
			return 0, false
		}
		total = sum
	}
	return total, true
}

func (g *goSide) slotOffset(ct, block, cube, aicCap, aivCap uint64) (uint64, bool) {
	var off uint64
	for i, r := range g.s.Layout.Regions {
		stride := g.slotStride(g.caps(aicCap, aivCap)[i])
		slots := uint64(r.SlotsPerCubeSlot) * cube
		if uint64(r.CoreType.Value) == ct {
			return off + block*stride, block < slots
		}
		off += slots * stride
	}
	return 0, false
}

// write is what layout_check's write command must print: the slot as the
// device writer leaves it, over a buffer filled with 0xA5.
func (g *goSide) write(t *testing.T, ct, block, cube, aicCap, aivCap, n uint64) string {
	if _, ok := g.bufferSize(cube, aicCap, aivCap); !ok {
		return "error"
	}
	if _, ok := g.slotOffset(ct, block, cube, aicCap, aivCap); !ok {
		return "none"
	}
	capacity := aicCap
	if ct == g.coreTypes[1] {
		capacity = aivCap
	}
	slot := make([]byte, g.slotStride(capacity))
	for i := range slot {
		slot[i] = 0xA5
	}
	put := func(st *schema.Struct, base uint64, field string, v uint64) {
		f := st.Field(field)
		if f == nil {
			t.Fatalf("%s has no field %s", st.Name, field)
		}
		b := slot[base+uint64(f.Offset):]
		switch f.Size {
		case 4:
			binary.LittleEndian.PutUint32(b, uint32(v))
		case 8:
			binary.LittleEndian.PutUint64(b, v)
		}
	}
	hdr, rec := g.s.Layout.Header, g.s.Layout.Record
	count := min(n, capacity)
	for _, f := range hdr.Fields {
		for i := 0; i < f.Size; i++ {
			slot[f.Offset+i] = 0
		}
	}
	put(hdr, 0, "entry_cycle", 0x1122334455667788+block)
	put(hdr, 0, "record_count", count)
	put(hdr, 0, "dropped_count", n-count)
	put(hdr, 0, "core_type", ct)
	put(hdr, 0, "block_id", block)
	put(hdr, 0, "record_capacity", capacity)
	taskTypeBase := uint64(0)
	for _, ns := range g.s.Descriptors.Namespaces {
		if ns.Name == "TaskType" {
			taskTypeBase = uint64(ns.Base)
		}
	}
	for i := uint64(0); i < count; i++ {
		base := g.hdr + i*g.rec
		start := 1000000007 * (i + 1)
		owner := i
		if i%2 == 1 {
			owner = 0xFFFFFFFF
		}
		put(rec, base, "start_cycle", start)
		put(rec, base, "end_cycle", start+17*i)
		put(rec, base, "desc_id", taskTypeBase+i)
		put(rec, base, "task_id", 7*i)
		put(rec, base, "stage_task_index", i)
		put(rec, base, "owner_id", owner)
	}
	return fmt.Sprintf("appended %d dropped %d count %d outside 0 slot %s", count, n-count, count, hex.EncodeToString(slot))
}
