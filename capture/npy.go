package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/sniff"
)

// npyMagic opens every .npy file (format versions 1.0 to 3.0).
const npyMagic = sniff.NPYMagic

// maxNPYHeader bounds the header we are willing to read; NumPy writes a few
// hundred bytes.
const maxNPYHeader = 1 << 20

type npyHeader struct {
	dataOff int64  // file offset of the payload
	payload uint64 // payload bytes the header declares (math.MaxUint64 past 64 bits)
	errOff  int64  // where a header error was found
	// bigEndian: the dtype stores multi-byte items big-endian.
	bigEndian bool
	descr     string
}

// readNPYHeader parses the header of a .npy file of size bytes. Any dtype
// is accepted: the capture is the payload's bytes, whatever the array
// claims they are; only its byte length matters.
func readNPYHeader(r io.ReaderAt, size int64) (npyHeader, error) {
	var h npyHeader
	var pre [12]byte
	n, err := r.ReadAt(pre[:], 0)
	if n < 10 {
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("truncated .npy header: %d bytes", size)
		}
		return h, err
	}
	major := pre[6]
	var hlen, start int64
	switch major {
	case 1:
		hlen, start = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		if n < 12 {
			return h, fmt.Errorf("truncated .npy header: %d bytes", size)
		}
		hlen, start = int64(binary.LittleEndian.Uint32(pre[8:12])), 12
	default:
		h.errOff = 6
		return h, fmt.Errorf("unsupported .npy format version %d.%d", major, pre[7])
	}
	h.errOff = 8
	if hlen > maxNPYHeader {
		return h, fmt.Errorf(".npy header length %d exceeds %d bytes", hlen, maxNPYHeader)
	}
	if start+hlen > size {
		return h, fmt.Errorf("truncated .npy header: it declares %d bytes, the file has %d after the preamble", hlen, size-start)
	}
	text := make([]byte, hlen) // bounded by maxNPYHeader and by the file size
	if _, err := r.ReadAt(text, start); err != nil && !errors.Is(err, io.EOF) {
		return h, err
	}
	h.errOff = start
	h.dataOff = start + hlen
	v, err := parsePyLiteral(strings.TrimRight(string(text), " \n\x00"))
	if err != nil {
		return h, fmt.Errorf("bad .npy header: %v", err)
	}
	dict, ok := v.(map[string]any)
	if !ok {
		return h, fmt.Errorf("bad .npy header: not a dict")
	}
	itemSize, big, err := dtypeSize(dict["descr"])
	if err != nil {
		return h, fmt.Errorf("bad .npy header: %v", err)
	}
	h.bigEndian, h.descr = big, fmt.Sprint(dict["descr"])
	fo, present := dict["fortran_order"]
	fortran, ok := fo.(bool)
	if !ok {
		what := "missing"
		if present {
			what = pyRepr(fo)
		}
		return h, fmt.Errorf("bad .npy header: fortran_order is %s, not True or False", what)
	}
	shape, ok := dict["shape"].([]any)
	if !ok {
		return h, fmt.Errorf("bad .npy header: shape is not a tuple")
	}
	// The payload is exactly count*itemSize bytes; only a product past 64
	// bits saturates (no file is that large, so it reads as truncated).
	count, bigDims, overflow, empty := uint64(1), 0, false, false
	for _, d := range shape {
		dim, ok := d.(int64)
		if !ok || dim < 0 {
			return h, fmt.Errorf("bad .npy header: shape %v", shape)
		}
		empty = empty || dim == 0
		if dim > 1 {
			bigDims++
		}
		hi, lo := bits.Mul64(count, uint64(dim))
		overflow = overflow || hi != 0
		count = lo
	}
	if fortran && bigDims > 1 {
		return h, fmt.Errorf("Fortran-order array of shape %v: its bytes are not the buffer in order; save it with np.save(np.ascontiguousarray(a))", shape)
	}
	hi, payload := bits.Mul64(count, uint64(itemSize))
	switch {
	case empty:
		payload = 0
	case overflow || hi != 0:
		payload = math.MaxUint64
	}
	h.payload = payload
	return h, nil
}

// pyRepr renders a value of the header's dict as Python would show it.
func pyRepr(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case string:
		return "'" + v + "'"
	case bool:
		if v {
			return "True"
		}
		return "False"
	}
	return fmt.Sprint(v)
}

