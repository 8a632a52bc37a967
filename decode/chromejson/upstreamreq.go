package chromejson

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/internal/jsonread"
)

// ReadUpstreamRequest reads the JSON request the drop-in writes for
// WriteUpstream (docs/python.md): {"tables": {...}, "window": {...} or
// absent, "invocations": [{"config": {...}, "invocationId", "step",
// "direction", "kernelName"}]}. name names it in errors. The buffers are
// the caller's to attach, in order.
func ReadUpstreamRequest(name string, data []byte) (UpstreamExport, error) {
	q := newUpReader(name, data)
	x := UpstreamExport{Tables: DefaultUpstreamTables()}
	err := q.r.Object("the request", func(key []byte, _ jsonread.Pos) error {
		switch string(key) {
		case "tables":
			return q.tables(&x.Tables)
		case "window":
			if q.null() {
				return nil
			}
			x.Window = &UpstreamWindow{}
			return q.window(x.Window)
		case "invocations":
			return q.r.Array(false, "an invocation", func(raw []byte, _ jsonread.Pos) error {
				inv, err := readUpstreamInvocation(name, raw)
				x.Invocations = append(x.Invocations, inv)
				return err
			})
		}
		return q.r.Errorf("unknown key %q", key)
	})
	if err == nil {
		err = q.r.End("request")
	}
	if err != nil {
		return UpstreamExport{}, err
	}
	if t := x.Tables; t.CubeSlots < 0 || t.VectorSlots < 0 || t.CubeSlots+t.VectorSlots > 1<<20 {
		return UpstreamExport{}, fmt.Errorf("%s: tables: slot counts %d and %d out of range", name, t.CubeSlots, t.VectorSlots)
	}
	if x.Window == nil && len(x.Invocations) != 1 {
		return UpstreamExport{}, fmt.Errorf("%s: %d invocations without a window: one parse is one invocation", name, len(x.Invocations))
	}
	return x, nil
}

// upReader reads the request's values with jsonread.
type upReader struct{ r *jsonread.Reader }

func newUpReader(name string, data []byte) upReader {
	r := jsonread.NewBytes(name, data)
	r.CheckUTF8 = true
	return upReader{r}
}

func (q upReader) null() bool {
	if q.r.Peek() != 'n' {
		return false
	}
	lit, err := q.r.Literal()
	return err == nil && string(lit) == "null"
}

func (q upReader) str(dst *string) error {
	s, err := q.r.Str()
	*dst = string(s)
	return err
}

func (q upReader) optStr(dst **string) error {
	if q.null() {
		*dst = nil
		return nil
	}
	var s string
	*dst = &s
	return q.str(&s)
}

func (q upReader) boolean(dst *bool) error {
	lit, err := q.r.Literal()
	if err != nil {
		return err
	}
	switch string(lit) {
	case "true", "false":
		*dst = string(lit) == "true"
		return nil
	}
	return q.r.Errorf("expected true or false, found %s", lit)
}

// integer reads an integer in [lo, hi] (no fraction, no exponent).
func (q upReader) integer(lo, hi int64) (int64, error) {
	lit, err := q.r.Literal()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, q.r.Errorf("expected an integer in [%d, %d], found %s", lo, hi, lit)
	}
	return v, nil
}

func (q upReader) int64(dst *int64) (err error) {
	*dst, err = q.integer(-1<<63, 1<<63-1)
	return err
}

func (q upReader) optInt64(dst **int64) error {
	if q.null() {
		*dst = nil
		return nil
	}
	var v int64
	*dst = &v
	return q.int64(&v)
}

func (q upReader) optInt(dst **int, hi int64) error {
	if q.null() {
		*dst = nil
		return nil
	}
	v, err := q.integer(0, hi)
	n := int(v)
	*dst = &n
	return err
}

func (q upReader) optUint64(dst **uint64) error {
	if q.null() {
		*dst = nil
		return nil
	}
	lit, err := q.r.Literal()
	if err != nil {
		return err
	}
	v, err := strconv.ParseUint(string(lit), 10, 64)
	if err != nil {
		return q.r.Errorf("expected an integer in [0, 2^64), found %s", lit)
	}
	*dst = &v
	return nil
}

