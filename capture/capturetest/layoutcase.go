package capturetest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"golang.org/x/tools/txtar"
)

// LayoutCase is one case of the layout search's table
// (capture/testdata/layout/*.txtar), which capture's tests and gen/py's
// mirror test (tests/agreement) both run. A case file opens with what it
// covers, then holds three sections:
//
//	-- capture --    the buffer, one directive per line ('#' starts a comment):
//	  layout cube=24 aic=16 aiv=32      every slot of this layout unused (the first line,
//	                                    or zeros); keys are the regions' core types
//	  zeros 50000                       a buffer of 50000 zero bytes instead
//	  enter AIV/3 [records=2]           the core enters (Enter) and writes records (Span)
//	  set AIV/0 core_type=1 block_id=9  overwrite header fields of a slot, by schema name
//	  header @0x1a00 AIV/2 capacity=16  a live header (entry_cycle 1) at that offset
//	                                    (7/2: core type 7, which may be no region's)
//	  append 96 [0xff]                  append bytes (zero, or the byte given)
//	  truncate 64                       drop the buffer's last bytes
//	-- request --    what the caller gives (optional):
//	  cube-slots 24 | capacities aic=16 aiv=16 | plan NAME cube=24 aic=16 aiv=16 | partial
//	-- want --       Resolve's answer, as RenderResolution writes it
type LayoutCase struct {
	// About is the case's opening text: what it covers.
	About   string
	Bytes   []byte
	Request capture.Request
	// GoOnly: the request uses what only Go's resolver has (a host plan,
	// a partial resolution); gen/py's find_layout has neither.
	GoOnly bool
	// Archive is the parsed file, for golden.CheckSection.
	Archive *txtar.Archive
}

