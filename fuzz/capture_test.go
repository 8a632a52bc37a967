package fuzz_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
)

// captureName labels the fuzzed capture in errors.
const captureName = "fuzz.bin"

// addCaptureSeeds adds captureSeeds to a target whose arguments are the
// capture and its layout options.
func addCaptureSeeds(f *testing.F) {
	for _, s := range captureSeeds() {
		f.Add(s.data, s.zeros, s.cubeSlots, s.planned, s.aic, s.aiv)
	}
}

// captureInput turns a target's arguments into the capture (data and
// zeros trailing zero bytes) and its layout options (the cube slot count
// reduced to at most maxCubeSlots); ok is false for a capture past
// maxInput.
func captureInput(data []byte, zeros uint32, cubeSlots uint16, planned bool, aic, aiv uint32) (buf []byte, o capture.Request, ok bool) {
	if buf, ok = captureBytes(data, zeros); !ok {
		return nil, o, false
	}
	o.CubeSlots = uint32(cubeSlots) % (maxCubeSlots + 1)
	if planned {
		o.Capacities = &abi.Capacities{AIC: aic, AIV: aiv}
	}
	return buf, o, true
}

// optionsMakeNoLayout reports whether the options alone rule out every
// layout: too few cube slots, or a planned capacity the ABI refuses. Such
// options are a plain error, not a problem of the capture.
func optionsMakeNoLayout(o capture.Request) bool {
	if o.CubeSlots != 0 && o.CubeSlots < abi.MinCubeSlots {
		return true
	}
	return o.Capacities != nil && (abi.CheckCapacity(uint64(o.Capacities.AIC)) != nil || abi.CheckCapacity(uint64(o.Capacities.AIV)) != nil)
}

// checkProblem requires err to be a well-formed *capture.Problem about
// the capture: an error, naming the file, at an offset inside it (the end
// of the file for bytes that are missing), with a slot whenever it names
// a record. It returns the problem.
func checkProblem(t *testing.T, err error, size int) *capture.Problem {
	t.Helper()
	var p *capture.Problem
	if !errors.As(err, &p) {
		t.Fatalf("error is not a *capture.Problem: %T %v", err, err)
	}
	if p.File != captureName {
		t.Errorf("problem names file %q, want %q: %v", p.File, captureName, p)
	}
	if p.Off < 0 || p.Off > int64(size) {
		t.Errorf("problem offset %#x is outside the %d-byte file: %v", p.Off, size, p)
	}
	if p.Severity != capture.Error || p.Code == "" {
		t.Errorf("problem severity %v code %q: %v", p.Severity, p.Code, p)
	}
	if p.Record < -1 || p.Record >= 0 && p.Slot == "" {
		t.Errorf("problem record %d slot %q: %v", p.Record, p.Slot, p)
	}
	if !strings.HasPrefix(p.Error(), captureName+": ") {
		t.Errorf("problem text %q does not start with the file name", p.Error())
	}
	return p
}

// FuzzDecode feeds arbitrary bytes and layout options to package decode.
// Decode never panics. It fails with a plain error only when the options
// make no layout (and always fails then); otherwise its error is a
// *capture.Problem at an offset inside the file. A capture it accepts walks to exactly
// Summary.Records records in trace order, each with end >= start, and its
// trace parses as JSON with one X event per record.
func FuzzDecode(f *testing.F) {
	addCaptureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, zeros uint32, cubeSlots uint16, planned bool, aic, aiv uint32) {
		data, o, ok := captureInput(data, zeros, cubeSlots, planned, aic, aiv)
		if !ok {
			return
		}
		d, err := decodeBytes(data, o)
		if err != nil {
			var p *capture.Problem
			if !errors.As(err, &p) {
				if !optionsMakeNoLayout(o) {
					t.Fatalf("plain error for options that make a layout (%+v): %v", o, err)
				}
				return
			}
			checkProblem(t, err, len(data))
			return
		}
		if optionsMakeNoLayout(o) {
			t.Fatalf("Decode accepted options that make no layout: %+v", o)
		}
		checkDecoded(t, d, len(data))
	})
}

// decodeBytes opens data as a capture and decodes it.
func decodeBytes(data []byte, o capture.Request) (*decode.Decoded, error) {
	c, err := capture.FromBytes(captureName, data)
	if err != nil {
		return nil, err
	}
	return decode.Decode(c, o)
}

