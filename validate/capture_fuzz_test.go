package validate_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzValidate feeds arbitrary bytes, layout options and a findings cap to
// package validate. It never panics; it returns an error only when the
// options make no layout (and never resolves a layout from such options);
// otherwise its result agrees with itself: exact
// counts per code and severity, kept findings within the cap, sorted by
// offset and inside the file, OK exactly when there is no error, and the
// text and JSON renderings succeed (the JSON parses).
func FuzzValidate(f *testing.F) {
	for _, s := range capturetest.FuzzSeeds() {
		f.Add(s.Data, s.Zeros, s.CubeSlots, s.Planned, s.AIC, s.AIV, int8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, zeros uint32, cubeSlots uint16, planned bool, aic, aiv uint32, maxFindings int8) {
		data, o, ok := capturetest.FuzzInput(data, zeros, cubeSlots, planned, aic, aiv)
		if !ok {
			return
		}
		r, err := validate.CheckBytes(capturetest.FuzzName, data, validate.Options{Layout: o, MaxFindings: int(maxFindings)})
		if err != nil {
			require.Truef(t, capturetest.RequestMakesNoLayout(o), "CheckBytes failed for options that make a layout (%+v): %v", o, err)
			return
		}
		require.Falsef(t, capturetest.RequestMakesNoLayout(o) && r.LayoutOK, "CheckBytes resolved a layout from options that make none: %+v", o)
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
		if s, ok := severity[f.Code]; assert.Truef(t, ok, "finding %v: code %q is not a known code", f.String(), f.Code) {
			assert.Equalf(t, s, f.Severity, "finding %v: code %q's severity", f.String(), f.Code)
		}
		assert.GreaterOrEqualf(t, f.Off, int64(0), "finding %v: offset outside the %d-byte file", f.String(), size)
		assert.LessOrEqualf(t, f.Off, int64(size), "finding %v: offset outside the %d-byte file", f.String(), size)
		assert.GreaterOrEqualf(t, f.Record, -1, "finding %v: record", f.String())
		if f.Record >= 0 {
			assert.NotEmptyf(t, f.Slot, "finding %v: record %d without its slot", f.String(), f.Record)
		}
		if i > 0 {
			assert.GreaterOrEqualf(t, f.Off, r.Findings[i-1].Off, "findings out of offset order: %v after %v", f.String(), r.Findings[i-1].String())
		}
	}
	errs, warns := 0, 0
	for _, c := range r.Counts {
		require.Greaterf(t, c.Count, 0, "count %+v", c)
		require.GreaterOrEqualf(t, c.Kept, 0, "count %+v", c)
		require.LessOrEqualf(t, c.Kept, c.Count, "count %+v", c)
		require.Equalf(t, kept[c.Code], c.Kept, "count %+v", c)
		assert.Equalf(t, (c.Kept < c.Count), c.Truncated(), "count %+v", c)
		assert.Falsef(t, maxFindings > 0 && c.Kept > maxFindings, "code %s keeps %d findings past the cap %d", c.Code, c.Kept, maxFindings)
		assert.Falsef(t, maxFindings < 0 && c.Kept != c.Count, "code %s keeps %d of %d findings without a cap", c.Code, c.Kept, c.Count)
		if c.Severity == capture.Error {
			errs += c.Count
		} else {
			warns += c.Count
		}
		delete(kept, c.Code)
	}
	assert.Empty(t, kept, "findings of codes with no count")
	assert.Equal(t, errs, r.Errors(), "Errors() against the counts")
	assert.Equal(t, warns, r.Warnings(), "Warnings() against the counts")
	assert.Equal(t, errs == 0, r.OK(), "OK() against the counts' errors")
	assert.False(t, r.OK() && r.Records == 0, "OK with no records")
	var text bytes.Buffer
	assert.NoError(t, validate.WriteText(&text, r), "WriteText")
	doc := validate.NewDocument(false, maxFindings)
	doc.Add(r)
	j, err := json.Marshal(doc)
	require.NoError(t, err, "the JSON document")
	assert.True(t, json.Valid(j), "the JSON document")
}
