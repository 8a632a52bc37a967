package pq

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// entries checks d's levels against the leaf and rows and returns the
// number of entries (levels) and of values among them.
func (l *leaf) entries(d *Data, rows int) (entries, present int, err error) {
	switch {
	case l.maxRep > 0:
		if len(d.Rep) != len(d.Def) {
			return 0, 0, fmt.Errorf("%d repetition levels, %d definition levels", len(d.Rep), len(d.Def))
		}
		starts := 0
		for i, r := range d.Rep {
			if r > 1 || r == 1 && (i == 0 || d.Def[i] == 0 || d.Def[i-1] == 0) {
				return 0, 0, fmt.Errorf("repetition level %d at entry %d", r, i)
			}
			if r == 0 {
				starts++
			}
		}
		if starts != rows {
			return 0, 0, fmt.Errorf("%d rows, %d of them started", rows, starts)
		}
	case d.Rep != nil:
		return 0, 0, errors.New("repetition levels for a column that does not repeat")
	case l.maxDef > 0:
		if d.Def != nil && len(d.Def) != rows {
			return 0, 0, fmt.Errorf("%d definition levels for %d rows", len(d.Def), rows)
		}
	case d.Def != nil || d.Rep != nil:
		return 0, 0, errors.New("levels for a required column")
	}
	if d.Def == nil {
		return rows, rows, nil
	}
	for _, v := range d.Def {
		if v > 1 {
			return 0, 0, fmt.Errorf("definition level %d", v)
		}
		present += int(v)
	}
	return len(d.Def), present, nil
}

// checkValues checks that d holds present values of the leaf's type, each
// in its range.
func (l *leaf) checkValues(d *Data, present int) error {
	n, kind := 0, ""
	switch c := l.col; c.Type {
	case Int:
		n, kind = len(d.Ints), "integers"
		if c.Bits == 64 || len(d.Ints) == 0 {
			break
		}
		// Every value fits when the least and greatest do.
		lo, hi := intRange(c)
		mn, mx := intBounds(c, d.Ints)
		if c.Signed && (int64(mn) < int64(lo) || int64(mx) > int64(hi)) || !c.Signed && mx > hi {
			bad := mx
			if c.Signed && int64(mn) < int64(lo) {
				bad = mn
			}
			return fmt.Errorf("value %d (%#x) does not fit %d bits", slices.Index(d.Ints, bad), bad, c.Bits)
		}
	case Double:
		n, kind = len(d.Doubles), "doubles"
	case String:
		n, kind = len(d.Strings), "strings"
		if d.Index != nil {
			if l.col.Encoding != Dict {
				return errors.New("indexed strings in a column not dictionary-encoded")
			}
			n, kind = len(d.Index), "indexes"
			for i, x := range d.Index {
				if int(x) >= len(d.Strings) {
					return fmt.Errorf("index %d is %d, past the dictionary's %d strings", i, x, len(d.Strings))
				}
			}
		}
	}
	if n != present {
		return fmt.Errorf("%d %s for %d values", n, kind, present)
	}
	return nil
}

// intRange is the least and greatest value of an Int column, as its
// 64-bit two's complement.
func intRange(c Column) (lo, hi uint64) {
	if c.Signed {
		return uint64(int64(-1) << (c.Bits - 1)), uint64(1)<<(c.Bits-1) - 1
	}
	return 0, math.MaxUint64 >> (64 - c.Bits)
}

// intBounds are the least and greatest of vals (at least one) in the
// column's order.
func intBounds(c Column, vals []uint64) (mn, mx uint64) {
	if c.Signed {
		a, b := int64(vals[0]), int64(vals[0])
		for _, v := range vals[1:] {
			a, b = min(a, int64(v)), max(b, int64(v))
		}
		return uint64(a), uint64(b)
	}
	mn, mx = vals[0], vals[0]
	for _, v := range vals[1:] {
		mn, mx = min(mn, v), max(mx, v)
	}
	return mn, mx
}

// physicalSize is the bytes a plain value of the column takes (not
// strings).
func physicalSize(c Column) int {
	if physical(c) == typeInt32 {
		return 4
	}
	return 8
}

// levelsOf returns levels as the hybrid encoder takes them: all ones for
// nil (every entry a value).
func (e *Encoder) levelsOf(levels []uint8, entries int) []uint32 {
	out := e.levels[:0]
	if levels == nil {
		for range entries {
			out = append(out, 1)
		}
	}
	for _, v := range levels {
		out = append(out, uint32(v))
	}
	e.levels = out
	return out
}

// appendPlain appends d's values in the plain encoding.
func appendPlain(dst []byte, c Column, d *Data) []byte {
	switch c.Type {
	case Int:
		for _, v := range d.Ints {
			dst = appendInt(dst, c, v)
		}
	case Double:
		for _, v := range d.Doubles {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
		}
	case String:
		if d.Index == nil {
			for _, s := range d.Strings {
				dst = appendString(dst, s)
			}
			break
		}
		// Indexed strings written plain: a dictionary column of nulls only.
		for _, x := range d.Index {
			dst = appendString(dst, d.Strings[x])
		}
	}
	return dst
}

