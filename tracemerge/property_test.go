package tracemerge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// decimalText draws decimal text: up to maxWhole whole digits and up to
// three fractional digits, trailing zeros trimmed as decode writes them.
func decimalText(t *rapid.T, label string, maxWhole int) string {
	whole := rapid.StringMatching(fmt.Sprintf(`[1-9][0-9]{0,%d}|0`, maxWhole-1)).Draw(t, label+"Whole")
	frac := strings.TrimRight(rapid.StringMatching(`[0-9]{0,3}`).Draw(t, label+"Frac"), "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// TestPropMergeKeepsDurationsAndOrder: every internal event keeps its
// duration text and its place in the order, and its offset from the
// invocation's earliest event, exactly, wherever the outer kernel is.
func TestPropMergeKeepsDurationsAndOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(rt, "events")
		ev := make([]mkEvent, n)
		for i := range ev {
			ev[i] = mkEvent{
				name: fmt.Sprintf("e%d", i), pid: 0,
				tid: rapid.SampledFrom([]int{1000, 1001, 2000, 2005}).Draw(rt, "tid"),
				ts:  decimalText(rt, "ts", 8), dur: decimalText(rt, "dur", 5), inv: -1,
			}
		}
		outerTs := decimalText(rt, "outerTs", 15) // below 2^53 us, as real clocks are
		quoted := rapid.Bool().Draw(rt, "quoted")
		tsText := outerTs
		if quoted {
			tsText = `"` + outerTs + `"`
		}
		fw := fmt.Sprintf(`[{"ph":"X","cat":"kernel","name":"K_1","pid":1,"tid":2,"ts":%s,"dur":5}]`, tsText)
		tt := t // files go in the outer test's temp dirs
		m, err := runMerge(tt, Options{Framework: writeFile(tt, "fw.json", fw), MegaKernel: writeMK(tt, ev, oneRankMeta("K"))})
		if err != nil {
			rt.Fatal(err)
		}
		got := m.internal()
		if len(got) != n {
			rt.Fatalf("%d events merged, want %d", len(got), n)
		}
		first := new(big.Rat)
		for i, e := range ev {
			r, _ := new(big.Rat).SetString(e.ts)
			if i == 0 || r.Cmp(first) < 0 {
				first = r
			}
		}
		outer, _ := new(big.Rat).SetString(outerTs)
		for i, e := range ev {
			g := got[i]
			if g["name"] != e.name {
				rt.Fatalf("event %d is %v, want %s: order changed", i, g["name"], e.name)
			}
			if fmt.Sprint(g["dur"]) != e.dur {
				rt.Fatalf("event %d dur %v, want %s", i, g["dur"], e.dur)
			}
			ts, ok := new(big.Rat).SetString(fmt.Sprint(g["ts"]))
			if !ok {
				rt.Fatalf("event %d ts %v", i, g["ts"])
			}
			src, _ := new(big.Rat).SetString(e.ts)
			want := new(big.Rat).Add(outer, new(big.Rat).Sub(src, first))
			if ts.Cmp(want) != 0 {
				rt.Fatalf("event %d ts %v, want %s", i, g["ts"], want.FloatString(3))
			}
			if _, isStr := g["ts"].(string); isStr != quoted {
				rt.Fatalf("event %d ts %#v: quoted %v, want %v", i, g["ts"], isStr, quoted)
			}
		}
	})
}

// TestPropReaderCopiesValues: any JSON value, read through buffers of any
// size, comes out byte for byte.
func TestPropReaderCopiesValues(t *testing.T) {
	var gen func(depth int) *rapid.Generator[any]
	gen = func(depth int) *rapid.Generator[any] {
		leaves := []*rapid.Generator[any]{
			rapid.Map(rapid.String(), func(s string) any { return s }),
			rapid.Map(rapid.Float64(), func(f float64) any { return f }),
			rapid.Map(rapid.Int64(), func(i int64) any { return i }),
			rapid.Just[any](nil), rapid.Just[any](true),
		}
		if depth == 0 {
			return rapid.OneOf(leaves...)
		}
		return rapid.OneOf(append(leaves,
			rapid.Map(rapid.SliceOfN(gen(depth-1), 0, 4), func(v []any) any { return v }),
			rapid.Map(rapid.MapOfN(rapid.String(), gen(depth-1), 0, 4), func(v map[string]any) any { return v }),
		)...)
	}
	rapid.Check(t, func(rt *rapid.T) {
		v := gen(3).Draw(rt, "value")
		js, err := json.MarshalIndent(v, "", rapid.SampledFrom([]string{"", " ", "\t", "  "}).Draw(rt, "indent"))
		if err != nil {
			rt.Skip(err)
		}
		r := newBytesReader("v.json", js)
		r.buf = make([]byte, rapid.IntRange(7, 64).Draw(rt, "buffer"))
		var s sink
		if err := r.value(&s); err != nil {
			rt.Fatalf("%v\n%s", err, js)
		}
		if !bytes.Equal(s.b, js) {
			rt.Fatalf("copied\n%s\nwant\n%s", s.b, js)
		}
	})
}

// TestReaderRejects: malformed JSON is an error naming the line and byte.
func TestReaderRejects(t *testing.T) {
	for in, want := range map[string]string{
		`{"a" 1}`:       `x:1: byte 5: expected ':' after an object key, found '1'`,
		"[1,\n2,]":      `x:2: byte 6: expected a value, found ']'`,
		`"abc`:          `x:1: byte 4: unterminated string`,
		`"a\qb"`:        `x:1: byte 2: bad escape "\\q" in a string`,
		`"a\u12x4"`:     `x:1: byte 2: bad \u escape in a string`,
		"\"a\tb\"":      `x:1: byte 2: control character 0x09 in a string`,
		`[01]`:          `x:1: byte 1: "01" is not a JSON value`,
		`{"a":1]`:       `x:1: byte 6: expected ',' or '}', found ']'`,
		`[1 2]`:         `x:1: byte 3: expected ',' or ']', found '2'`,
		`@`:             `x:1: byte 0: expected a value, found '@'`,
		``:              `x:1: byte 0: expected a value, found the end of the input`,
		`{"a":[1,{"b":`: `x:1: byte 13: expected a value, found the end of the input`,
	} {
		r := newBytesReader("x", []byte(in))
		err := r.value(&sink{})
		if err == nil || err.Error() != want {
			t.Fatalf("%s: error %v, want %q", in, err, want)
		}
	}
	deep := strings.Repeat("[", maxDepth+1)
	if err := newBytesReader("x", []byte(deep)).value(&sink{}); err == nil || !strings.Contains(err.Error(), "nested deeper than 512") {
		t.Fatalf("error %v, want one containing %q", err, "nested deeper than 512")
	}
}
