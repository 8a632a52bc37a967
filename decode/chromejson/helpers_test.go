package chromejson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"testing"

	"github.com/megakernel/cycleabi/decode/render"
	"github.com/stretchr/testify/require"
)

// traceOf writes the trace of inputs to memory.
func traceOf(inputs ...render.Input) ([]byte, error) {
	var out bytes.Buffer
	err := Write(&out, inputs, render.WriteOptions{})
	return out.Bytes(), err
}

// placementOf places one input alone, as Write would: timed from its
// anchor, writing its process and core tracks.
func placementOf(tb testing.TB, in *render.Input) *render.Placement {
	tb.Helper()
	ps, err := render.Prepare([]render.Input{*in}, &render.WriteOptions{})
	require.NoError(tb, err)
	return &ps[0]
}

var (
	nonNegativeInt = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	micros         = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]{0,2}[1-9])?$`)
)

// checkPerfetto enforces what Perfetto's JSON importer needs:
// "traceEvents" is the first key; every event has a string ph and
// non-negative integer pid and tid; X events have ts and dur as plain
// decimals with at most three fractional digits (no exponent, no trailing
// zeros), dur >= 0.
func checkPerfetto(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("trace does not start with an object: %v %v", tok, err)
	}
	if tok, err := d.Token(); err != nil || tok != "traceEvents" {
		return fmt.Errorf(`first key is %v, want "traceEvents" (%v)`, tok, err)
	}
	var events []map[string]json.RawMessage
	if err := d.Decode(&events); err != nil {
		return err
	}
	for i, e := range events {
		var ph string
		if err := json.Unmarshal(e["ph"], &ph); err != nil {
			return fmt.Errorf("event %d: ph %s: %v", i, e["ph"], err)
		}
		for _, k := range []string{"pid", "tid"} {
			if !nonNegativeInt.Match(e[k]) {
				return fmt.Errorf("event %d: %s %s is not a non-negative integer", i, k, e[k])
			}
		}
		if ph != "X" {
			continue
		}
		for _, k := range []string{"ts", "dur"} {
			if !micros.Match(e[k]) {
				return fmt.Errorf("event %d: %s %s is not a plain decimal with at most 3 fractional digits", i, k, e[k])
			}
		}
		if e["dur"][0] == '-' {
			return fmt.Errorf("event %d: negative dur %s", i, e["dur"])
		}
	}
	return nil
}

func inf() float64 { return math.Inf(1) }

func nan() float64 { return math.NaN() }
