package analyze

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsonread"
	"github.com/megakernel/cycleabi/internal/yamlpos"
)

// ReadReport reads a report written by Report.WriteJSON from data. Its
// errors name the file and, where a place is to blame, the line and
// column ("base.json:12:7: ...").
func ReadReport(name string, data []byte) (*Report, error) {
	return readReport(name, jsonread.NewBytes(name, data), false)
}

// ReadReportFrom reads a report from src, named name in errors, as
// ReadReport does, as it streams: it holds a buffer of the text, never
// the whole of it, and each critical path's segments go straight into
// their packed form (16 bytes a segment). An error reading src is
// returned as it is (wrapped with name), any other is the report's.
func ReadReportFrom(name string, src io.Reader) (*Report, error) {
	return readReport(name, jsonread.NewSize(name, src, 256<<10), false)
}

// ReadReportToCompare reads a report as ReadReportFrom does, for Compare:
// the cores and the critical path's segments, which Compare does not
// look at, are read and checked as every value is but not kept (Cores
// and CriticalPath.Segments are empty), so that what it holds does not
// grow with them (a report of 1M cores took 352 MiB to diff, two of 2M
// segments 257 MiB).
func ReadReportToCompare(name string, src io.Reader) (*Report, error) {
	return readReport(name, jsonread.NewSize(name, src, 256<<10), true)
}

// notReport starts the message of every error in a report's text.
const notReport = "not an analyze --format json report: "

func readReport(name string, r *jsonread.Reader, lean bool) (*Report, error) {
	// NaN and Infinity come back as literals, to be refused by name.
	r.Columns, r.NonFinite = true, true
	d := &reportReader{r: r, name: name, lean: lean}
	var rep Report
	err := d.value(reflect.ValueOf(&rep).Elem())
	if err == nil && !r.AtEnd() {
		err = d.errAt(d.here(), "%smore after the report's closing brace", notReport)
	}
	if err == nil {
		err = r.IOErr()
	}
	if err != nil {
		return nil, d.place(err)
	}
	if rep.ABIFingerprint == "" || len(rep.Ranks) == 0 {
		return nil, &yamlpos.Error{File: name, Msg: "not an analyze --format json report (no abi_fingerprint or ranks)"}
	}
	if rep.ABIVersion < 1 || rep.ABIVersion > abi.Version {
		at := d.versionAt
		if at.line == 0 {
			at = d.here() // no abi_version: the end of the report
		}
		return nil, d.errAt(at, "abi_version %d: this cycleabi reads reports of ABI versions 1 to %d", rep.ABIVersion, abi.Version)
	}
	for i, k := range rep.Ranks {
		if k == nil {
			return nil, &yamlpos.Error{File: name, Msg: fmt.Sprintf("ranks[%d] is null", i)}
		}
	}
	return &rep, nil
}

// reportReader maps a report's JSON onto Report as jsonread reads it,
// value by value, by the fields' json tags (as encoding/json maps them:
// keys matched exactly, else without regard to case; unknown keys
// skipped; null leaves a value as it is, or empties a pointer, map or
// slice), and refuses a value of the wrong kind at its start.
type reportReader struct {
	r    *jsonread.Reader
	name string
	// path is the keys from the report down to the value being read,
	// which messages name ("ranks.records"). A path's segments are named
	// from "critical_path".
	path []string
	// rank is the rank being read: its start cycle and frequency are what
	// its path's segments' µs are derived from.
	rank *Rank
	// versionAt is where abi_version's value is (line 0: not read).
	versionAt pos
	// strs holds each distinct string of the segments once, while
	// interning is set.
	strs      map[string]string
	interning bool
	structs   map[reflect.Type]*structInfo
	// held is the bytes of the values made so far (see hold).
	held uint64
	// lean reads the cores and segments without keeping them
	// (ReadReportToCompare).
	lean bool
}

// pos is where a value starts: 1-based line and column (in characters),
// byte offset.
type pos struct {
	line, col int
	off       int64
}

// here is where the next value starts.
func (d *reportReader) here() pos {
	d.r.Peek()
	return pos{line: d.r.Pos().Line, col: d.r.Col(), off: d.r.Offset()}
}

