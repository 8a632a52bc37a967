package validate_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
)

// The text form of a capture used by the txtar cases in testdata: one
// directive per line, run in order; '#' starts a comment.
//
//	layout cube=24 aic=16 aiv=32          the buffer, every slot unused (first line)
//	slot AIV/3 entry=1000 [dropped=2]     the core enters (abi.InitSlot); records follow
//	record start=1100 end=1200 [desc=TaskType_MatMul|WaitDependency|0x30005]
//	       [task=1] [index=0] [owner=7]   appended as the device does (abi.WriteRecord)
//	set AIV/3 reserved=1 core_type=1      overwrite header fields, by schema name
//	set AIV/3 record 1 end_cycle=5        overwrite a record's fields, by schema name
//	set AIV/3 padding[3]=0x7f             overwrite one byte of a field
//	fill 16 start=1100 [step=10] [len=5]  append 16 records start, start+step, ... each len long
//	poke @0x1234 u32 7                    raw little-endian write (u8, u16, u32, u64)
//	truncate 32                           drop the buffer's last 32 bytes
//	append 64 [0xff]                      append 64 bytes (zero, or the byte given)
//	npy [{'descr': ...}]                  store the buffer as a .npy file (with this header dict)
//	text {"tasks": []}                    the file is this line of text instead (not a capture)
//	option plan cube=24 aic=16 aiv=32     validate against a host plan
//	option worker AIV/2 worker=1 tasks=5  the host plan runs its AIV worker 1, with 5 tasks, on AIV/2 (after option plan)
//	option capacities aic=16 aiv=16       validate with host-planned capacities
//	option cube-slots 32                  validate with this cube slot count
//	option max-findings 2                 keep at most 2 findings per code
//
// Records default to desc=TaskType_MatMul task=0 index=0 and no owner.

// textCapture is a parsed text form: the capture's bytes and how to validate it.
type textCapture struct {
	bytes []byte
	opts  validate.Options
}