// number reads an int or a float as Python's json module does: a float
// when its text has a fraction or an exponent.
func (q upReader) number(dst *UpstreamNumber) error {
	lit, err := q.r.Literal()
	if err != nil {
		return err
	}
	s := string(lit)
	if strings.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return q.r.Errorf("expected a number, found %s", lit)
		}
		*dst = UpstreamNumber{Float: f}
		return nil
	}
	i, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return q.r.Errorf("expected a number, found %s", lit)
	}
	*dst = UpstreamNumber{Int: i}
	return nil
}

// names reads {"<id>": "name", ...}; null is no names.
func (q upReader) names(what string, dst *map[uint64]string) error {
	m := map[uint64]string{}
	*dst = m
	if q.null() {
		return nil
	}
	return q.r.Object(what, func(key []byte, _ jsonread.Pos) error {
		id, err := strconv.ParseUint(string(key), 10, 64)
		if err != nil {
			return q.r.Errorf("%s: key %q is not an id", what, key)
		}
		var name string
		if err := q.str(&name); err != nil {
			return err
		}
		m[id] = name
		return nil
	})
}

func (q upReader) tables(t *UpstreamTables) error {
	return q.r.Object("tables", func(key []byte, _ jsonread.Pos) error {
		switch string(key) {
		case "CUBE_SLOT_COUNT", "VECTOR_SLOT_COUNT":
			v, err := q.integer(0, 1<<20)
			if string(key) == "CUBE_SLOT_COUNT" {
				t.CubeSlots = int(v)
			} else {
				t.VectorSlots = int(v)
			}
			return err
		case "MAX_RECORDS_PER_CORE":
			var v *uint64
			err := q.optUint64(&v)
			if v != nil {
				t.MaxRecords = *v
			}
			return err
		case "DEFAULT_STAGE_NAMES":
			return q.names("DEFAULT_STAGE_NAMES", &t.StageNames)
		case "TASK_TYPE_NAMES":
			return q.names("TASK_TYPE_NAMES", &t.TaskTypeNames)
		}
		return q.r.Errorf("tables: unknown key %q", key)
	})
}

func (q upReader) window(w *UpstreamWindow) error {
	return q.r.Object("window", func(key []byte, _ jsonread.Pos) error {
		switch string(key) {
		case "windowIndex":
			return q.int64(&w.Index)
		case "detailedTaskNames":
			return q.boolean(&w.DetailedTaskNames)
		}
		return q.r.Errorf("window: unknown key %q", key)
	})
}

func readUpstreamInvocation(name string, raw []byte) (UpstreamInvocation, error) {
	q := newUpReader(name, raw)
	var inv UpstreamInvocation
	err := q.r.Object("an invocation", func(key []byte, _ jsonread.Pos) error {
		switch string(key) {
		case "config":
			return q.config(&inv.Config)
		case "invocationId":
			return q.int64(&inv.InvocationID)
		case "step":
			return q.int64(&inv.Step)
		case "direction":
			return q.str(&inv.Direction)
		case "kernelName":
			return q.str(&inv.KernelName)
		}
		return q.r.Errorf("invocation: unknown key %q", key)
	})
	return inv, err
}

func (q upReader) config(c *UpstreamConfig) error {
	return q.r.Object("config", func(key []byte, _ jsonread.Pos) error {
		switch string(key) {
		case "rank":
			return q.int64(&c.Rank)
		case "device_id":
			return q.optInt64(&c.DeviceID)
		case "cycle_frequency_mhz":
			return q.number(&c.CycleFrequencyMHz)
		case "detailed_task_names":
			return q.boolean(&c.DetailedTaskNames)
		case "kernel_name":
			return q.str(&c.KernelName)
		case "owner_label":
			return q.str(&c.OwnerLabel)
		case "stage_names":
			return q.names("stage_names", &c.StageNames)
		case "soc_name":
			return q.optStr(&c.SocName)
		case "task_stage_names":
			return q.names("task_stage_names", &c.TaskStageNames)
		case "cube_slot_count":
			return q.optInt(&c.CubeSlotCount, 1<<19)
		case "aic_record_capacity":
			return q.optUint64(&c.AICCapacity)
		case "aiv_record_capacity":
			return q.optUint64(&c.AIVCapacity)
		}
		return q.r.Errorf("config: unknown key %q", key)
	})
}