// errAt is an error at p of the report.
func (d *reportReader) errAt(p pos, format string, args ...any) error {
	return &yamlpos.Error{File: d.name, Line: p.line, Col: p.col, Msg: fmt.Sprintf(format, args...)}
}

// place turns an error of the reader into the report's error at its
// line and column: a read error as it is, a report that ends too soon at
// its end.
func (d *reportReader) place(err error) error {
	if ioErr := d.r.IOErr(); ioErr != nil {
		return ioErr
	}
	var je *jsonread.Error
	if !errors.As(err, &je) {
		return err
	}
	// jsonread places its errors at the byte it stopped at, where the
	// reader is (the value's start for a literal, placed by literal).
	col := d.r.Col()
	if gap := d.r.Offset() - je.Offset; gap > 0 && int64(col) > gap {
		col -= int(gap)
	}
	if d.r.AtEnd() {
		return d.errAt(d.here(), "%sit ends before the report does (truncated?)", notReport)
	}
	return &yamlpos.Error{File: d.name, Line: je.Line, Col: col, Msg: notReport + je.Msg}
}

// reportSlack is what a report may hold besides twice its text (see
// hold).
var reportSlack uint64 = 64 << 20

// Sizes of a segment held packed, of an odd one's entry besides, and of a
// distinct form of segment.
const (
	packedSize = 16
	oddSize    = 48
)

var formSize = 3 * reflect.TypeFor[segForm]().Size()

// hold counts n bytes of values made from the report's text, and refuses
// a report whose values take more than twice its text so far (plus
// reportSlack): a report analyze wrote takes less than its text (its
// segments 16 bytes for some 300 of text), but "{}," makes a rank of some
// 300 bytes, and a hostile gigabyte of them would take a hundred.
func (d *reportReader) hold(at pos, n uintptr) error {
	d.held += uint64(n)
	if limit := 2*uint64(d.r.Offset()) + reportSlack; d.held > limit {
		return d.errAt(at, "%sits values would take more than %d bytes after %d bytes of text (twice the text, and %d MiB): not what analyze writes", notReport, limit, d.r.Offset(), reportSlack>>20)
	}
	return nil
}

// mismatch is a value of kind what where a value of type t goes.
func (d *reportReader) mismatch(at pos, what string, t reflect.Type) error {
	field := strings.Join(d.path, ".")
	if field == "" {
		field = "the report"
	}
	return d.errAt(at, "%s%s: a %s where a %s goes", notReport, field, what, t)
}

// literal reads a number, true, false or null at at.
func (d *reportReader) literal(at pos) ([]byte, error) {
	lit, err := d.r.Literal()
	if err != nil {
		var je *jsonread.Error
		if errors.As(err, &je) && je.Offset == at.off && !d.r.AtEnd() {
			return nil, d.errAt(at, "%s%s", notReport, je.Msg)
		}
		return nil, err
	}
	switch string(lit) {
	case "NaN":
		return nil, d.errAt(at, "%sinvalid character 'N' looking for beginning of value", notReport)
	case "Infinity":
		return nil, d.errAt(at, "%sinvalid character 'I' looking for beginning of value", notReport)
	case "-Infinity":
		at.col++
		return nil, d.errAt(at, "%sinvalid character 'I' in numeric literal", notReport)
	}
	return lit, nil
}

// kindOf names, as messages do, the value that starts with c; a
// literal is read to tell.
func (d *reportReader) kindOf(c byte, at pos) (string, error) {
	switch c {
	case '{':
		return "object", nil
	case '[':
		return "array", nil
	case '"':
		return "string", nil
	}
	lit, err := d.literal(at)
	switch {
	case err != nil:
		return "", err
	case string(lit) == "null":
		return "null", nil
	case string(lit) == "true" || string(lit) == "false":
		return "bool", nil
	}
	return "number", nil
}

var (
	segmentsType = reflect.TypeFor[Segments]()
	rankType     = reflect.TypeFor[Rank]()
	reportType   = reflect.TypeFor[Report]()
)

