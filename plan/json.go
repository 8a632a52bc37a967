package plan

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// parseJSON is the fast path for schedules written as JSON: a hand-written
// scanner that builds the Schedule without a node tree (go-yaml needs about
// 7 s and gigabytes for a million tasks). It accepts only what it is sure
// YAML reads the same way (plain JSON: no escapes, no tabs, no exponents,
// no unknown or duplicate keys, every value in range) and reports ok=false
// for anything else, which then goes through parseYAML and gets its error
// message there. FuzzJSONMatchesYAML holds the two parsers to agreeing.
func parseJSON(data []byte) (s *Schedule, ok bool) {
	j := jsonScanner{data: data}
	s = &Schedule{}
	if !j.schedule(s) {
		return nil, false
	}
	j.space()
	if j.i != len(j.data) {
		return nil, false
	}
	return s, true
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

type jsonScanner struct {
	data []byte
	i    int
}

// space skips JSON whitespace other than tabs (which YAML does not allow
// everywhere JSON does) and lone carriage returns.
func (j *jsonScanner) space() {
	for j.i < len(j.data) {
		switch j.data[j.i] {
		case ' ', '\n':
			j.i++
		case '\r':
			if j.i+1 < len(j.data) && j.data[j.i+1] == '\n' {
				j.i += 2
				continue
			}
			return
		default:
			return
		}
	}
}

// punct consumes c after optional whitespace.
func (j *jsonScanner) punct(c byte) bool {
	j.space()
	if j.i < len(j.data) && j.data[j.i] == c {
		j.i++
		return true
	}
	return false
}

// peek returns the next non-space byte, or 0 at the end.
func (j *jsonScanner) peek() byte {
	j.space()
	if j.i < len(j.data) {
		return j.data[j.i]
	}
	return 0
}

// str reads a string without escapes or control characters; the result
// aliases the input.
func (j *jsonScanner) str() ([]byte, bool) {
	if !j.punct('"') {
		return nil, false
	}
	start := j.i
	for j.i < len(j.data) {
		c := j.data[j.i]
		switch {
		case c == '"':
			s := j.data[start:j.i]
			j.i++
			return s, true
		case c == '\\' || c < 0x20 || c == 0x7f:
			return nil, false
		}
		j.i++
	}
	return nil, false
}

// int reads an integer in [lo, hi]: an optional minus, then digits with no
// leading zero; a fraction or exponent makes it not an integer.
func (j *jsonScanner) int(lo, hi int64) (int64, bool) {
	j.space()
	start := j.i
	if j.i < len(j.data) && j.data[j.i] == '-' {
		j.i++
	}
	digits := j.i
	for j.i < len(j.data) && '0' <= j.data[j.i] && j.data[j.i] <= '9' {
		j.i++
	}
	if n := j.i - digits; n == 0 || n > 1 && j.data[digits] == '0' || n > 18 {
		return 0, false
	}
	if j.i < len(j.data) {
		switch j.data[j.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	// At most 18 digits: no overflow.
	var v int64
	for _, c := range j.data[digits:j.i] {
		v = v*10 + int64(c-'0')
	}
	if digits > start {
		v = -v
	}
	return v, lo <= v && v <= hi
}

// null consumes a JSON null.
func (j *jsonScanner) null() bool {
	if j.peek() != 'n' || len(j.data)-j.i < 4 || string(j.data[j.i:j.i+4]) != "null" {
		return false
	}
	j.i += 4
	return true
}

// object reads {"key": value, ...}, calling field for each key, which must
// read the value. Duplicate keys and keys field rejects fail.
func (j *jsonScanner) object(keys []string, field func(key int) bool) (seen uint64, ok bool) {
	if !j.punct('{') {
		return 0, false
	}
	if j.punct('}') {
		return 0, true
	}
	for {
		name, ok := j.str()
		// YAML wants an implicit key on one line: nothing but spaces
		// between the key and its colon.
		for j.i < len(j.data) && j.data[j.i] == ' ' {
			j.i++
		}
		if !ok || j.i >= len(j.data) || j.data[j.i] != ':' {
			return 0, false
		}
		j.i++
		key := -1
		for k, known := range keys {
			if string(name) == known {
				key = k
				break
			}
		}
		if key < 0 || seen&(1<<key) != 0 || !field(key) {
			return 0, false
		}
		seen |= 1 << key
		if j.punct('}') {
			return seen, true
		}
		if !j.punct(',') {
			return 0, false
		}
	}
}

// array reads [item, ...], calling item for each.
func (j *jsonScanner) array(item func() bool) bool {
	if !j.punct('[') {
		return false
	}
	if j.punct(']') {
		return true
	}
	for {
		if !item() {
			return false
		}
		if j.punct(']') {
			return true
		}
		if !j.punct(',') {
			return false
		}
	}
}

// Key positions in scheduleKeys and taskKeys.
const (
	keyMode = iota
	keyNumWorkers
	keyVectorWorkerStride
	keyTasks
	keyCubeTaskIndices
	keyVectorTaskIndices
)

const (
	keyTaskType = iota
	keyDependentEvent
	keyTriggerEvent
	keyGraphStage
	keyOwnerID
	keyStageTaskIndex
)

func (j *jsonScanner) schedule(s *Schedule) bool {
	seen, ok := j.object(scheduleKeys, func(key int) bool {
		var ok bool
		switch key {
		case keyMode:
			var name []byte
			if name, ok = j.str(); ok {
				s.Mode, ok = ParseMode(string(name))
			}
		case keyNumWorkers:
			s.NumWorkers, ok = j.int(math.MinInt64, math.MaxInt64)
		case keyVectorWorkerStride:
			s.VectorWorkerStride, ok = j.int(1, math.MaxInt64)
		case keyTasks:
			ok = j.array(func() bool {
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
		}
		return ok
	})
	const required = 1<<keyNumWorkers | 1<<keyTasks
	return ok && seen&required == required
}

func (j *jsonScanner) indices() ([]uint32, bool) {
	out := []uint32{}
	ok := j.array(func() bool {
		v, ok := j.int(0, math.MaxUint32)
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
		if key != keyTaskType && j.null() {
			return true // an optional field given as null is absent
		}
		switch key {
		case keyTaskType:
			if j.peek() == '"' {
				var name []byte
				if name, ok = j.str(); ok {
					t.TaskType, ok = taskTypeByName[string(name)]
				}
				return ok
			}
			v, ok = j.int(0, abi.TaskTypeCount-1)
			t.TaskType = abi.TaskType(v)
		case keyDependentEvent:
			v, ok = j.int(0, int64(NoEvent)-1)
			t.DependentEvent = EventID(v)
		case keyTriggerEvent:
			v, ok = j.int(0, int64(NoEvent)-1)
			t.TriggerEvent = EventID(v)
		case keyGraphStage:
			v, ok = j.int(0, abi.GraphStageCount-1)
			t.GraphStage = uint32(v)
		case keyOwnerID:
			v, ok = j.int(0, math.MaxUint32)
			t.OwnerID = uint32(v)
		case keyStageTaskIndex:
			v, ok = j.int(0, math.MaxUint32-1)
			t.StageTaskIndex = uint32(v)
		}
		return ok
	})
	return t, ok && seen&(1<<keyTaskType) != 0
}

// jsonPosition returns the line and column of the value at path in src, a
// document the fast path accepted, or of its nearest ancestor present: the
// same position yamlPosition finds. Such a document is ASCII (its strings
// are known names), so a column is a byte count.
func jsonPosition(src []byte, path string) (line, col int) {
	j := jsonScanner{data: src}
	j.space()
	at := j.i
	for _, seg := range splitPath(path) {
		if !j.child(seg) {
			break
		}
		at = j.i
	}
	line = 1 + bytes.Count(src[:at], []byte{'\n'})
	return line, at - bytes.LastIndexByte(src[:at], '\n')
}

// child moves from the start of an object or array to the start of the
// value under key seg or at index "[i]"; false when there is none.
func (j *jsonScanner) child(seg string) bool {
	if strings.HasPrefix(seg, "[") {
		i, err := strconv.Atoi(strings.Trim(seg, "[]"))
		if err != nil || !j.punct('[') || j.peek() == ']' {
			return false
		}
		for ; i > 0; i-- {
			if !j.skip() || !j.punct(',') {
				return false
			}
		}
		j.space()
		return true
	}
	if !j.punct('{') || j.peek() == '}' {
		return false
	}
	for {
		name, ok := j.str()
		if !ok || !j.punct(':') {
			return false
		}
		j.space()
		if string(name) == seg {
			return true
		}
		if !j.skip() || !j.punct(',') {
			return false
		}
	}
}

// skip moves past one value of a document the fast path accepted.
func (j *jsonScanner) skip() bool {
	switch j.peek() {
	case '"':
		_, ok := j.str()
		return ok
	case 'n':
		return j.null()
	case '[':
		return j.array(j.skip)
	case '{':
		j.i++
		if j.punct('}') {
			return true
		}
		for {
			if _, ok := j.str(); !ok || !j.punct(':') || !j.skip() {
				return false
			}
			if j.punct('}') {
				return true
			}
			if !j.punct(',') {
				return false
			}
		}
	}
	_, ok := j.int(math.MinInt64, math.MaxInt64)
	return ok
}
