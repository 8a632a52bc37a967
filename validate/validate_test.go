package validate_test

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func mustParse(t testing.TB, text string) *textCapture {
	t.Helper()
	tc, err := parseCaptureText(text)
	require.NoError(t, err)
	return tc
}

func TestMaxFindings(t *testing.T) {
	text := `
layout cube=24 aic=32 aiv=16
slot AIC/0 entry=1000
fill 20 start=1 step=1 len=0
slot AIV/0 entry=1000
`
	tc := mustParse(t, text)
	for _, c := range []struct {
		max, kept int
	}{{3, 3}, {0, 20}, {-1, 20}, {25, 20}} {
		t.Run(fmt.Sprint(c.max), func(t *testing.T) {
			r, err := validate.CheckBytes("x.bin", tc.bytes, validate.Options{MaxFindings: c.max})
			require.NoError(t, err)
			require.Len(t, r.Counts, 1, "len(r.Counts)")
			cc := r.Counts[0]
			assert.Equal(t, capture.Code(validate.CodeBeforeEntry), cc.Code, "cc.Code")
			assert.Equal(t, 20, cc.Count, "the count is exact whatever the cap: cc.Count")
			assert.Equal(t, c.kept, cc.Kept, "cc.Kept")
			assert.Equal(t, (c.kept < 20), cc.Truncated(), "cc.Truncated()")
			require.Len(t, r.Findings, c.kept, "len(r.Findings)")
			for i, f := range r.Findings {
				assert.Equal(t, i, f.Record, "the lowest offsets are kept, in order: f.Record")
			}
			assert.Equal(t, 20, r.Warnings(), "r.Warnings()")
			assert.True(t, r.OK(), "r.OK() = false, want true")
		})
	}
}

// No cap (MaxFindings negative, the CLI's --max-findings 0) still keeps at
// most MaxKeptFindings per code, the lowest offsets, with exact counts:
// memory stays bounded on a capture with millions of findings.
func TestNoCapIsBounded(t *testing.T) {
	defer validate.SetMaxKeptFindings(5)()
	tc := mustParse(t, `
layout cube=24 aic=32 aiv=16
slot AIC/0 entry=1000
fill 20 start=1 step=1 len=0
slot AIV/0 entry=1000
`)
	for _, max := range []int{-1, 1000} {
		r, err := validate.CheckBytes("x.bin", tc.bytes, validate.Options{MaxFindings: max})
		require.NoError(t, err)
		require.Len(t, r.Counts, 1, "len(r.Counts)")
		assert.Equal(t, 20, r.Counts[0].Count, "the count is exact: r.Counts[0].Count")
		assert.Equal(t, 5, r.Counts[0].Kept, "r.Counts[0].Kept")
		assert.Equal(t, 5, r.MaxFindings, "r.MaxFindings")
		require.Len(t, r.Findings, 5, "len(r.Findings)")
		for i, f := range r.Findings {
			assert.Equal(t, i, f.Record, "the lowest offsets are kept: f.Record")
		}
		assert.Contains(t, r.Summary(), "before-entry 20 (5 shown)", "r.Summary()")
	}
}

// The exact overlap check of an unsorted slot finds overlaps in start
// order, so out of offset order; the cap must still keep the lowest offsets.
func TestCapKeepsLowestOffsetsFoundOutOfOrder(t *testing.T) {
	tc := mustParse(t, `
layout cube=24 aic=16 aiv=16
slot AIC/0 entry=10
slot AIV/0 entry=10
slot AIC/9 entry=10
record start=200 end=300
record start=100 end=150
record start=250 end=260
record start=140 end=160
`)
	r, err := validate.CheckBytes("x.bin", tc.bytes, validate.Options{MaxFindings: 1})
	require.NoError(t, err)
	assert.Equal(t, 2, r.Count(validate.CodeOverlap), "r.Count(validate.CodeOverlap)")
	var kept []int
	for _, f := range r.Findings {
		if f.Code == validate.CodeOverlap {
			kept = append(kept, f.Record)
		}
	}
	assert.Equal(t, []int{2}, kept, "record 2 (found second, at the lower offset) is kept: kept")
}

