package fuzz_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/require"
)

// FuzzAgreement holds decode and validate to each other on arbitrary
// bytes and options: validate reports no error exactly when decode
// succeeds; decode's error is a problem inside the file and is among
// validate's findings (same code, offset, slot and record); when both
// accept, they count the same layout, records and drops.
func FuzzAgreement(f *testing.F) {
	capturetest.AddFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, zeros uint32, cubeSlots uint16, planned bool, aic, aiv uint32) {
		data, o, ok := capturetest.FuzzInput(data, zeros, cubeSlots, planned, aic, aiv)
		if !ok {
			return
		}
		r, verr := validate.CheckBytes(capturetest.FuzzName, data, validate.Options{Layout: o, MaxFindings: -1})
		var d *decode.Decoded
		c, derr := capture.FromBytes(capturetest.FuzzName, data)
		if derr == nil {
			d, derr = decode.Decode(c, o)
		}
		if verr != nil {
			require.Errorf(t, derr, "validate refused options (%v) that decode accepted", verr)
			return
		}
		require.Falsef(t, derr != nil && !errors.As(derr, new(*capture.Problem)), "decode refused options (%v) that validate accepted", derr)
		require.Equalf(t, derr == nil, r.OK(), "validate OK against decode error %v; findings:\n%s", derr, findingLines(r))
		if derr != nil {
			p := capturetest.CheckProblem(t, derr, len(data))
			for _, f := range r.Findings {
				if f.Severity == capture.Error && f.Code == p.Code && f.Off == p.Off && f.Slot == p.Slot && f.Record == p.Record {
					return
				}
			}
			require.FailNow(t, fmt.Sprintf("decode's error %v is not among validate's findings:\n%s", derr, findingLines(r)))
		}
		require.Equal(t, d.Summary.Layout, r.Layout, "layout: decode, validate")
		require.Equal(t, d.Summary.Records, r.Records, "records: decode, validate")
		require.Equal(t, d.Summary.Dropped, r.Dropped, "dropped: decode, validate")

	})
}

func findingLines(r *validate.Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintln(&b, f.String())
	}
	return b.String()
}