func appendString(dst []byte, s string) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

func appendInt(dst []byte, c Column, v uint64) []byte {
	if physicalSize(c) == 4 {
		return binary.LittleEndian.AppendUint32(dst, uint32(v))
	}
	return binary.LittleEndian.AppendUint64(dst, v)
}

// dictionary returns a Dict column's dictionary page body (its distinct
// values in the order of their first use, plain), their number and the
// values as indexes into it. An indexed String column's dictionary keeps
// the entries the values use.
func (e *Encoder) dictionary(c Column, d *Data) (body []byte, n int, idx []uint32) {
	idx = e.idx[:0]
	body = e.dict[:0]
	switch {
	case c.Type == String && d.Index != nil:
		remap := e.remap[:0]
		for range d.Strings {
			remap = append(remap, 0)
		}
		for _, x := range d.Index {
			if remap[x] == 0 {
				n++
				remap[x] = uint32(n)
				body = binary.LittleEndian.AppendUint32(body, uint32(len(d.Strings[x])))
				body = append(body, d.Strings[x]...)
			}
			idx = append(idx, remap[x]-1)
		}
		e.remap = remap
	case c.Type == String:
		clear(e.dictStr)
		for _, s := range d.Strings {
			x, ok := e.dictStr[s]
			if !ok {
				x = uint32(len(e.dictStr))
				e.dictStr[s] = x
				body = binary.LittleEndian.AppendUint32(body, uint32(len(s)))
				body = append(body, s...)
			}
			idx = append(idx, x)
		}
		n = len(e.dictStr)
	case c.Type == Int:
		clear(e.dictInt)
		for _, v := range e.touched {
			e.dense[v] = 0
		}
		e.touched = e.touched[:0]
		var lastV uint64
		var lastX uint32
		for _, v := range d.Ints {
			var x uint32
			if v < denseLimit {
				if x = e.dense[v]; x == 0 {
					n++
					x = uint32(n)
					e.dense[v] = x
					e.touched = append(e.touched, v)
					body = appendInt(body, c, v)
				}
				x--
			} else if v == lastV && n > 0 {
				x = lastX // runs of one value are common (an owner, a descriptor)
			} else if y, ok := e.dictInt[v]; ok {
				x = y
			} else {
				x = uint32(n)
				n++
				e.dictInt[v] = x
				body = appendInt(body, c, v)
			}
			if v >= denseLimit {
				lastV, lastX = v, x
			}
			idx = append(idx, x)
		}
	case c.Type == Double:
		clear(e.dictInt)
		for _, f := range d.Doubles {
			v := math.Float64bits(f)
			x, ok := e.dictInt[v]
			if !ok {
				x = uint32(n)
				n++
				e.dictInt[v] = x
				body = binary.LittleEndian.AppendUint64(body, v)
			}
			idx = append(idx, x)
		}
	}
	e.idx = idx
	e.dict = body
	return body, n, idx
}

// bounds returns the least and greatest of d's values in the column's
// order (unsigned integers compare unsigned, strings bytewise), plain
// encoded as statistics hold them; ok is false when there are none (only
// NaNs).
func (e *Encoder) bounds(c Column, d *Data) (lo, hi []byte, ok bool) {
	switch c.Type {
	case Int:
		mn, mx := intBounds(c, d.Ints)
		return appendInt(nil, c, mn), appendInt(nil, c, mx), true
	case Double:
		mn, mx := math.Inf(1), math.Inf(-1)
		for _, v := range d.Doubles {
			mn, mx = math.Min(mn, v), math.Max(mx, v)
		}
		if math.IsNaN(mn) || math.IsNaN(mx) {
			mn, mx = math.Inf(1), math.Inf(-1)
			for _, v := range d.Doubles {
				if !math.IsNaN(v) {
					mn, mx = math.Min(mn, v), math.Max(mx, v)
				}
			}
			if mn > mx {
				return nil, nil, false
			}
		}
		// parquet-format: a least 0 is written -0, a greatest 0 +0.
		if mn == 0 {
			mn = math.Copysign(0, -1)
		}
		if mx == 0 {
			mx = 0
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(mn)), binary.LittleEndian.AppendUint64(nil, math.Float64bits(mx)), true
	}
	var mn, mx string
	first := true
	visit := func(s string) {
		if first || s < mn {
			mn = s
		}
		if first || s > mx {
			mx = s
		}
		first = false
	}
	if d.Index != nil {
		for _, x := range d.Index {
			visit(d.Strings[x])
		}
	} else {
		for _, s := range d.Strings {
			visit(s)
		}
	}
	return bytes.Clone([]byte(mn)), bytes.Clone([]byte(mx)), true
}