// overlapsBruteForce is the definition: record i overlaps when a record
// before it in stable start order (smaller start, or equal start and
// lower index) ends after i starts.
func overlapsBruteForce(spans [][2]uint64) []int {
	var out []int
	for i, a := range spans {
		for j, b := range spans {
			if (b[0] < a[0] || b[0] == a[0] && j < i) && b[1] > a[0] {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

func overlapRecords(r *validate.Result) []int {
	var got []int
	for _, f := range r.Findings {
		if f.Code == validate.CodeOverlap {
			got = append(got, f.Record)
		}
	}
	sort.Ints(got)
	return got
}

// propOverlaps: in any slot, sorted or not, validate reports each
// overlapping record exactly once; past the exact limit (runs) it reports
// no record that does not overlap.
func propOverlaps(t *rapid.T) {
	n := rapid.IntRange(1, 48).Draw(t, "records")
	var spans [][2]uint64
	b := capturetest.New(abi.MinCubeSlots, 16, 64)
	b.Enter(abi.CoreTypeAIC, 0, 1).Enter(abi.CoreTypeAIV, 0, 1).Enter(abi.CoreTypeAIV, 7, 1)
	for i := range n {
		start := rapid.Uint64Range(1, 60).Draw(t, fmt.Sprintf("start%d", i))
		end := start + rapid.Uint64Range(0, 15).Draw(t, fmt.Sprintf("len%d", i))
		spans = append(spans, [2]uint64{start, end})
		b.Span(abi.CoreTypeAIV, 7, start, end, abi.RuntimeStageWaitDependency, 0)
	}
	want := overlapsBruteForce(spans)
	r, err := validate.CheckBytes("x.bin", b.Bytes(), validate.Options{MaxFindings: -1})
	require.NoError(t, err)
	got := overlapRecords(r)
	require.Truef(t, slices.Equal(got, want), "overlaps of %v: got records %v, want %v", spans, got, want)
	restore := validate.SetExactOverlapLimit(rapid.IntRange(0, n-1).Draw(t, "limit"))
	defer restore()
	r, err = validate.CheckBytes("x.bin", b.Bytes(), validate.Options{MaxFindings: -1})
	require.NoError(t, err)
	for _, i := range overlapRecords(r) {
		require.Truef(t, slices.Contains(want, i), "runs: record %d of %v reported, it overlaps nothing", i, spans)
	}
}

func TestOverlaps(t *testing.T) { rapid.Check(t, propOverlaps) }

// randomCapture draws a capture written the device's way: slot 0 of every
// region entered (so the capacities can be read), some other cores
// entered, some with records, a few past their capacity (dropped). The AIV
// capacity is at least minAIV*16.
func randomCapture(t *rapid.T, minAIV uint32) *capturetest.Builder {
	cube := rapid.Uint32Range(abi.MinCubeSlots, abi.MinCubeSlots+2).Draw(t, "cube")
	var caps abi.Capacities
	for _, r := range abi.Regions() {
		least := uint32(0)
		if r.CoreType == abi.CoreTypeAIV {
			least = minAIV
		}
		caps.Set(r.CoreType, abi.RecordCapacityAlignment*rapid.Uint32Range(least, 2).Draw(t, strings.ToLower(r.CoreType.String())+"/16"))
	}
	b := capturetest.NewWith(cube, caps)
	for _, r := range abi.Regions() {
		b.Enter(r.CoreType, 0, 1000)
	}
	for i := range rapid.IntRange(1, 6).Draw(t, "cores") {
		s := b.Layout.Slot(rapid.IntRange(0, b.Layout.NumSlots()-1).Draw(t, fmt.Sprintf("slot%d", i)))
		entry := rapid.Uint64Range(1, 5000).Draw(t, fmt.Sprintf("entry%d", i))
		b.Enter(s.CoreType, s.BlockID, entry)
		at := entry
		for j := range rapid.IntRange(0, int(s.Capacity)+3).Draw(t, fmt.Sprintf("records%d", i)) {
			at += rapid.Uint64Range(0, 50).Draw(t, fmt.Sprintf("gap%d.%d", i, j))
			dur := rapid.Uint64Range(0, 50).Draw(t, fmt.Sprintf("dur%d.%d", i, j))
			desc := rapid.SampledFrom([]uint32{abi.RuntimeStageWaitDependency, abi.TaskTypeBase + uint32(abi.TaskTypeMatMul), abi.GraphStageBase + 3}).Draw(t, fmt.Sprintf("desc%d.%d", i, j))
			b.Span(s.CoreType, s.BlockID, at, at+dur, desc, uint32(j))
			at += dur
		}
	}
	return b
}

// corrupt bends a capture at random: pokes anywhere or in header fields,
// truncation, trailing bytes, a .npy wrapper.
func corrupt(t *rapid.T, b *capturetest.Builder) []byte {
	buf := slices.Clone(b.Bytes())
	for i := range rapid.IntRange(0, 4).Draw(t, "faults") {
		switch rapid.IntRange(0, 4).Draw(t, fmt.Sprintf("fault%d", i)) {
		case 0: // a header field of a slot
			s := b.Layout.Slot(rapid.IntRange(0, b.Layout.NumSlots()-1).Draw(t, fmt.Sprintf("slot%d", i)))
			f := rapid.SampledFrom(abi.CoreHeaderFields()).Draw(t, fmt.Sprintf("field%d", i))
			v := rapid.Uint64Range(0, 40).Draw(t, fmt.Sprintf("value%d", i))
			off := s.Offset + uint64(f.Offset)
			if f.Type == "pad" {
				_ = poke(buf, off, "u8", v&0xff)
			} else {
				_ = poke(buf, off, f.Type, v)
			}
		case 1: // any byte
			if len(buf) == 0 {
				continue
			}
			off := rapid.IntRange(0, len(buf)-1).Draw(t, fmt.Sprintf("off%d", i))
			buf[off] = rapid.Byte().Draw(t, fmt.Sprintf("byte%d", i))
		case 2: // a record's end before its start
			if len(buf) < 8 {
				continue
			}
			off := rapid.IntRange(0, len(buf)/8-1).Draw(t, fmt.Sprintf("word%d", i)) * 8
			_ = poke(buf, uint64(off), "u64", rapid.Uint64Range(0, 3000).Draw(t, fmt.Sprintf("cycle%d", i)))
		case 3:
			buf = buf[:rapid.IntRange(0, len(buf)).Draw(t, fmt.Sprintf("len%d", i))]
		case 4:
			buf = append(buf, make([]byte, rapid.IntRange(1, 100).Draw(t, fmt.Sprintf("extra%d", i)))...)
		}
	}
	if rapid.Bool().Draw(t, "npy") {
		buf = capturetest.NPY(buf)
	}
	return buf
}

// randomOptions draws how to validate: from the headers, with host
// capacities, with a plan.
func randomOptions(t *rapid.T, l abi.Layout) validate.Options {
	o := validate.Options{MaxFindings: -1}
	caps := func(name string) *abi.Capacities {
		c := l.Capacities
		if rapid.Bool().Draw(t, name+" differs") {
			c.AIV += abi.RecordCapacityAlignment
		}
		return &c
	}
	switch rapid.IntRange(0, 2).Draw(t, "options") {
	case 1:
		o.Layout.Capacities = caps("host")
		o.Layout.CubeSlots = l.CubeSlots
	case 2:
		o.Layout.Plan = &validate.Plan{Name: "p.yaml", CubeSlots: l.CubeSlots, Capacities: *caps("plan")}
	}
	return o
}

// propAgree: validate reports an error exactly when decode fails, and
// decode's error is one of validate's.
func propAgree(t *rapid.T) {
	b := randomCapture(t, 0)
	buf := corrupt(t, b)
	o := randomOptions(t, b.Layout)
	r, err := validate.CheckBytes("x.bin", buf, o)
	require.NoError(t, err, "validate")
	derr := decodeError(buf, r.Request)
	require.Equalf(t, derr == nil, r.OK(), "validate's OK against decode's error %v; findings:\n%s", derr, findingLines(r))
	if derr == nil {
		return
	}
	var p *capture.Problem
	require.ErrorAsf(t, derr, &p, "decode's error is not a capture.Problem: %v", derr)
	for _, f := range r.Findings {
		if f.Severity == capture.Error && f.Code == p.Code && f.Off == p.Off && f.Slot == p.Slot && f.Record == p.Record {
			return
		}
	}
	require.FailNow(t, fmt.Sprintf("decode's error %v is not among validate's findings:\n%s", derr, findingLines(r)))
}

func TestAgreesWithDecode(t *testing.T) { rapid.Check(t, propAgree) }

// FuzzAgreesWithDecode runs propAgree under go test -fuzz.
func FuzzAgreesWithDecode(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propAgree)) }

// invalidValue draws, for a header field, a value that breaks the ABI in
// slot s of a capture whose layout l is read from the headers (fromHeaders)
// or given; ok is false for fields every value of which is valid.
func invalidValue(t *rapid.T, f abi.FieldInfo, s abi.Slot, fromHeaders bool, current uint64) (v uint64, ok bool) {
	other := func(not uint64) uint64 {
		return rapid.Uint64Range(0, 0xFFFFFFFF).Filter(func(x uint64) bool { return x != not && x != current }).Draw(t, f.Name)
	}
	switch f.Name {
	case "core_type":
		return other(uint64(s.CoreType)), true
	case "block_id":
		return other(uint64(s.BlockID)), true
	case "record_capacity":
		if fromHeaders && s.BlockID == 0 {
			// The region's capacity is read from here: an aligned value
			// makes another (possibly valid) layout; an unaligned one is
			// always an error naming this slot.
			return uint64(s.Capacity) + rapid.Uint64Range(1, abi.RecordCapacityAlignment-1).Draw(t, f.Name), true
		}
		return other(uint64(s.Capacity)), true
	case "reserved":
		return rapid.Uint64Range(1, 0xFFFFFFFF).Draw(t, f.Name), true
	case "record_count":
		return rapid.Uint64Range(uint64(s.Capacity)+1, 0xFFFFFFFF).Draw(t, f.Name), true
	}
	return 0, false
}

// The header fields every value of which is valid somewhere.
var unconstrainedHeaderFields = []string{"entry_cycle", "dropped_count", "padding"}

// Every header field is either mutated by invalidValue or known to take
// any value: a field the schema adds fails here until the test knows it.
func TestMutationCoversEveryHeaderField(t *testing.T) {
	for _, f := range abi.CoreHeaderFields() {
		if slices.Contains(unconstrainedHeaderFields, f.Name) {
			continue
		}
		rapid.Check(t, func(t *rapid.T) {
			s := abi.Slot{CoreType: abi.CoreTypeAIV, BlockID: 3, Capacity: 16}
			_, ok := invalidValue(t, f, s, false, 0)
			require.Truef(t, ok, "header field %s: no invalid value known (add it to invalidValue or unconstrainedHeaderFields)", f.Name)
		})
	}
}

// propMutation: in a valid capture, setting one header field of any slot
// to a value the ABI refuses yields an error naming that slot.
func propMutation(t *rapid.T) {
	b := randomCapture(t, 1)
	b.Enter(abi.CoreTypeAIV, 1, 10).Span(abi.CoreTypeAIV, 1, 20, 30, abi.RuntimeStageWaitDependency, 0)
	fromHeaders := rapid.Bool().Draw(t, "from headers")
	o := validate.Options{MaxFindings: -1}
	if !fromHeaders {
		o.Layout = capture.Request{CubeSlots: b.Layout.CubeSlots, Capacities: &b.Layout.Capacities}
	} else {
		o.Layout.CubeSlots = b.Layout.CubeSlots
	}
	r, err := validate.CheckBytes("x.bin", b.Bytes(), o)
	require.NoError(t, err, "the capture before mutation")
	require.Zerof(t, r.Errors(), "the capture before mutation: errors\n%s", findingLines(r))
	s := b.Layout.Slot(rapid.IntRange(0, b.Layout.NumSlots()-1).Draw(t, "slot"))
	var mutable []abi.FieldInfo
	for _, f := range abi.CoreHeaderFields() {
		if !slices.Contains(unconstrainedHeaderFields, f.Name) {
			mutable = append(mutable, f)
		}
	}
	f := rapid.SampledFrom(mutable).Draw(t, "field")
	buf := slices.Clone(b.Bytes())
	v, _ := invalidValue(t, f, s, fromHeaders, uint64(binary.LittleEndian.Uint32(buf[s.Offset+uint64(f.Offset):])))
	require.NoError(t, poke(buf, s.Offset+uint64(f.Offset), f.Type, v))
	r, err = validate.CheckBytes("x.bin", buf, o)
	require.NoError(t, err)
	for _, f := range r.Findings {
		if f.Severity == capture.Error && f.Slot == s.String() {
			return
		}
	}
	require.FailNow(t, fmt.Sprintf("%s %s=%d: no error names the slot:\n%s", s, f.Name, v, findingLines(r)))
}

func TestMutation(t *testing.T) { rapid.Check(t, propMutation) }

func TestEveryHeaderEnumIsChecked(t *testing.T) {
	for _, f := range append(abi.CoreHeaderFields(), abi.ProfileRecordFields()...) {
		if f.Enum != "" {
			assert.Truef(t, validate.EnumChecked(f.Enum), "field %s of enum %s is not checked: validate.EnumChecked(f.Enum) = false, want true", f.Name, f.Enum)
		}
	}
}

func TestCodes(t *testing.T) {
	seen := map[capture.Code]bool{}
	for _, c := range validate.Codes() {
		assert.Falsef(t, seen[c.Code], "%s listed twice: seen[c.Code] = true, want false", c.Code)
		seen[c.Code] = true
		assert.NotEmpty(t, c.Meaning, "c.Meaning is empty, want something")
	}
	// Every error code capture defines is an error here.
	for _, code := range []capture.Code{capture.CodeBadNPY, capture.CodeTruncated, capture.CodeShortBuffer, capture.CodeBadCapacity,
		capture.CodeSlotIdentity, capture.CodeCapacityMismatch, capture.CodeReservedNonzero, capture.CodeCountOverCapacity,
		capture.CodeNegativeInterval, capture.CodeNoRecords} {
		i := slices.IndexFunc(validate.Codes(), func(c validate.CodeInfo) bool { return c.Code == code })
		if i < 0 {
			assert.Fail(t, fmt.Sprintf("%s is not listed: i = %d, want >= 0", code, i))
		} else {
			assert.Equal(t, capture.Severity(capture.Error), validate.Codes()[i].Severity, "validate.Codes()[i].Severity")
		}
	}
}

// Memory does not grow with the number of records: validating ten times
// the records allocates no more.
func TestAllocationsDoNotGrowWithRecords(t *testing.T) {
	build := func(capacity uint32) []byte {
		b := capturetest.NewWith(abi.MinCubeSlots, abi.SameCapacities(capacity))
		for i := range b.Layout.NumSlots() {
			s := b.Layout.Slot(i)
			b.Enter(s.CoreType, s.BlockID, 1)
			for j := range capacity {
				b.Span(s.CoreType, s.BlockID, 10+uint64(j)*10, 15+uint64(j)*10, abi.RuntimeStageWaitDependency, 0)
			}
		}
		return b.Bytes()
	}
	allocs := func(buf []byte) float64 {
		// The checks are of the last run's result (every run validates the
		// same bytes), outside the runs so that they count no allocation.
		var r *validate.Result
		var err error
		n := testing.AllocsPerRun(3, func() {
			r, err = validate.CheckBytes("x.bin", buf, validate.Options{})
		})
		require.NoError(t, err)
		require.Emptyf(t, r.Counts, "findings %v", r.Findings)
		return n
	}
	small, large := allocs(build(64)), allocs(build(640))
	assert.Truef(t, large <= small, "allocations: %v for 64 records per slot, %v for 640: large = %v, want <= %v", small, large, large, small)
}

func TestCheckFile(t *testing.T) {
	tc := mustParse(t, `
layout cube=24 aic=16 aiv=16
slot AIC/0 entry=1000
record start=1100 end=1200
slot AIV/0 entry=1000
set AIV/0 reserved=1
`)
	dir := t.TempDir()
	path := filepath.Join(dir, "rank0.bin")
	require.NoError(t, os.WriteFile(path, tc.bytes, 0o644))
	r, err := validate.CheckFile(path, validate.Options{})
	require.NoError(t, err)
	inMemory, err := validate.CheckBytes(path, tc.bytes, validate.Options{})
	require.NoError(t, err)
	assert.Equal(t, inMemory, r, "reading through ReadAt finds what reading from memory does: r")
	assert.Equal(t, 1, r.Errors(), "r.Errors()")
	assert.True(t, r.LayoutOK, "r.LayoutOK = false, want true")
	assert.Equal(t, capture.LayoutSource(validate.FromHeaders), r.Resolved.Source, "r.Resolved.Source")
	assert.Equal(t, uint64(1), r.Records, "r.Records")

	_, err = validate.CheckFile(filepath.Join(dir, "missing.bin"), validate.Options{})
	assert.ErrorIsf(t, err, fs.ErrNotExist, "a missing file is an error, not a finding: %v: errors.Is(err, fs.ErrNotExist) = false, want true", err)
}

// An unused AIV/0 states no capacity: the first live AIV header, which
// names its own slot, pins the layout; the plan is not needed.
func TestIdleAIV0IsFound(t *testing.T) {
	tc := mustParse(t, `
layout cube=24 aic=16 aiv=32
slot AIC/0 entry=1000
slot AIV/3 entry=1000
record start=1100 end=1200
`)
	r, err := validate.CheckBytes("x.bin", tc.bytes, validate.Options{})
	require.NoError(t, err)
	assert.Truef(t, r.OK(), "r.OK(); findings:\n%s", findingLines(r))
	assert.Equal(t, (abi.Capacities{AIC: 16, AIV: 32}), r.Layout.Capacities, "r.Layout.Capacities")
	assert.Equal(t, capture.LayoutSource(validate.FromHeaders), r.Resolved.Source, "r.Resolved.Source")
	assert.Equal(t, "AIV/3", r.Resolved.CubeSlotsFrom.Slot, "r.Resolved.CubeSlotsFrom.Slot")
	assert.Contains(t, r.Summary(), "found: 24 cube slots from the AIV/3 header at @0x", "r.Summary()")

	plan := &validate.Plan{Name: "p.yaml", CubeSlots: 24, Capacities: abi.Capacities{AIC: 16, AIV: 32}}
	r, err = validate.CheckBytes("x.bin", tc.bytes, validate.Options{Layout: capture.Request{Plan: plan}})
	require.NoError(t, err)
	assert.Truef(t, r.OK(), "r.OK(); findings:\n%s", findingLines(r))
	assert.Equal(t, plan.Capacities, r.Layout.Capacities, "r.Layout.Capacities")
	assert.Empty(t, r.Findings, "r.Findings")
}

// TestEverySchemaCheckIsChecked: each check the schema declares on a
// header or record field (zero, min_field, max_field, warn_nonzero) is one
// a finding code enforces. A check added to abi/schema.yaml fails here,
// naming the field, until capture's scan or validate's hooks enforce it.
func TestEverySchemaCheckIsChecked(t *testing.T) {
	enforced := map[string]capture.Code{
		"CoreHeader.reserved zero":                          capture.CodeReservedNonzero,
		"CoreHeader.record_count max_field record_capacity": capture.CodeCountOverCapacity,
		"ProfileRecord.end_cycle min_field start_cycle":     capture.CodeNegativeInterval,
	}
	for _, s := range []struct {
		name   string
		fields []abi.FieldInfo
	}{{"CoreHeader", abi.CoreHeaderFields()}, {"ProfileRecord", abi.ProfileRecordFields()}} {
		for _, f := range s.fields {
			var checks []string
			if f.Zero {
				checks = append(checks, "zero")
			}
			if f.MinField != "" {
				checks = append(checks, "min_field "+f.MinField)
			}
			if f.MaxField != "" {
				checks = append(checks, "max_field "+f.MaxField)
			}
			if f.WarnNonzero && s.name == "ProfileRecord" {
				// Header padding is checked field by field from the table
				// (nonzero-padding); record padding is not read at all.
				checks = append(checks, "warn_nonzero")
			}
			for _, c := range checks {
				key := s.name + "." + f.Name + " " + c
				assert.NotEmptyf(t, enforced[key], "the schema declares %s, which no finding code enforces: enforced[key] is empty, want something", key)
			}
		}
	}
}
