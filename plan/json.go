package plan

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsonscan"
)

// parseJSON is the fast path for schedules written as JSON: a hand-written
// scanner that builds the Schedule without a node tree (go-yaml needs about
// 7 s and gigabytes for a million tasks). It accepts only what it is sure
// YAML reads the same way (plain JSON: no escapes, no tabs, no exponents,
// no unknown or duplicate keys, every value in range) and reports ok=false
// for anything else, which then goes through parseYAML and gets its error
// message there. FuzzJSONMatchesYAML holds the two parsers to agreeing.
//
// stop is the offset where the scanner stopped, for a message when the
// file is too large for the YAML parser.
func parseJSON(data []byte) (s *Schedule, stop int, ok bool) {
	j := jsonScanner{jsonscan.Scanner{Data: data}}
	s = &Schedule{}
	if !j.schedule(s) || !j.AtEnd() {
		return nil, j.I, false
	}
	return s, j.I, true
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

// jsonScanner is jsonscan.Scanner with the schedule's own readers.
type jsonScanner struct{ jsonscan.Scanner }

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
					t.TaskType, ok = taskTypeByName[string(name)]
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
// document the fast path accepted, or of its nearest ancestor present: the
// same position yamlPosition finds. Such a document is ASCII (its strings
// are known names), so a column is a byte count.
func jsonPosition(src []byte, path string) (line, col int) {
	j := jsonScanner{jsonscan.Scanner{Data: src}}
	j.Space()
	at := j.I
	for _, seg := range splitPath(path) {
		if !j.child(seg) {
			break
		}
		at = j.I
	}
	line = 1 + bytes.Count(src[:at], []byte{'\n'})
	return line, at - bytes.LastIndexByte(src[:at], '\n')
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
			if !j.skip() || !j.Punct(',') {
				return false
			}
		}
		j.Space()
		return true
	}
	if !j.Punct('{') || j.Peek() == '}' {
		return false
	}
	for {
		name, ok := j.Key()
		if !ok {
			return false
		}
		j.Space()
		if string(name) == seg {
			return true
		}
		if !j.skip() || !j.Punct(',') {
			return false
		}
	}
}

// skip moves past one value of a document the fast path accepted.
func (j *jsonScanner) skip() bool {
	switch j.Peek() {
	case '"':
		_, ok := j.Str()
		return ok
	case 'n':
		return j.Null()
	case '[':
		return j.Array(j.skip)
	case '{':
		return j.Object(func([]byte) bool { return j.skip() })
	}
	_, ok := j.Int(math.MinInt64, math.MaxInt64)
	return ok
}
