package report

import (
	"io"
	"unicode/utf8"
)

// utf8Writer passes the page on with each byte that is not part of valid
// UTF-8 replaced by U+FFFD, as the JSON and Perfetto traces write such
// bytes: a kernel name or a path given in another encoding still makes a
// valid UTF-8 page. A sequence cut by the end of one Write is completed
// by the next; Close writes what is left of one.
type utf8Writer struct {
	w     io.Writer
	carry []byte // the start of a sequence the last Write ended in
	buf   []byte
}

func (u *utf8Writer) Write(p []byte) (int, error) {
	data := p
	if len(u.carry) > 0 {
		data = append(u.carry, p...)
		u.carry = u.carry[:0]
	} else if utf8.Valid(p) {
		return u.w.Write(p)
	}
	out := u.buf[:0]
	for i := 0; i < len(data); {
		if c := data[i]; c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		if !utf8.FullRune(data[i:]) {
			u.carry = append(u.carry, data[i:]...)
			break
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	u.buf = out[:0]
	if _, err := u.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes a sequence the last Write left unfinished, one U+FFFD per
// byte.
func (u *utf8Writer) Close() error {
	var out []byte
	for range u.carry {
		out = utf8.AppendRune(out, utf8.RuneError)
	}
	u.carry = nil
	if len(out) == 0 {
		return nil
	}
	_, err := u.w.Write(out)
	return err
}