// dtypeSize returns the byte size of one element of a NumPy dtype descr:
// a type string ('<u4', '|u1', '<f8', '|V32', '<U8') or a structured list
// of (name, descr[, shape]) tuples without offsets.
func dtypeSize(d any) (int64, bool, error) {
	switch d := d.(type) {
	case string:
		s := strings.TrimLeft(d, "<>|=")
		if s == "" {
			return 0, false, fmt.Errorf("empty dtype")
		}
		n, err := typeSize(d, s)
		return n, err == nil && n > 1 && strings.HasPrefix(d, ">") && s[0] != 'S' && s[0] != 'a' && s[0] != 'V', err
	case []any:
		var total int64
		anyBig := false
		for _, f := range d {
			t, ok := f.([]any)
			if !ok || len(t) < 2 || len(t) > 3 {
				return 0, false, fmt.Errorf("unsupported structured dtype %v", d)
			}
			size, big, err := dtypeSize(t[1])
			if err != nil {
				return 0, false, err
			}
			anyBig = anyBig || big
			if len(t) == 3 {
				sub, ok := t[2].([]any)
				if !ok {
					return 0, false, fmt.Errorf("unsupported structured dtype %v", d)
				}
				for _, dim := range sub {
					n, ok := dim.(int64)
					if !ok || n < 0 || n > 1<<20 {
						return 0, false, fmt.Errorf("unsupported structured dtype %v", d)
					}
					// size < 2^34 and n <= 2^20: no overflow before the check.
					if size *= n; size > 1<<30 {
						return 0, false, fmt.Errorf("structured dtype too large")
					}
				}
			}
			total += size
			if total > 1<<30 {
				return 0, false, fmt.Errorf("structured dtype too large")
			}
		}
		if total == 0 {
			return 0, false, fmt.Errorf("empty structured dtype")
		}
		return total, anyBig, nil
	}
	return 0, false, fmt.Errorf("missing or unsupported descr %v", d)
}

// typeSize is the item size of a dtype string d ("<u4"), s without its
// byte-order character.
func typeSize(d, s string) (int64, error) {
	kind, digits := s[0], s[1:]
	if i := strings.IndexByte(digits, '['); i >= 0 { // datetime units: M8[ns]
		digits = digits[:i]
	}
	switch kind {
	case 'O':
		return 0, fmt.Errorf("object dtype %q holds pointers, not the buffer's bytes", d)
	case '?':
		if digits == "" {
			return 1, nil
		}
	}
	if !strings.ContainsRune("biufcVSaUMm?", rune(kind)) {
		return 0, fmt.Errorf("unsupported dtype %q", d)
	}
	n, err := strconv.ParseInt(digits, 10, 32)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("unsupported dtype %q", d)
	}
	if kind == 'U' {
		n *= 4 // UCS-4 characters
	}
	return n, nil
}

// parsePyLiteral parses the Python literal subset NumPy writes in .npy
// headers: dicts, tuples, lists, strings, integers, True/False/None.
func parsePyLiteral(s string) (any, error) {
	p := &pyParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q at column %d", p.s[p.i:min(len(p.s), p.i+10)], p.i+1)
	}
	return v, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("column %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > 16 {
		return nil, p.errorf("nested too deeply")
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		m := map[string]any{}
		for {
			p.space()
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return m, nil
			}
			k, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			key, ok := k.(string)
			if !ok {
				return nil, p.errorf("dict key is not a string")
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.errorf("expected ':'")
			}
			p.i++
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			m[key] = v
			if err := p.sep('}'); err != nil {
				return nil, err
			}
		}
	case c == '(' || c == '[':
		end := byte(')')
		if c == '[' {
			end = ']'
		}
		p.i++
		var items []any
		for {
			p.space()
			if p.i < len(p.s) && p.s[p.i] == end {
				p.i++
				if items == nil {
					items = []any{}
				}
				return items, nil
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			items = append(items, v)
			if len(items) > 1<<16 {
				return nil, p.errorf("too many items")
			}
			if err := p.sep(end); err != nil {
				return nil, err
			}
		}
	case c == '\'' || c == '"':
		j := strings.IndexByte(p.s[p.i+1:], c)
		if j < 0 {
			return nil, p.errorf("unterminated string")
		}
		v := p.s[p.i+1 : p.i+1+j]
		p.i += j + 2
		return v, nil
	case c == '-' || c >= '0' && c <= '9':
		j := p.i + 1
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j < len(p.s) && p.s[j] == 'L' { // Python 2 long
			defer func() { p.i++ }()
		}
		n, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil {
			return nil, p.errorf("bad integer %q", p.s[p.i:j])
		}
		p.i = j
		return n, nil
	default:
		for _, w := range []struct {
			word string
			v    any
		}{{"True", true}, {"False", false}, {"None", nil}} {
			if strings.HasPrefix(p.s[p.i:], w.word) {
				p.i += len(w.word)
				return w.v, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	}
}

// sep consumes the ',' between items or stops before end.
func (p *pyParser) sep(end byte) error {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ',' {
		p.i++
		return nil
	}
	if p.i < len(p.s) && p.s[p.i] == end {
		return nil
	}
	return p.errorf("expected ',' or %q", end)
}