// checkDecoded walks a decoded capture and writes its trace.
func checkDecoded(t *testing.T, d *decode.Decoded, size int) {
	t.Helper()
	sum := d.Summary
	if sum.Records == 0 {
		t.Fatalf("Decode accepted a capture without records")
	}
	if sum.Records > uint64(size)/abi.ProfileRecordSize {
		t.Fatalf("%d records in %d bytes", sum.Records, size)
	}
	perSlot := make([]int, len(sum.Active))
	var prev *decode.Record
	n := uint64(0)
	err := d.Records(func(r decode.Record) bool {
		n++
		if r.EndCycle < r.StartCycle {
			t.Fatalf("record %+v ends before it starts", r)
		}
		if r.Active < 0 || r.Active >= len(sum.Active) {
			t.Fatalf("record %+v names active slot %d of %d", r, r.Active, len(sum.Active))
		}
		a := sum.Active[r.Active]
		if a.Slot.CoreType != r.CoreType || a.Slot.BlockID != r.BlockID || a.EntryCycle != r.EntryCycle || r.Index < 0 || r.Index >= a.Count {
			t.Fatalf("record %+v does not belong to active slot %+v", r, a)
		}
		perSlot[r.Active]++
		if prev != nil && !traceOrdered(prev, &r) {
			t.Fatalf("record %+v follows %+v: not trace order", r, *prev)
		}
		p := r
		prev = &p
		return true
	})
	if err != nil {
		t.Fatalf("Records: %v", err)
	}
	if n != sum.Records {
		t.Fatalf("Records yielded %d records, the summary counts %d", n, sum.Records)
	}
	for i, a := range sum.Active {
		if perSlot[i] != a.Count {
			t.Fatalf("%s: %d records yielded, %d counted", a.Slot, perSlot[i], a.Count)
		}
	}
	var out bytes.Buffer
	in := decode.Input{Decoded: d, Config: decode.Config{FrequencyMHz: 50, KernelName: "Fuzz", OwnerLabel: "Owner"}}
	if err := decode.WriteTrace(&out, []decode.Input{in}, decode.WriteOptions{Parallel: 1}); err != nil {
		t.Fatalf("WriteTrace: %v", err)
	}
	if x := countX(t, out.Bytes()); uint64(x) != sum.Records {
		t.Fatalf("the trace has %d X events for %d records", x, sum.Records)
	}
}

// traceOrdered reports whether b may follow a in trace order: by
// (start_cycle, core_type, block_id), ties in slot and record order.
func traceOrdered(a, b *decode.Record) bool {
	if a.StartCycle != b.StartCycle {
		return a.StartCycle < b.StartCycle
	}
	if a.CoreType != b.CoreType {
		return a.CoreType < b.CoreType
	}
	if a.BlockID != b.BlockID {
		return a.BlockID < b.BlockID
	}
	return a.Index < b.Index
}