// ParseLayoutCase reads a case of the layout table from its text.
func ParseLayoutCase(data []byte) (*LayoutCase, error) {
	ar := txtar.Parse(data)
	lc := &LayoutCase{About: strings.TrimSpace(string(ar.Comment)), Archive: ar}
	if lc.About == "" {
		return nil, fmt.Errorf("the case does not open with what it covers")
	}
	var sawCapture, sawWant bool
	for _, f := range ar.Files {
		var err error
		switch f.Name {
		case "capture":
			sawCapture = true
			lc.Bytes, err = buildCapture(f.Data)
		case "request":
			err = lc.parseRequest(f.Data)
		case "want":
			sawWant = true
		default:
			err = fmt.Errorf("unknown section %q", f.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", f.Name, err)
		}
	}
	if !sawCapture || !sawWant {
		return nil, fmt.Errorf("a case needs a capture and a want section")
	}
	return lc, nil
}

// lines calls fn with the words of each line that has any, numbering
// errors by line.
func lines(data []byte, fn func(words []string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		words := strings.Fields(text)
		if len(words) == 0 {
			continue
		}
		if err := fn(words); err != nil {
			return fmt.Errorf("line %d: %q: %w", n, strings.TrimSpace(text), err)
		}
	}
	return nil
}

// keyValues parses key=value words with unsigned values (decimal or 0x).
func keyValues(words []string) (map[string]uint64, error) {
	kv := map[string]uint64{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not key=value", w)
		}
		n, err := strconv.ParseUint(v, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		kv[k] = n
	}
	return kv, nil
}

// capacities takes one key per region of the schema (its core type in
// lower case) out of kv.
func capacities(kv map[string]uint64) (abi.Capacities, error) {
	var caps abi.Capacities
	for _, r := range abi.Regions() {
		k := strings.ToLower(r.CoreType.String())
		v, ok := kv[k]
		if !ok {
			return caps, fmt.Errorf("no %s=", k)
		}
		caps.Set(r.CoreType, uint32(v))
		delete(kv, k)
	}
	return caps, nil
}

func noneLeft(kv map[string]uint64) error {
	for k := range kv {
		return fmt.Errorf("unknown key %q", k)
	}
	return nil
}

// parseSlot reads "AIV/3", or "7/3" for a core type by number (one the
// schema may not have).
func parseSlot(s string) (abi.CoreType, uint32, error) {
	name, block, ok := strings.Cut(s, "/")
	t, known := abi.ParseCoreType(name)
	if n, err := strconv.ParseUint(name, 10, 32); err == nil {
		t, known = abi.CoreType(n), true
	}
	b, err := strconv.ParseUint(block, 10, 32)
	if !ok || !known || err != nil {
		return 0, 0, fmt.Errorf("%q is not a slot (AIV/3)", s)
	}
	return t, uint32(b), nil
}

func (lc *LayoutCase) parseRequest(data []byte) error {
	return lines(data, func(w []string) error {
		switch {
		case w[0] == "cube-slots" && len(w) == 2:
			n, err := strconv.ParseUint(w[1], 10, 32)
			lc.Request.CubeSlots = uint32(n)
			return err
		case w[0] == "capacities":
			kv, err := keyValues(w[1:])
			if err != nil {
				return err
			}
			caps, err := capacities(kv)
			lc.Request.Capacities = &caps
			if err == nil {
				err = noneLeft(kv)
			}
			return err
		case w[0] == "plan" && len(w) > 2:
			kv, err := keyValues(w[2:])
			if err != nil {
				return err
			}
			p := &capture.Plan{Name: w[1], CubeSlots: uint32(kv["cube"])}
			delete(kv, "cube")
			if p.Capacities, err = capacities(kv); err != nil {
				return err
			}
			lc.Request.Plan, lc.GoOnly = p, true
			return noneLeft(kv)
		case w[0] == "partial" && len(w) == 1:
			lc.Request.Partial, lc.GoOnly = true, true
			return nil
		}
		return fmt.Errorf("unknown request")
	})
}

// buildCapture runs the capture section's directives.
func buildCapture(data []byte) ([]byte, error) {
	var cb caseBuilder
	err := lines(data, func(w []string) (err error) {
		defer func() {
			// The builder panics on what no test means (a slot the layout
			// has not): a case's mistake, said as one.
			if r := recover(); r != nil {
				err = fmt.Errorf("%v", r)
			}
		}()
		return cb.directive(w)
	})
	return cb.buf, err
}

// caseBuilder is the capture a case's directives build: the bytes, and
// the builder of the last layout line, which writes into them.
type caseBuilder struct {
	b   *Builder
	buf []byte
}

// directive runs one line: the byte directives (zeros, append, truncate)
// on the bytes, the others through the builder.
func (cb *caseBuilder) directive(w []string) error {
	if cb.buf == nil && w[0] != "layout" && w[0] != "zeros" {
		return fmt.Errorf("the first line is a layout or zeros line")
	}
	switch w[0] {
	case "zeros":
		n, err := strconv.ParseUint(w[1], 0, 32)
		if err != nil || len(w) != 2 {
			return fmt.Errorf("zeros N")
		}
		cb.buf = make([]byte, n)
		return nil
	case "append":
		return cb.append(w)
	case "truncate":
		n, err := strconv.ParseUint(w[1], 0, 32)
		if err != nil || n > uint64(len(cb.buf)) {
			return fmt.Errorf("truncate N, at most the buffer's %d bytes", len(cb.buf))
		}
		cb.buf = cb.buf[:len(cb.buf)-int(n)]
		return nil
	}
	if cb.b != nil {
		cb.b.Buf = cb.buf
	}
	var err error
	switch w[0] {
	case "layout":
		err = cb.layout(w)
	case "enter":
		err = cb.enter(w)
	case "set":
		var t abi.CoreType
		var block uint32
		if t, block, err = parseSlot(w[1]); err != nil || cb.b == nil {
			return fmt.Errorf("set SLOT field=value... after a layout line: %v", err)
		}
		err = setHeader(cb.buf[cb.b.Slot(t, block).Offset:], w[2:])
	case "header":
		err = cb.header(w)
	default:
		return fmt.Errorf("unknown directive")
	}
	if err != nil {
		return err
	}
	if cb.b != nil {
		cb.buf = cb.b.Buf
	}
	return nil
}

// layout starts the capture: layout cube=C aic=K aiv=K.
func (cb *caseBuilder) layout(w []string) error {
	kv, err := keyValues(w[1:])
	if err != nil {
		return err
	}
	cube := uint32(kv["cube"])
	delete(kv, "cube")
	caps, err := capacities(kv)
	if err != nil {
		return err
	}
	if err := noneLeft(kv); err != nil {
		return err
	}
	if _, err := abi.NewLayout(cube, caps); err != nil {
		return err
	}
	cb.b = NewWith(cube, caps)
	return nil
}

// enter enters a slot and writes records: enter SLOT [records=N].
func (cb *caseBuilder) enter(w []string) error {
	t, block, err := parseSlot(w[1])
	if err != nil || cb.b == nil {
		return fmt.Errorf("enter SLOT [records=N] after a layout line: %v", err)
	}
	kv, err := keyValues(w[2:])
	if err != nil {
		return err
	}
	cb.b.Enter(t, block, 1)
	for i := range kv["records"] {
		cb.b.Span(t, block, 100+10*i, 105+10*i, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), uint32(i))
	}
	delete(kv, "records")
	return noneLeft(kv)
}

