// Package cpp_test builds the committed C++ header, gen/cpp/cycleabi_abi.h,
// with every C++ compiler on PATH and checks it against the Go side: the
// header compiles standalone under strict flags at every standard, under the
// qualifier configurations a device build uses, and a host program built from
// it (testdata/layout_check.cpp) gives the same layout numbers and writes the same
// slot bytes as the Go code. Another (testdata/recorder_check.cpp, run by
// recorder_test.go) watches the device writers through their hooks: the
// publish order, full slots and the traps.
package cpp_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const genCpp = "../../gen/cpp"

// buildDir holds the layout_check executables, built once per compiler.
var (
	buildDir   string
	buildMu    sync.Mutex
	buildCache = map[string]string{}
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cycleabi-cpp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildLayoutCheck compiles testdata/layout_check.cpp with cxx, once.
func buildLayoutCheck(t *testing.T, cxx cxxtest.Compiler) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if exe, ok := buildCache[cxx.Path]; ok {
		return exe
	}
	exe := filepath.Join(buildDir, "layout_check-"+cxx.Name)
	cxx.Compile(t, "c++11", "-I", genCpp, "-o", exe, "testdata/layout_check.cpp")
	buildCache[cxx.Path] = exe
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
		require.FailNow(t, fmt.Sprintf("layout_check: %v\n%s", err, msg))
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
// answer with gen/go/abi's: strides, capacity checks and round-ups, buffer
// sizes and their refusals, slot offsets, and the bytes of a slot written by
// the C++ writer against the same slot written by abi.InitSlot and
// abi.WriteRecord.
func TestLayoutMatchesGo(t *testing.T) {
	const (
		maxRec  = abi.MaxRecordsPerCore
		align   = abi.RecordCapacityAlignment
		minCube = abi.MinCubeSlots
	)
	aic, aiv := uint64(abi.CoreTypeAIC), uint64(abi.CoreTypeAIV)

	var qs []query
	for _, c := range []uint64{0, 1, align, 1024, maxRec, maxRec + align, 0xFFFFFFFF} {
		qs = append(qs, q(fmt.Sprint(abi.SlotStride(uint32(c))), "stride", c))
	}
	for _, c := range []uint64{0, 1, align - 1, align, align + 1, maxRec - 1, maxRec, maxRec + align, 1 << 32, 1<<64 - 1} {
		qs = append(qs, q(fmt.Sprint(abi.CheckCapacity(c) == nil), "valid", c))
	}
	for _, r := range []uint64{0, 1, align - 1, align, align + 1, 1000, maxRec - 1, maxRec, maxRec + 1, 1 << 32, 1<<64 - 1} {
		want := "error"
		if c, err := abi.RoundUpCapacity(r); err == nil {
			want = fmt.Sprint(c)
		}
		qs = append(qs, q(want, "roundup", r))
	}
	layouts := []struct{ cube, aic, aiv uint32 }{
		{minCube, align, 2 * align},
		{minCube, 0, align},
		{minCube + 6, 3 * align, 0},
		{2 * minCube, maxRec, maxRec},
		{1 << 20, maxRec, maxRec},
		{1<<31 - 1, 0, 0},           // 2^32-2 AIV slots: block ids still fit
		{1 << 31, 0, 0},             // 2^32 AIV slots: more than u32 block ids number
		{1<<32 - 1, maxRec, maxRec}, // overflows 64 bits
		{minCube - 1, align, align}, // too few cube slots
		{minCube, align + 1, align}, // unaligned
		{minCube, align, maxRec + align},
		{0, 0, 0},
	}
	for _, l := range layouts {
		want := "error"
		if size, err := abi.BufferSize(l.cube, abi.Capacities{AIC: l.aic, AIV: l.aiv}); err == nil {
			want = fmt.Sprint(size)
		}
		qs = append(qs, q(want, "size", l.cube, l.aic, l.aiv))
	}
	for _, l := range layouts[:6] {
		lay, err := abi.NewLayout(l.cube, abi.Capacities{AIC: l.aic, AIV: l.aiv})
		require.NoError(t, err)
		cube := uint64(l.cube)
		for _, ct := range []uint64{aic, aiv, 0, 3, 0xFFFFFFFF} {
			for _, block := range []uint64{0, 1, cube - 1, cube, 2*cube - 1, 2 * cube, 0xFFFFFFFF} {
				if block > 0xFFFFFFFF {
					continue
				}
				want := "none"
				if t, b := abi.CoreType(ct), uint32(block); b < lay.SlotCount(t) {
					want = fmt.Sprint(lay.SlotOffset(t, b))
				}
				qs = append(qs, q(want, "slot", ct, block, cube, l.aic, l.aiv))
			}
		}
	}
	for _, w := range []struct{ ct, block, cube, aicCap, aivCap, n uint32 }{
		{uint32(abi.CoreTypeAIV), 5, minCube, align, 2 * align, 0},
		{uint32(abi.CoreTypeAIV), 5, minCube, align, 2 * align, 3},
		{uint32(abi.CoreTypeAIV), 2*minCube - 1, minCube, align, 2 * align, 2 * align}, // exactly full
		{uint32(abi.CoreTypeAIV), 0, minCube, align, 2 * align, 2*align + 5},           // 5 dropped
		{uint32(abi.CoreTypeAIC), minCube - 1, minCube, align, 2 * align, align + 1},   // last AIC slot, 1 dropped
		{uint32(abi.CoreTypeAIC), 0, minCube, 0, align, 3},                             // capacity 0: every record dropped
		{uint32(abi.CoreTypeAIC), minCube, minCube, align, align, 1},                   // no such slot
		{uint32(abi.CoreTypeAIV), 1, minCube - 1, align, align, 1},                     // invalid layout
	} {
		qs = append(qs, q(goWrite(t, w.ct, w.block, w.cube, w.aicCap, w.aivCap, w.n), "write", w.ct, w.block, w.cube, w.aicCap, w.aivCap, w.n))
	}
	// dropped_count is a u32 on both sides: the drop after 0xFFFFFFFF wraps.
	qs = append(qs, query{args: []string{"wrap"}, want: "wrap = " + goWrap(t)})

	var args []string
	for _, qq := range qs {
		args = append(args, qq.args...)
	}
	for _, cxx := range cxxtest.Compilers(t) {
		t.Run(cxx.Name, func(t *testing.T) {
			got := runLayoutCheck(t, buildLayoutCheck(t, cxx), args)
			require.Equalf(t, len(qs), len(got), "layout_check's lines for the queries:\n%s", strings.Join(got, "\n"))

			for i, qq := range qs {
				assert.Equal(t, qq.want, got[i], "C++")
			}
		})
	}
}

// recordFor is the i-th record layout_check's write command appends
// (AppendFor in testdata/layout_check.cpp).
func recordFor(i uint32) abi.ProfileRecord {
	start := 1000000007 * uint64(i+1)
	owner := i
	if i%2 == 1 {
		owner = abi.InvalidOwnerID
	}
	return abi.ProfileRecord{
		StartCycle: start, EndCycle: start + 17*uint64(i),
		DescID: abi.TaskTypeBase + i, TaskID: 7 * i, StageTaskIndex: i, OwnerID: owner,
	}
}

// goWrite is what layout_check's write command must print: the slot of core
// (ct, block) after abi.InitSlot and n abi.WriteRecord calls, over a buffer
// filled with 0xA5.
func goWrite(t *testing.T, ct, block, cube, aicCap, aivCap, n uint32) string {
	t.Helper()
	lay, err := abi.NewLayout(cube, abi.Capacities{AIC: aicCap, AIV: aivCap})
	if err != nil {
		return "error"
	}
	typ := abi.CoreType(ct)
	if block >= lay.SlotCount(typ) {
		return "none"
	}
	capacity := lay.Capacities.For(typ)
	slot := bytes.Repeat([]byte{0xA5}, int(abi.SlotStride(capacity)))
	require.NoError(t, abi.InitSlot(slot, 0x1122334455667788+uint64(block), typ, block, capacity))
	appended := 0
	for i := uint32(0); i < n; i++ {
		r := recordFor(i)
		written, err := abi.WriteRecord(slot, &r)
		require.NoError(t, err)
		if written {
			appended++
		}
	}
	h, err := abi.DecodeCoreHeader(slot)
	require.NoError(t, err)
	return fmt.Sprintf("appended %d dropped %d count %d outside 0 slot %s", appended, h.DroppedCount, h.RecordCount, hex.EncodeToString(slot))
}

// goWrap is what layout_check's wrap command must print: one record written
// to a full slot whose dropped_count is 0xFFFFFFFF.
func goWrap(t *testing.T) string {
	t.Helper()
	slot := bytes.Repeat([]byte{0xA5}, int(abi.SlotStride(0)))
	require.NoError(t, abi.InitSlot(slot, 1, abi.CoreTypeAIC, 0, 0))
	binary.LittleEndian.PutUint32(slot[abi.CoreHeaderDroppedCountOffset:], 0xFFFFFFFF)
	r := recordFor(0)
	written, err := abi.WriteRecord(slot, &r)
	require.NoError(t, err)
	h, err := abi.DecodeCoreHeader(slot)
	require.NoError(t, err)
	appended := 0
	if written {
		appended = 1
	}
	return fmt.Sprintf("dropped %d appended %d", h.DroppedCount, appended)
}
