// Package jsonscan reads the tokens of a JSON text for the fast paths that
// parse large JSON schedules and names files without building a YAML node
// tree. It accepts only JSON that YAML reads the same way — no escapes,
// control characters, tabs or lone carriage returns in the places it
// reads, and a key's colon on the key's line — and reports false for
// anything else, so the caller falls back to its YAML parser, which reads
// that input (and reports its errors) the YAML way.
package jsonscan

// Scanner reads Data from byte I.
type Scanner struct {
	Data []byte
	I    int
}

// Space skips JSON whitespace other than tabs (which YAML does not allow
// everywhere JSON does) and lone carriage returns.
func (j *Scanner) Space() {
	for j.I < len(j.Data) {
		switch j.Data[j.I] {
		case ' ', '\n':
			j.I++
		case '\r':
			if j.I+1 < len(j.Data) && j.Data[j.I+1] == '\n' {
				j.I += 2
				continue
			}
			return
		default:
			return
		}
	}
}

// Punct consumes c after optional whitespace. At the end of the data it
// reports false, and so ends every loop.
func (j *Scanner) Punct(c byte) bool {
	j.Space()
	if j.I < len(j.Data) && j.Data[j.I] == c {
		j.I++
		return true
	}
	return false
}

// Peek returns the next non-space byte, or 0 at the end.
func (j *Scanner) Peek() byte {
	j.Space()
	if j.I < len(j.Data) {
		return j.Data[j.I]
	}
	return 0
}

// AtEnd reports whether only whitespace is left.
func (j *Scanner) AtEnd() bool {
	j.Space()
	return j.I == len(j.Data)
}

// Str reads a string without escapes or control characters; the result
// aliases the input.
func (j *Scanner) Str() ([]byte, bool) {
	if !j.Punct('"') {
		return nil, false
	}
	start := j.I
	for j.I < len(j.Data) {
		c := j.Data[j.I]
		switch {
		case c == '"':
			s := j.Data[start:j.I]
			j.I++
			return s, true
		case c == '\\' || c < 0x20 || c == 0x7f:
			return nil, false
		}
		j.I++
	}
	return nil, false
}

// Key reads an object key and its colon. YAML wants an implicit key on one
// line, so only spaces may stand between the key and the colon.
func (j *Scanner) Key() ([]byte, bool) {
	name, ok := j.Str()
	for j.I < len(j.Data) && j.Data[j.I] == ' ' {
		j.I++
	}
	if !ok || j.I >= len(j.Data) || j.Data[j.I] != ':' {
		return nil, false
	}
	j.I++
	return name, true
}

// Int reads an integer in [lo, hi]: an optional minus, then digits with no
// leading zero; a fraction or exponent makes it not an integer.
func (j *Scanner) Int(lo, hi int64) (int64, bool) {
	j.Space()
	start := j.I
	if j.I < len(j.Data) && j.Data[j.I] == '-' {
		j.I++
	}
	digits := j.I
	for j.I < len(j.Data) && '0' <= j.Data[j.I] && j.Data[j.I] <= '9' {
		j.I++
	}
	if n := j.I - digits; n == 0 || n > 1 && j.Data[digits] == '0' || n > 18 {
		return 0, false
	}
	if j.I < len(j.Data) {
		switch j.Data[j.I] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	// At most 18 digits: no overflow.
	var v int64
	for _, c := range j.Data[digits:j.I] {
		v = v*10 + int64(c-'0')
	}
	if digits > start {
		v = -v
	}
	return v, lo <= v && v <= hi
}

// Null consumes a JSON null.
func (j *Scanner) Null() bool {
	if j.Peek() != 'n' || len(j.Data)-j.I < 4 || string(j.Data[j.I:j.I+4]) != "null" {
		return false
	}
	j.I += 4
	return true
}

// Array reads [item, ...], calling item for each.
func (j *Scanner) Array(item func() bool) bool {
	if !j.Punct('[') {
		return false
	}
	if j.Punct(']') {
		return true
	}
	for {
		if !item() {
			return false
		}
		if j.Punct(']') {
			return true
		}
		if !j.Punct(',') {
			return false
		}
	}
}

// Object reads {key: value, ...}, calling field with each key, which must
// read the value.
func (j *Scanner) Object(field func(key []byte) bool) bool {
	if !j.Punct('{') {
		return false
	}
	if j.Punct('}') {
		return true
	}
	for {
		key, ok := j.Key()
		if !ok || !field(key) {
			return false
		}
		if j.Punct('}') {
			return true
		}
		if !j.Punct(',') {
			return false
		}
	}
}