// header writes a header anywhere: header @OFFSET SLOT capacity=K.
func (cb *caseBuilder) header(w []string) error {
	if len(w) < 3 || !strings.HasPrefix(w[1], "@") {
		return fmt.Errorf("header @OFFSET SLOT capacity=K")
	}
	off, err := strconv.ParseUint(w[1][1:], 0, 64)
	if err != nil {
		return err
	}
	t, block, err := parseSlot(w[2])
	if err != nil {
		return err
	}
	kv, err := keyValues(w[3:])
	if err != nil {
		return err
	}
	if off+abi.CoreHeaderSize > uint64(len(cb.buf)) {
		return fmt.Errorf("the buffer has %d bytes", len(cb.buf))
	}
	h := abi.CoreHeader{EntryCycle: 1, CoreType: t, BlockID: block, RecordCapacity: uint32(kv["capacity"])}
	h.Append(cb.buf[off:off])
	delete(kv, "capacity")
	return noneLeft(kv)
}

// append appends bytes: append N [FILL].
func (cb *caseBuilder) append(w []string) error {
	n, err := strconv.ParseUint(w[1], 0, 32)
	if err != nil {
		return err
	}
	fill := uint64(0)
	if len(w) > 2 {
		if fill, err = strconv.ParseUint(w[2], 0, 8); err != nil {
			return err
		}
	}
	cb.buf = append(cb.buf, bytes.Repeat([]byte{byte(fill)}, int(n))...)
	return nil
}

// setHeader overwrites header fields at the start of h, by schema name.
func setHeader(h []byte, words []string) error {
	kv, err := keyValues(words)
	if err != nil {
		return err
	}
	for _, f := range abi.CoreHeaderFields() {
		v, ok := kv[f.Name]
		if !ok {
			continue
		}
		switch f.Size {
		case 4:
			binary.LittleEndian.PutUint32(h[f.Offset:], uint32(v))
		case 8:
			binary.LittleEndian.PutUint64(h[f.Offset:], v)
		default:
			return fmt.Errorf("%s is not a u32 or u64 field", f.Name)
		}
		delete(kv, f.Name)
	}
	return noneLeft(kv)
}

// RenderResolution writes Resolve's answer as a case's want section: the
// layout, its source and how it was found (and the hint and missing bytes
// when there are any), or the problem's code, offset, slot, message and
// hint, or the request error.
func RenderResolution(res *capture.Resolved, err error) string {
	var b strings.Builder
	if err != nil {
		var p *capture.Problem
		if !errors.As(err, &p) {
			return "request error: " + err.Error() + "\n"
		}
		fmt.Fprintf(&b, "error %s @%#x", p.Code, p.Off)
		if p.Slot != "" {
			fmt.Fprintf(&b, " slot %s", p.Slot)
		}
		fmt.Fprintf(&b, "\nmessage %s\n", p.Message())
		if p.Hint != "" {
			fmt.Fprintf(&b, "hint %s\n", p.Hint)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "layout (%s)\nsource %s\nhow %s\n", res.Layout, res.Source, res.How)
	if res.Hint != "" {
		fmt.Fprintf(&b, "hint %s\n", res.Hint)
	}
	if res.Missing != 0 {
		fmt.Fprintf(&b, "missing %d\n", res.Missing)
	}
	return b.String()
}