// value reads the next value into v.
func (d *reportReader) value(v reflect.Value) error {
	r := d.r
	c := r.Peek()
	if r.AtEnd() {
		return r.Errorf("expected a JSON value, found %s", r.Found())
	}
	at := d.here()
	if v.Kind() == reflect.Pointer {
		if c == 'n' { // null: a literal of n is no other
			if _, err := d.literal(at); err != nil {
				return err
			}
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			if err := d.hold(at, v.Type().Elem().Size()); err != nil {
				return err
			}
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.value(v.Elem())
	}
	if v.Type() == segmentsType {
		return d.segments(v.Addr().Interface().(*Segments))
	}
	switch {
	case c == '{' && v.Kind() == reflect.Struct:
		return d.object(v)
	case c == '{' && v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String:
		return d.mapValue(v)
	case c == '[' && v.Kind() == reflect.Slice:
		return d.slice(v)
	case c == '"' && v.Kind() == reflect.String:
		b, err := r.Str()
		if err != nil {
			return err
		}
		d.setString(v, b)
		return nil
	case c == '{' || c == '[' || c == '"':
		what, _ := d.kindOf(c, at)
		return d.mismatch(at, what, v.Type())
	}
	lit, err := d.literal(at)
	if err != nil {
		return err
	}
	switch string(lit) {
	case "null":
		switch v.Kind() {
		case reflect.Map, reflect.Slice, reflect.Interface:
			v.SetZero()
		}
		return nil
	case "true", "false":
		if v.Kind() != reflect.Bool {
			return d.mismatch(at, "bool", v.Type())
		}
		v.SetBool(lit[0] == 't')
		return nil
	}
	switch v.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := parseUint(lit, v.Type().Bits())
		if !ok {
			return d.mismatch(at, "number "+string(lit), v.Type())
		}
		v.SetUint(n)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(lit), 10, v.Type().Bits())
		if err != nil {
			return d.mismatch(at, "number "+string(lit), v.Type())
		}
		v.SetInt(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(string(lit), v.Type().Bits())
		if err != nil {
			return d.mismatch(at, "number "+string(lit), v.Type())
		}
		v.SetFloat(f)
	default:
		return d.mismatch(at, "number", v.Type())
	}
	return nil
}

