package plan

import (
	"math"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsonread"
	"github.com/megakernel/cycleabi/internal/yamlpos"
)

// parseJSON is the path for schedules written as JSON: it builds the
// Schedule from the tokens of jsonread (the reader every JSON input goes
// through) without a node tree (BenchmarkParseSchedule in
// docs/performance.md says what that saves). It accepts only
// what it is sure parseYAML reads the same way (JSON, which parseYAML
// reads with jsonread too; no exponents or fractions, no unknown or
// duplicate keys, every value in range) and reports ok=false for anything
// else, which then goes through parseYAML and gets its error message
// there. FuzzJSONMatchesYAML holds the two to agreeing.
//
// stop is the offset where the reader stopped, for a message when the
// file is too large for the YAML parser.
func parseJSON(data []byte) (s *Schedule, stop int, ok bool) {
	j := newJSONScanner(data)
	s = &Schedule{}
	if !j.schedule(s) || !j.AtEnd() {
		return nil, int(j.r.Offset()), false
	}
	return s, int(j.r.Offset()), true
}

// taskTypeByName is abi.ParseTaskType as a map, which a []byte key can
// index without allocating.
var taskTypeByName = func() map[string]abi.TaskType {
	m := map[string]abi.TaskType{}
	for _, t := range abi.TaskTypes() {
		m[t.String()] = t
	}
	return m
}()

// jsonScanner reads a schedule's tokens, reporting false (and the
// reader's offset says where) at the first it does not take.
type jsonScanner struct {
	r *jsonread.Reader
	// family is the kernel_family read so far, whose table names a task
	// type; named says a task type was given by name (a kernel_family
	// after it is left to parseYAML, which reads the family first).
	family abi.Family
	named  bool
}

func newJSONScanner(data []byte) *jsonScanner {
	r := jsonread.NewBytes("", data)
	r.CheckUTF8 = true
	return &jsonScanner{r: r}
}

// Peek returns the next byte after white space, 0 at the end.
func (j *jsonScanner) Peek() byte { return j.r.Peek() }

// AtEnd reports whether only white space is left.
func (j *jsonScanner) AtEnd() bool { return j.r.AtEnd() }

// Punct consumes c after white space.
func (j *jsonScanner) Punct(c byte) bool {
	if j.r.Peek() != c || c == 0 {
		return false
	}
	j.r.Advance()
	return true
}

// Str reads a string, decoded; valid until the next read.
func (j *jsonScanner) Str() ([]byte, bool) {
	s, err := j.r.Str()
	return s, err == nil
}

// Int reads an integer in [lo, hi]: an optional minus, then at most 18
// digits; a fraction or exponent makes it not an integer.
func (j *jsonScanner) Int(lo, hi int64) (int64, bool) {
	if c := j.r.Peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	lit, err := j.r.Literal()
	if err != nil {
		return 0, false
	}
	digits := lit
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 18 {
		return 0, false
	}
	// At most 18 digits: no overflow. Literal checked the grammar.
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if lit[0] == '-' {
		v = -v
	}
	return v, lo <= v && v <= hi
}

// Null consumes a JSON null.
func (j *jsonScanner) Null() bool {
	if j.r.Peek() != 'n' {
		return false
	}
	lit, err := j.r.Literal()
	return err == nil && string(lit) == "null"
}

