package jsontext_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/megakernel/cycleabi/internal/jsontext"
)

// Python's repr and json.dumps of each float (python3 -c 'print(repr(x))').
func TestAppendPyFloat(t *testing.T) {
	for _, c := range []struct {
		f          float64
		repr, json string
	}{
		{10010.523000000001, "10010.523000000001", "10010.523000000001"},
		{1.0, "1.0", "1.0"},
		{-0.5, "-0.5", "-0.5"},
		{1e16, "1e+16", "1e+16"},
		{1234567890123456.0, "1234567890123456.0", "1234567890123456.0"},
		{0.0001, "0.0001", "0.0001"},
		{0.00001, "1e-05", "1e-05"},
		{1.5e-7, "1.5e-07", "1.5e-07"},
		{2.5e300, "2.5e+300", "2.5e+300"},
		{math.Inf(1), "inf", "Infinity"},
		{math.NaN(), "nan", "NaN"},
	} {
		assert.Equal(t, c.repr, string(jsontext.AppendPyFloat(nil, c.f)), "repr(%v)", c.f)
		assert.Equal(t, c.json, string(jsontext.AppendPyJSONFloat(nil, c.f)), "json.dumps(%v)", c.f)
	}
}

// json.dumps("...", ensure_ascii=False).
func TestAppendPyString(t *testing.T) {
	assert.Equal(t, `"a\"b\\c\b\f\n\r\t\u0001\u001f é \\u2028"`,
		string(jsontext.AppendPyString(nil, "a\"b\\c\b\f\n\r\t\x01\x1f é \\u2028")))
	assert.Equal(t, "\"\u2028\x7f\"", string(jsontext.AppendPyString(nil, "\u2028\x7f")))
}
