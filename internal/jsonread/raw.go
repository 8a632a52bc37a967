package jsonread

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Field is one member of a JSON object read by Fields: the key with its
// escapes decoded and the value's raw bytes.
type Field struct {
	Key   []byte // decoded (usually a slice of the object)
	Value []byte
	// Start and End are where Value lies in the object.
	Start, End int
}

// Fields lists the members of an object a Reader read (so checked
// already) into dst, reusing its storage. It reports false when raw is not
// an object. The slices alias raw.
func Fields(raw []byte, dst []Field) ([]Field, bool) {
	// One trace event's fields without an allocation once dst has grown.
	dst = dst[:0]
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return dst, false
	}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return dst, true
	}
	for i < len(raw) {
		ks := i
		i = skipString(raw, i)
		key, ok := keyBytes(raw[ks:i])
		if !ok {
			return dst, false
		}
		i = skipWS(raw, i)
		i = skipWS(raw, i+1) // the colon
		vs := i
		i = skipValue(raw, i)
		dst = append(dst, Field{Key: key, Value: raw[vs:i], Start: vs, End: i})
		i = skipWS(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return dst, true
		}
		i = skipWS(raw, i+1) // the comma
	}
	return dst, true
}

// Lookup returns the value of key among fs, nil when absent; of a key
// an object holds twice, the last value, as Python's json module (which
// upstream's tools read traces with) and encoding/json take it.
func Lookup(fs []Field, key string) []byte {
	for i := len(fs) - 1; i >= 0; i-- {
		if string(fs[i].Key) == key {
			return fs[i].Value
		}
	}
	return nil
}

// IsString reports whether a raw (checked) JSON value is the string s,
// its escapes decoded: "\u0058" is "X". Without an escape it costs no
// allocation.
func IsString(v []byte, s string) bool {
	if len(v) == len(s)+2 && v[0] == '"' && string(v[1:len(v)-1]) == s {
		return true
	}
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') < 0 {
		return false
	}
	// An escape is at most 12 bytes for 4 of the string.
	if len(v) > 6*len(s)+14 {
		return false
	}
	u, ok := Unquote(v)
	return ok && u == s
}

// String returns the string a raw (checked) JSON value holds, or false
// when it is not a string.
func String(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return Unquote(v)
}

// Unquote returns the string a JSON string literal holds, decoded as Str
// decodes it.
func Unquote(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	raw := b[1 : len(b)-1]
	if !needsDecoding(raw) {
		return string(raw), true
	}
	return string(appendUnquoted(nil, raw)), true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the (already checked) value at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\n', '\t', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// keyBytes decodes a key's escapes; without escapes it is a slice of b,
// bytes that are not UTF-8 kept (such a key equals no name a caller looks
// up, decoded or not, and the check would cost every key of every event).
func keyBytes(b []byte) ([]byte, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return nil, false
	}
	raw := b[1 : len(b)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw, true
	}
	return appendUnquoted(nil, raw), true
}

// needsDecoding reports whether the body of a checked string holds an
// escape or a byte that is not UTF-8.
func needsDecoding(raw []byte) bool {
	return bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw)
}

var simpleEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// appendUnquoted appends the body of a checked string, decoded, to dst:
// escapes, a UTF-16 surrogate pair as the one character it encodes, a
// lone surrogate and a byte that is not UTF-8 as U+FFFD (as encoding/json
// reads them).
func appendUnquoted(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c >= utf8.RuneSelf:
			ch, size := utf8.DecodeRune(raw[i:])
			if ch == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, raw[i:i+size]...)
			}
			i += size
		case c != '\\':
			dst = append(dst, c)
			i++
		case i+1 < len(raw) && raw[i+1] != 'u':
			dst = append(dst, simpleEscapes[raw[i+1]])
			i += 2
		default:
			ch, ok := hex4(raw, i+2)
			if !ok {
				// Not a checked string: keep the text.
				dst = append(dst, c)
				i++
				continue
			}
			i += 6
			if utf16.IsSurrogate(ch) {
				lo, ok := rune(-1), false
				if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					lo, ok = hex4(raw, i+2)
				}
				if pair := utf16.DecodeRune(ch, lo); ok && pair != utf8.RuneError {
					ch = pair
					i += 6
				} else {
					ch = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, ch)
		}
	}
	return dst
}

// hex4 reads 4 hex digits at b[off:].
func hex4(b []byte, off int) (rune, bool) {
	if off+4 > len(b) {
		return 0, false
	}
	var v rune
	for _, c := range b[off : off+4] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// StringEnd returns the index after the (checked) string starting at b[i].
func StringEnd(b []byte, i int) int { return skipString(b, i) }

// StringCapped returns the string a raw (checked) JSON value holds, cut
// to at most max bytes (at a character's start), and, when it was cut,
// the length of its text as written, quotes aside (0 when not cut). It reports
// false when v is not a string. Only about 6 times max bytes of v are
// decoded, so a hostile name of megabytes costs no copy of itself.
func StringCapped(v []byte, max int) (s string, full int, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", 0, false
	}
	raw := v[1 : len(v)-1]
	if len(raw) <= max && !needsDecoding(raw) {
		return string(raw), 0, true
	}
	// An escape is at most 12 bytes (a surrogate pair) for 4 of the
	// string, and no escape less than 1 byte for 6: 6*max+12 bytes of
	// the text hold the first max bytes of the string.
	if len(raw) <= 6*max+12 {
		d := appendUnquoted(nil, raw)
		if len(d) <= max {
			return string(d), 0, true
		}
		return string(cutUTF8(d, max)), len(raw), true
	}
	d := appendUnquoted(nil, raw[:6*max+12])
	return string(cutUTF8(d, max)), len(raw), true
}

// cutUTF8 cuts b to at most max bytes at the start of a character.
func cutUTF8(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	i := max
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return b[:i]
}