// Array reads [item, ...], calling item for each.
func (j *jsonScanner) Array(item func() bool) bool {
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
func (j *jsonScanner) Object(field func(key []byte) bool) bool {
	if !j.Punct('{') {
		return false
	}
	if j.Punct('}') {
		return true
	}
	for {
		key, _, err := j.r.Key()
		if err != nil || !field(key) {
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

// object reads {"key": value, ...} with keys from keys, calling field for
// each, which must read the value. Duplicate keys and keys not in keys fail.
func (j *jsonScanner) object(keys []string, field func(key int) bool) (seen uint64, ok bool) {
	ok = j.Object(func(name []byte) bool {
		key := -1
		for k, known := range keys {
			if string(name) == known {
				key = k
				break
			}
		}
		if key < 0 || seen&(1<<key) != 0 || !field(key) {
			return false
		}
		seen |= 1 << key
		return true
	})
	if !ok {
		return 0, false
	}
	return seen, true
}

// Key positions in scheduleKeys and taskKeys.
const (
	keyMode = iota
	keyNumWorkers
	keyVectorWorkerStride
	keyTasks
	keyCubeTaskIndices
	keyVectorTaskIndices
	keyKernelFamily
	keyReplicaGradients
)

const (
	keyTaskType = iota
	keyDependentEvent
	keyTriggerEvent
	keyGraphStage
	keyOwnerID
	keyStageTaskIndex
	keyProfileDescID
)

func (j *jsonScanner) schedule(s *Schedule) bool {
	seen, ok := j.object(scheduleKeys, func(key int) bool {
		var ok bool
		switch key {
		case keyMode:
			var name []byte
			if name, ok = j.Str(); ok {
				s.Mode, ok = ParseMode(string(name))
			}
		case keyNumWorkers:
			s.NumWorkers, ok = j.Int(math.MinInt64, math.MaxInt64)
		case keyVectorWorkerStride:
			s.VectorWorkerStride, ok = j.Int(1, math.MaxInt64)
		case keyTasks:
			ok = j.Array(func() bool {
				t, ok := j.task()
				s.Tasks = append(s.Tasks, t)
				return ok
			})
			if ok && s.Tasks == nil {
				s.Tasks = []Task{}
			}
		case keyCubeTaskIndices:
			s.CubeTaskIndices, ok = j.indices()
		case keyVectorTaskIndices:
			s.VectorTaskIndices, ok = j.indices()
		case keyKernelFamily:
			var name []byte
			if name, ok = j.Str(); ok && !j.named {
				s.KernelFamily, ok = KernelFamily(string(name))
				j.family = s.KernelFamily
			} else {
				ok = false
			}
		case keyReplicaGradients:
			var n int64
			n, ok = j.Int(0, math.MaxUint32)
			s.ReplicaGradients = uint32(n)
		}
		return ok
	})
	const required = 1<<keyNumWorkers | 1<<keyTasks
	return ok && seen&required == required
}

func (j *jsonScanner) indices() ([]uint32, bool) {
	out := []uint32{}
	ok := j.Array(func() bool {
		v, ok := j.Int(0, math.MaxUint32)
		out = append(out, uint32(v))
		return ok
	})
	return out, ok
}

func (j *jsonScanner) task() (Task, bool) {
	t := NewTask(0)
	seen, ok := j.object(taskKeys, func(key int) bool {
		var v int64
		var ok bool
		if key != keyTaskType && j.Null() {
			return true // an optional field given as null is absent
		}
		switch key {
		case keyTaskType:
			if j.Peek() == '"' {
				var name []byte
				if name, ok = j.Str(); ok {
					j.named = true
					if j.family == abi.FamilyNone {
						t.TaskType, ok = taskTypeByName[string(name)]
					} else {
						var v uint32
						v, ok = j.family.ParseTaskType(string(name))
						t.TaskType = abi.TaskType(v)
					}
				}
				return ok
			}
			v, ok = j.Int(0, abi.TaskTypeCount-1)
			t.TaskType = abi.TaskType(v)
		case keyDependentEvent:
			// NoEvent (EVENT_INVALID_ID) is "no event", as in the runtime.
			v, ok = j.Int(0, int64(NoEvent))
			t.DependentEvent = EventID(v)
		case keyTriggerEvent:
			v, ok = j.Int(0, int64(NoEvent))
			t.TriggerEvent = EventID(v)
		case keyGraphStage:
			v, ok = j.Int(0, abi.GraphStageCount-1)
			t.GraphStage = uint32(v)
		case keyOwnerID:
			v, ok = j.Int(0, math.MaxUint32)
			t.OwnerID = uint32(v)
		case keyStageTaskIndex:
			v, ok = j.Int(0, math.MaxUint32-1)
			t.StageTaskIndex = uint32(v)
		case keyProfileDescID:
			// NoProfileDescID (INVALID_PROFILE_DESC_ID) is "not given".
			v, ok = j.Int(0, NoProfileDescID)
			t.ProfileDescID = uint32(v)
		}
		return ok
	})
	return t, ok && seen&(1<<keyTaskType) != 0
}

// jsonPosition returns the line and column of the value at path in src, a
// document parseJSON accepted, or of its nearest ancestor present: the
// same position yamlPosition finds.
func jsonPosition(src []byte, path string) (line, col int) {
	j := newJSONScanner(src)
	j.Peek()
	at := j.r.Offset()
	for _, seg := range splitPath(path) {
		if !j.child(seg) {
			break
		}
		at = j.r.Offset()
	}
	return yamlpos.PositionOf(src, int(at))
}

// child moves from the start of an object or array to the start of the
// value under key seg or at index "[i]"; false when there is none.
func (j *jsonScanner) child(seg string) bool {
	if strings.HasPrefix(seg, "[") {
		i, err := strconv.Atoi(strings.Trim(seg, "[]"))
		if err != nil || !j.Punct('[') || j.Peek() == ']' {
			return false
		}
		for ; i > 0; i-- {
			if j.r.Skip() != nil || !j.Punct(',') {
				return false
			}
		}
		j.Peek()
		return true
	}
	if !j.Punct('{') || j.Peek() == '}' {
		return false
	}
	for {
		name, _, err := j.r.Key()
		if err != nil {
			return false
		}
		j.Peek()
		if string(name) == seg {
			return true
		}
		if j.r.Skip() != nil || !j.Punct(',') {
			return false
		}
	}
}