// parseUint parses a JSON number that is an integer of at most bits
// bits; the common case, up to 19 digits, without strconv's string.
func parseUint(lit []byte, bits int) (uint64, bool) {
	if len(lit) == 0 || len(lit) > 19 {
		n, err := strconv.ParseUint(string(lit), 10, bits)
		return n, err == nil
	}
	var n uint64
	for _, c := range lit {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if len(lit) > 1 && lit[0] == '0' || bits < 64 && n >= 1<<bits {
		return 0, false
	}
	return n, true
}

// setString sets v to b, each distinct string once while interning.
func (d *reportReader) setString(v reflect.Value, b []byte) {
	if !d.interning {
		v.SetString(string(b))
		return
	}
	s, ok := d.strs[string(b)]
	if !ok {
		s = string(b)
		d.strs[s] = s
		d.held += uint64(len(s)) + 48 // checked at the segment's end
	}
	v.SetString(s)
}

// structInfo is a struct's fields by JSON name.
type structInfo struct {
	names  []string
	index  []int
	byName map[string]int
}

func (d *reportReader) structOf(t reflect.Type) *structInfo {
	if info := d.structs[t]; info != nil {
		return info
	}
	info := &structInfo{byName: map[string]int{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		info.byName[name] = len(info.names)
		info.names = append(info.names, name)
		info.index = append(info.index, i)
	}
	if d.structs == nil {
		d.structs = map[reflect.Type]*structInfo{}
	}
	d.structs[t] = info
	return info
}

// object reads an object into struct v.
func (d *reportReader) object(v reflect.Value) error {
	info := d.structOf(v.Type())
	if v.Type() == rankType {
		defer func(prev *Rank) { d.rank = prev }(d.rank)
		d.rank = v.Addr().Interface().(*Rank)
	}
	return d.r.Object("", func(key []byte, _ jsonread.Pos) error {
		i, ok := info.byName[string(key)]
		if !ok {
			for j, name := range info.names {
				if strings.EqualFold(name, string(key)) {
					i, ok = j, true
					break
				}
			}
		}
		if !ok {
			return d.r.Skip()
		}
		name := info.names[i]
		if v.Type() == reportType && name == "abi_version" {
			d.versionAt = d.here()
		}
		d.path = append(d.path, name)
		err := d.value(v.Field(info.index[i]))
		d.path = d.path[:len(d.path)-1]
		return err
	})
}

// mapValue reads an object into map v (string keys).
func (d *reportReader) mapValue(v reflect.Value) error {
	t := v.Type()
	if v.IsNil() {
		v.Set(reflect.MakeMap(t))
	}
	return d.r.Object("", func(key []byte, _ jsonread.Pos) error {
		// The key's bytes are the reader's: copied before the value is
		// read.
		k := reflect.ValueOf(string(key)).Convert(t.Key())
		if err := d.hold(d.here(), t.Key().Size()+t.Elem().Size()+uintptr(len(key))); err != nil {
			return err
		}
		e := reflect.New(t.Elem()).Elem()
		if err := d.value(e); err != nil {
			return err
		}
		v.SetMapIndex(k, e)
		return nil
	})
}

// elements reads an array, calling elem for each element.
func (d *reportReader) elements(elem func() error) error {
	r := d.r
	r.Advance() // '['
	if r.Peek() == ']' {
		r.Advance()
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch r.Peek() { // 0 at the end
		case ',':
			r.Advance()
			continue
		case ']':
			r.Advance()
			return nil
		}
		return r.Errorf("expected ',' or ']' after an array element, found %s", r.Found())
	}
}

var coresType = reflect.TypeFor[[]Core]()

// slice reads an array into slice v.
func (d *reportReader) slice(v reflect.Value) error {
	t := v.Type()
	out := reflect.MakeSlice(t, 0, 0)
	if d.lean && t == coresType && len(d.path) == 2 && d.path[1] == "cores" {
		// Each core read into one value, checked and dropped.
		e := reflect.New(t.Elem()).Elem()
		return d.elements(func() error {
			e.SetZero()
			return d.value(e)
		})
	}
	err := d.elements(func() error {
		if err := d.hold(d.here(), t.Elem().Size()); err != nil {
			return err
		}
		e := reflect.New(t.Elem()).Elem()
		if err := d.value(e); err != nil {
			return err
		}
		out = reflect.Append(out, e)
		return nil
	})
	if err != nil {
		return err
	}
	v.Set(out)
	return nil
}

// segments reads a path's segments into their packed form, as they
// come. Messages name them from "critical_path".
func (d *reportReader) segments(segs *Segments) error {
	r := d.r
	c := r.Peek()
	if r.AtEnd() {
		return r.Errorf("expected a JSON value, found %s", r.Found())
	}
	at := d.here()
	defer func(path []string, interning bool) { d.path, d.interning = path, interning }(d.path, d.interning)
	d.path = []string{"critical_path", "segments"}
	if c != '[' {
		what, err := d.kindOf(c, at)
		if err != nil {
			return err
		}
		if what == "null" {
			*segs = Segments{}
			return nil
		}
		return d.mismatch(at, what, reflect.TypeFor[[]Segment]())
	}
	var rankStart uint64
	var mhz float64
	if d.rank != nil {
		rankStart, mhz = d.rank.StartCycle, d.rank.CycleFrequencyMHz
	}
	p := newSegmentPacker(segs, rankStart, mhz)
	if d.strs == nil {
		d.strs = map[string]string{}
	}
	d.interning = !d.lean // lean: strings dropped with their segment
	var seg Segment
	sv := reflect.ValueOf(&seg).Elem()
	err := d.elements(func() error {
		seg = Segment{}
		if err := d.value(sv); err != nil {
			return err
		}
		if d.lean {
			return nil // checked, not kept
		}
		odd, forms := len(segs.odd), len(segs.forms)
		p.add(&seg)
		// A segment is held packed, an odd one besides (a map entry), and
		// each distinct form once (in the forms and the packer's index).
		return d.hold(at, packedSize+oddSize*uintptr(len(segs.odd)-odd)+formSize*uintptr(len(segs.forms)-forms))
	})
	if err != nil {
		return err
	}
	p.done()
	return nil
}
