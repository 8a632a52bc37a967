package jsonread

import (
	"reflect"
	"slices"
	"strings"
)

// ExactKeys returns raw (a checked JSON value) as encoding/json should
// read it into a value of type t to read it as Python's json module does:
// without the object members whose key matches a field of t only when
// case is ignored ("RecordCount" for recordCount). encoding/json takes
// such a key for the field; Python, which upstream's tools read traces
// with, keeps it as another key, which no one reads. Objects of struct
// types inside t (a field, a slice's or map's elements) are treated the
// same way. A key an object repeats (in an object of a struct or map
// type) is read as Python reads it too: the last member replaces the
// earlier ones, which are dropped, where encoding/json would merge a
// repeated object into the first (a second "recordCapacityPerCore":
// {"AIV": 4096} would keep the first's AIC). raw is returned as it is
// when it holds no such key.
func ExactKeys(raw []byte, t reflect.Type) []byte {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	names := map[string]reflect.Type{}
	var elem reflect.Type // a map's values
	switch t.Kind() {
	case reflect.Slice:
		return exactKeysArray(raw, t.Elem())
	case reflect.Map:
		elem = t.Elem()
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			names[name] = f.Type
		}
	default:
		return raw
	}
	fs, ok := Fields(raw, nil)
	if !ok {
		return raw
	}
	last := make(map[string]int, len(fs))
	for i, f := range fs {
		last[string(f.Key)] = i
	}
	// Rebuilt member by member when anything changes: the members kept
	// (key as written, value possibly rebuilt) joined by commas.
	parts := make([][]byte, 0, len(fs))
	changed := false
	for i, f := range fs {
		key := string(f.Key)
		if last[key] != i {
			changed = true // replaced by a later member
			continue
		}
		ft, exact := names[key]
		if elem != nil {
			ft, exact = elem, true
		}
		if !exact {
			folded := false
			for n := range names {
				folded = folded || strings.EqualFold(n, key)
			}
			if folded {
				changed = true
				continue
			}
		}
		member := raw[keyStart(raw, f.Start):f.End]
		if exact {
			if inner := ExactKeys(f.Value, ft); !sameBytes(inner, f.Value) {
				member = append(slices.Clone(raw[keyStart(raw, f.Start):f.Start]), inner...)
				changed = true
			}
		}
		parts = append(parts, member)
	}
	if !changed {
		return raw
	}
	out := []byte{'{'}
	for i, p := range parts {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p...)
	}
	return append(out, '}')
}

// sameBytes reports whether a and b are the same slice (not a copy).
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// exactKeysArray applies ExactKeys to each element of a JSON array.
func exactKeysArray(raw []byte, elem reflect.Type) []byte {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return raw
	}
	var out []byte
	last, changed := 0, false
	i = skipWS(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		end := skipValue(raw, i)
		v := raw[i:end]
		if inner := ExactKeys(v, elem); !sameBytes(inner, v) {
			out = append(out, raw[last:i]...)
			out = append(out, inner...)
			last, changed = end, true
		}
		i = skipWS(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipWS(raw, i+1)
		}
	}
	if !changed {
		return raw
	}
	return append(out, raw[last:]...)
}

// keyStart returns the index of the opening quote of the key whose value
// starts at valueStart.
func keyStart(raw []byte, valueStart int) int {
	i := valueStart - 1
	for i > 0 && raw[i] != ':' {
		i--
	}
	i--
	for i > 0 && raw[i] != '"' { // the key's closing quote
		i--
	}
	for i--; i > 0; i-- { // its opening quote: one not escaped
		if raw[i] == '"' {
			n := 0
			for j := i - 1; j >= 0 && raw[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				return i
			}
		}
	}
	return i
}