// countX parses a trace and counts its X events.
func countX(t *testing.T, trace []byte) int {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Ph string `json:"ph"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(trace, &doc); err != nil {
		t.Fatalf("the trace is not JSON: %v\n%.2000s", err, trace)
	}
	n := 0
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			n++
		}
	}
	return n
}

// FuzzValidate feeds arbitrary bytes, layout options and a findings cap to
// package validate. It never panics; it returns an error only when the
// options make no layout (and never resolves a layout from such options);
// otherwise its result agrees with itself: exact
// counts per code and severity, kept findings within the cap, sorted by
// offset and inside the file, OK exactly when there is no error, and the
// text and JSON renderings succeed (the JSON parses).
func FuzzValidate(f *testing.F) {
	for _, s := range captureSeeds() {
		f.Add(s.data, s.zeros, s.cubeSlots, s.planned, s.aic, s.aiv, int8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, zeros uint32, cubeSlots uint16, planned bool, aic, aiv uint32, maxFindings int8) {
		data, o, ok := captureInput(data, zeros, cubeSlots, planned, aic, aiv)
		if !ok {
			return
		}
		r, err := validate.CheckBytes(captureName, data, validate.Options{Layout: o, MaxFindings: int(maxFindings)})
		if err != nil {
			if !optionsMakeNoLayout(o) {
				t.Fatalf("CheckBytes failed for options that make a layout (%+v): %v", o, err)
			}
			return
		}
		if optionsMakeNoLayout(o) && r.LayoutOK {
			t.Fatalf("CheckBytes resolved a layout from options that make none: %+v", o)
		}
		checkResult(t, r, len(data), int(maxFindings))
	})
}

// checkResult checks that a validate result agrees with itself.
func checkResult(t *testing.T, r *validate.Result, size, maxFindings int) {
	t.Helper()
	severity := map[capture.Code]capture.Severity{}
	for _, c := range validate.Codes() {
		severity[c.Code] = c.Severity
	}
	kept := map[capture.Code]int{}
	for i, f := range r.Findings {
		kept[f.Code]++
		if s, ok := severity[f.Code]; !ok || s != f.Severity {
			t.Errorf("finding %v: code %q is not a %v code", f.String(), f.Code, f.Severity)
		}
		if f.Off < 0 || f.Off > int64(size) {
			t.Errorf("finding %v: offset %#x outside the %d-byte file", f.String(), f.Off, size)
		}
		if f.Record < -1 || f.Record >= 0 && f.Slot == "" {
			t.Errorf("finding %v: record %d slot %q", f.String(), f.Record, f.Slot)
		}
		if i > 0 && f.Off < r.Findings[i-1].Off {
			t.Errorf("findings out of offset order: %v after %v", f.String(), r.Findings[i-1].String())
		}
	}
	errs, warns := 0, 0
	for _, c := range r.Counts {
		if c.Count <= 0 || c.Kept < 0 || c.Kept > c.Count || c.Kept != kept[c.Code] || c.Truncated() != (c.Kept < c.Count) {
			t.Errorf("count %+v, %d kept findings", c, kept[c.Code])
		}
		if maxFindings > 0 && c.Kept > maxFindings {
			t.Errorf("code %s keeps %d findings past the cap %d", c.Code, c.Kept, maxFindings)
		}
		if maxFindings < 0 && c.Kept != c.Count {
			t.Errorf("code %s keeps %d of %d findings without a cap", c.Code, c.Kept, c.Count)
		}
		if c.Severity == capture.Error {
			errs += c.Count
		} else {
			warns += c.Count
		}
		delete(kept, c.Code)
	}
	if len(kept) > 0 {
		t.Errorf("findings of codes with no count: %v", kept)
	}
	if errs != r.Errors() || warns != r.Warnings() || r.OK() != (errs == 0) {
		t.Errorf("Errors()=%d Warnings()=%d OK()=%v, counts say %d errors %d warnings", r.Errors(), r.Warnings(), r.OK(), errs, warns)
	}
	if r.OK() && r.Records == 0 {
		t.Errorf("OK with no records")
	}
	var text bytes.Buffer
	if err := validate.WriteText(&text, r); err != nil {
		t.Errorf("WriteText: %v", err)
	}
	doc := validate.NewDocument(false, maxFindings)
	doc.Add(r)
	j, err := json.Marshal(doc)
	if err != nil || !json.Valid(j) {
		t.Errorf("the JSON document: %v", err)
	}
}

// FuzzAgreement holds decode and validate to each other on arbitrary
// bytes and options: validate reports no error exactly when decode
// succeeds; decode's error is a problem inside the file and is among
// validate's findings (same code, offset, slot and record); when both
// accept, they count the same layout, records and drops.
func FuzzAgreement(f *testing.F) {
	addCaptureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, zeros uint32, cubeSlots uint16, planned bool, aic, aiv uint32) {
		data, o, ok := captureInput(data, zeros, cubeSlots, planned, aic, aiv)
		if !ok {
			return
		}
		r, verr := validate.CheckBytes(captureName, data, validate.Options{Layout: o, MaxFindings: -1})
		d, derr := decodeBytes(data, o)
		if verr != nil {
			if derr == nil {
				t.Fatalf("validate refused options (%v) that decode accepted", verr)
			}
			return
		}
		if derr != nil && !errors.As(derr, new(*capture.Problem)) {
			t.Fatalf("decode refused options (%v) that validate accepted", derr)
		}
		if r.OK() != (derr == nil) {
			t.Fatalf("validate OK=%v, decode error %v; findings:\n%s", r.OK(), derr, findingLines(r))
		}
		if derr != nil {
			p := checkProblem(t, derr, len(data))
			for _, f := range r.Findings {
				if f.Severity == capture.Error && f.Code == p.Code && f.Off == p.Off && f.Slot == p.Slot && f.Record == p.Record {
					return
				}
			}
			t.Fatalf("decode's error %v is not among validate's findings:\n%s", derr, findingLines(r))
		}
		if r.Layout != d.Summary.Layout || r.Records != d.Summary.Records || r.Dropped != d.Summary.Dropped {
			t.Fatalf("validate: layout %+v, %d records, %d dropped; decode: layout %+v, %d records, %d dropped",
				r.Layout, r.Records, r.Dropped, d.Summary.Layout, d.Summary.Records, d.Summary.Dropped)
		}
	})
}

func findingLines(r *validate.Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintln(&b, f.String())
	}
	return b.String()
}
