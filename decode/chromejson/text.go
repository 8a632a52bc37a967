package chromejson

import "slices"

// text is a part of an X event rendered once and appended to many events:
// a slot's pid, tid and constant args, a desc_id's args. Appending a
// slice calls memmove, which for texts of 7-100 bytes costs more than the
// copy; put stores a whole fixed-size array instead, which the compiler
// inlines as a few 16-byte moves, and keeps only the text's length of it.
// A text longer than the array (a slot's args with ten-digit rank, device
// and block ids, a schema's long core type names) is appended as a slice.
type text struct {
	short [textArray]byte
	n     int
	long  []byte // the text when it is longer than short, else nil
}

// textArray bounds the texts stored whole: a slot's args with three-digit
// rank, device and block ids are 79 bytes, with ten-digit ones 100.
const textArray = 96

func newText(s string) text {
	var t text
	if len(s) > textArray {
		return text{long: []byte(s)}
	}
	t.n = copy(t.short[:], s)
	return t
}

// put appends t to b. The array's bytes past t's end land in b's spare
// capacity, outside the result.
func (t *text) put(b []byte) []byte {
	if t.long != nil {
		return append(b, t.long...)
	}
	b = slices.Grow(b, textArray)
	l := len(b)
	*(*[textArray]byte)(b[l : l+textArray]) = t.short
	return b[:l+t.n]
}

// key is a constant key of an event, of at most 16 bytes: put is one
// 16-byte move.
type key struct {
	b [16]byte
	n int
}

func newKey(s string) key {
	var k key
	if len(s) > len(k.b) {
		panic("decode: key " + s + " is longer than 16 bytes")
	}
	k.n = copy(k.b[:], s)
	return k
}

// put appends k to b, as text.put does.
func (k *key) put(b []byte) []byte {
	b = slices.Grow(b, len(k.b))
	l := len(b)
	*(*[16]byte)(b[l : l+16]) = k.b
	return b[:l+k.n]
}