func parseCaptureText(text string) (*textCapture, error) {
	p := textParser{tc: &textCapture{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	line := 0
	for sc.Scan() {
		line++
		s, _, _ := strings.Cut(sc.Text(), "#")
		words := strings.Fields(s)
		if len(words) == 0 {
			continue
		}
		if err := p.directive(words, strings.TrimSpace(s)); err != nil {
			return nil, fmt.Errorf("line %d: %q: %w", line, strings.TrimSpace(s), err)
		}
	}
	if p.b == nil {
		return nil, fmt.Errorf("no layout line")
	}
	p.tc.bytes = p.b.Bytes()
	if p.npy {
		if p.npyHeader == "" {
			p.tc.bytes = capturetest.NPY(p.tc.bytes)
		} else {
			p.tc.bytes = capturetest.NPYWithHeader(p.npyHeader, p.tc.bytes)
		}
	}
	return p.tc, nil
}

type textParser struct {
	tc  *textCapture
	b   *capturetest.Builder
	cur *abi.Slot // the slot records go to
	npy bool
	// npyHeader is the .npy header dict; "" for the one NumPy writes.
	npyHeader string
}

func (p *textParser) directive(w []string, line string) error {
	if p.b == nil && w[0] != "layout" && w[0] != "option" {
		return fmt.Errorf("the first directive must be layout")
	}
	switch w[0] {
	case "layout":
		kv, err := keyValues(w[1:], "cube", "aic", "aiv")
		if err != nil {
			return err
		}
		l, err := abi.NewLayout(uint32(kv["cube"]), abi.Capacities{AIC: uint32(kv["aic"]), AIV: uint32(kv["aiv"])})
		if err != nil {
			return err
		}
		p.b = capturetest.New(l.CubeSlots, l.Capacities.AIC, l.Capacities.AIV)
	case "slot":
		if len(w) < 2 {
			return fmt.Errorf("slot needs a slot name")
		}
		s, err := p.slot(w[1])
		if err != nil {
			return err
		}
		kv, err := keyValues(w[2:], "entry", "dropped")
		if err != nil {
			return err
		}
		p.b.Enter(s.CoreType, s.BlockID, kv["entry"])
		p.b.SetHeader32(s.CoreType, s.BlockID, abi.CoreHeaderDroppedCountOffset, uint32(kv["dropped"]))
		p.cur = &s
	case "record":
		if p.cur == nil {
			return fmt.Errorf("record before any slot")
		}
		r, err := parseRecord(w[1:])
		if err != nil {
			return err
		}
		p.b.Write(p.cur.CoreType, p.cur.BlockID, r)
	case "fill":
		if p.cur == nil {
			return fmt.Errorf("fill before any slot")
		}
		if len(w) < 2 {
			return fmt.Errorf("want fill N start=S [step=D] [len=L] [record keys]")
		}
		n, err := strconv.ParseUint(w[1], 0, 32)
		if err != nil {
			return err
		}
		step, length := uint64(10), uint64(5)
		var keys []string
		for _, a := range w[2:] {
			k, v, _ := strings.Cut(a, "=")
			switch k {
			case "step":
				step, err = strconv.ParseUint(v, 0, 64)
			case "len":
				length, err = strconv.ParseUint(v, 0, 64)
			default:
				keys = append(keys, a)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		r, err := parseRecord(keys)
		if err != nil {
			return err
		}
		for range n {
			r.EndCycle = r.StartCycle + length
			p.b.Write(p.cur.CoreType, p.cur.BlockID, r)
			r.StartCycle += step
		}
	case "set":
		return p.set(w[1:])
	case "poke":
		if len(w) != 4 || !strings.HasPrefix(w[1], "@") {
			return fmt.Errorf("want poke @OFFSET TYPE VALUE")
		}
		off, err := strconv.ParseUint(w[1][1:], 0, 64)
		if err != nil {
			return err
		}
		v, err := strconv.ParseUint(w[3], 0, 64)
		if err != nil {
			return err
		}
		return poke(p.b.Buf, off, w[2], v)
	case "truncate":
		n, err := oneNumber(w)
		if err != nil {
			return err
		}
		if n > uint64(len(p.b.Buf)) {
			return fmt.Errorf("truncate %d of %d bytes", n, len(p.b.Buf))
		}
		p.b.Buf = p.b.Buf[:uint64(len(p.b.Buf))-n]
	case "append":
		if len(w) < 2 || len(w) > 3 {
			return fmt.Errorf("want append N [BYTE]")
		}
		n, err := strconv.ParseUint(w[1], 0, 32)
		if err != nil {
			return err
		}
		fill := uint64(0)
		if len(w) == 3 {
			if fill, err = strconv.ParseUint(w[2], 0, 8); err != nil {
				return err
			}
		}
		for range n {
			p.b.Buf = append(p.b.Buf, byte(fill))
		}
	case "npy":
		p.npy = true
		p.npyHeader = strings.TrimSpace(strings.TrimPrefix(line, "npy"))
	case "text":
		// The whole file is this text (a file that is not a capture).
		p.b.Buf = []byte(strings.TrimSpace(strings.TrimPrefix(line, "text")) + "\n")
	case "option":
		return p.option(w[1:])
	default:
		return fmt.Errorf("unknown directive %q", w[0])
	}
	return nil
}

// parseRecord parses a record's key=value words.
func parseRecord(words []string) (abi.ProfileRecord, error) {
	r := abi.ProfileRecord{DescID: abi.TaskTypeBase + uint32(abi.TaskTypeMatMul), OwnerID: abi.InvalidOwnerID}
	for _, a := range words {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return r, fmt.Errorf("%q is not key=value", a)
		}
		var err error
		switch k {
		case "start":
			r.StartCycle, err = strconv.ParseUint(v, 0, 64)
		case "end":
			r.EndCycle, err = strconv.ParseUint(v, 0, 64)
		case "desc":
			r.DescID, err = parseDesc(v)
		case "task":
			r.TaskID, err = parse32(v)
		case "index":
			r.StageTaskIndex, err = parse32(v)
		case "owner":
			r.OwnerID, err = parse32(v)
		default:
			return r, fmt.Errorf("unknown record key %q", k)
		}
		if err != nil {
			return r, fmt.Errorf("%s: %w", k, err)
		}
	}
	return r, nil
}

func (p *textParser) slot(name string) (abi.Slot, error) {
	t, id, ok := strings.Cut(name, "/")
	ct, okType := abi.ParseCoreType(t)
	block, err := strconv.ParseUint(id, 10, 32)
	if !ok || !okType || err != nil {
		return abi.Slot{}, fmt.Errorf("bad slot name %q (want AIC/3)", name)
	}
	s, ok := p.b.Layout.SlotOf(ct, uint32(block))
	if !ok {
		return abi.Slot{}, fmt.Errorf("the layout has no slot %s", name)
	}
	return s, nil
}

// set overwrites header or record fields by their schema names.
func (p *textParser) set(w []string) error {
	if len(w) < 2 {
		return fmt.Errorf("want set SLOT [record N] field=value...")
	}
	s, err := p.slot(w[0])
	if err != nil {
		return err
	}
	base, fields, rest := s.Offset, abi.CoreHeaderFields(), w[1:]
	if rest[0] == "record" {
		if len(rest) < 3 {
			return fmt.Errorf("want set SLOT record N field=value...")
		}
		i, err := strconv.ParseUint(rest[1], 10, 32)
		if err != nil {
			return err
		}
		if i >= uint64(s.Capacity) {
			return fmt.Errorf("record %d is past the slot's capacity %d", i, s.Capacity)
		}
		base += abi.CoreHeaderSize + i*abi.ProfileRecordSize
		fields, rest = abi.ProfileRecordFields(), rest[2:]
	}
	for _, a := range rest {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q is not field=value", a)
		}
		k, index, isByte := strings.Cut(strings.TrimSuffix(k, "]"), "[")
		f, ok := fieldNamed(fields, k)
		if !ok {
			return fmt.Errorf("no field %q", k)
		}
		x, err := strconv.ParseUint(v, 0, 64)
		if err != nil {
			return err
		}
		off, typ := base+uint64(f.Offset), f.Type
		if isByte { // one byte of a field: padding[3]=0x7f
			i, err := strconv.ParseUint(index, 10, 32)
			if err != nil || i >= uint64(f.Size) {
				return fmt.Errorf("%s has no byte %q", f.Name, index)
			}
			off, typ = off+i, "u8"
		}
		if err := poke(p.b.Buf, off, typ, x); err != nil {
			return err
		}
	}
	return nil
}

func (p *textParser) option(w []string) error {
	if len(w) == 0 {
		return fmt.Errorf("option needs a name")
	}
	o := &p.tc.opts
	switch w[0] {
	case "plan":
		kv, err := keyValues(w[1:], "cube", "aic", "aiv")
		if err != nil {
			return err
		}
		o.Layout.Plan = &validate.Plan{Name: "plan.yaml", CubeSlots: uint32(kv["cube"]),
			Capacities: abi.Capacities{AIC: uint32(kv["aic"]), AIV: uint32(kv["aiv"])}}
	case "worker":
		if o.Layout.Plan == nil || len(w) < 2 {
			return fmt.Errorf("option worker needs a slot name, and option plan before it")
		}
		s, err := p.slot(w[1])
		if err != nil {
			return err
		}
		kv, err := keyValues(w[2:], "worker", "tasks")
		if err != nil {
			return err
		}
		prev := o.Layout.Plan.WorkerOn
		o.Layout.Plan.WorkerOn = func(t abi.CoreType, block uint32) (uint32, int) {
			if t == s.CoreType && block == s.BlockID {
				return uint32(kv["worker"]), int(kv["tasks"])
			}
			if prev != nil {
				return prev(t, block)
			}
			return 0, 0
		}
	case "capacities":
		kv, err := keyValues(w[1:], "aic", "aiv")
		if err != nil {
			return err
		}
		o.Layout.Capacities = &abi.Capacities{AIC: uint32(kv["aic"]), AIV: uint32(kv["aiv"])}
	case "cube-slots":
		n, err := oneNumber(w)
		if err != nil {
			return err
		}
		o.Layout.CubeSlots = uint32(n)
	case "max-findings":
		n, err := oneNumber(w)
		if err != nil {
			return err
		}
		o.MaxFindings = int(n)
	default:
		return fmt.Errorf("unknown option %q", w[0])
	}
	return nil
}

func fieldNamed(fields []abi.FieldInfo, name string) (abi.FieldInfo, bool) {
	for _, f := range fields {
		if f.Name == name {
			return f, true
		}
	}
	return abi.FieldInfo{}, false
}

func poke(buf []byte, off uint64, typ string, v uint64) error {
	size := map[string]uint64{"u8": 1, "u16": 2, "u32": 4, "u64": 8}[typ]
	if size == 0 {
		return fmt.Errorf("unknown type %q (u8, u16, u32, u64)", typ)
	}
	if off+size > uint64(len(buf)) {
		return fmt.Errorf("@%#x %s is past the buffer's %d bytes", off, typ, len(buf))
	}
	if size < 8 && v>>(8*size) != 0 {
		return fmt.Errorf("%d does not fit a %s", v, typ)
	}
	b := buf[off:]
	switch size {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
	return nil
}

// keyValues parses key=value words, numbers in Go syntax; only the keys
// allowed are accepted.
func keyValues(words []string, allowed ...string) (map[string]uint64, error) {
	kv := map[string]uint64{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not key=value", w)
		}
		if !contains(allowed, k) {
			return nil, fmt.Errorf("unknown key %q (want %s)", k, strings.Join(allowed, ", "))
		}
		x, err := strconv.ParseUint(v, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		kv[k] = x
	}
	return kv, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func oneNumber(w []string) (uint64, error) {
	if len(w) != 2 {
		return 0, fmt.Errorf("want %s N", w[0])
	}
	return strconv.ParseUint(w[1], 0, 64)
}

func parse32(s string) (uint32, error) {
	v, err := strconv.ParseUint(s, 0, 32)
	return uint32(v), err
}

// descNames maps the schema's descriptor names ("TaskType_MatMul",
// "WaitDependency") to their ids.
var descNames = func() map[string]uint32 {
	m := map[string]uint32{}
	for _, ns := range abi.Namespaces() {
		for id := ns.Base(); id-ns.Base() < ns.Count(); id++ {
			if name, ok := abi.DescSchemaName(id); ok {
				m[name] = id
			}
		}
	}
	return m
}()

func parseDesc(s string) (uint32, error) {
	if id, ok := descNames[s]; ok {
		return id, nil
	}
	v, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is neither a descriptor name the schema has nor a number", s)
	}
	return uint32(v), nil
}

// decodeError runs package decode on a capture with the layout options
// validate used, and returns its error.
func decodeError(b []byte, lo capture.Request) error {
	c, err := capture.FromBytes("capture.bin", b)
	if err != nil {
		return err
	}
	_, err = decode.Decode(c, lo)
	return err
}
