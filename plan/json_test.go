package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONAsJSONReadsIt: what JSON allows and the old fast path left to
// the YAML reader (escapes, tabs, a surrogate pair, a raw DEL) takes the
// fast path now and reads as JSON reads it; a name it spells that is no
// name is still worded by the node path, at its line and column.
func TestJSONAsJSONReadsIt(t *testing.T) {
	pipeline, _ := ParseMode("aiv_pipeline")
	s, _, ok := parseJSON([]byte("{\"num_workers\":\t2, \"tasks\": [{\"task_type\": \"Mat\\u004dul\"}],\n \"m\\u006fde\": \"aiv_pipeline\"}"))
	require.Truef(t, ok, "fast path: %+v, %v", s, ok)
	require.Lenf(t, s.Tasks, 1, "fast path: %+v, %v", s, ok)
	require.Equalf(t, abi.TaskType(abi.TaskTypeMatMul), s.Tasks[0].TaskType, "fast path: %+v, %v", s, ok)
	require.Equalf(t, pipeline, s.Mode, "fast path: %+v, %v", s, ok)
	require.Equalf(t, int64(2), s.NumWorkers, "fast path: %+v, %v", s, ok)
	for text, want := range map[string]string{
		"{\"num_workers\": 2,\n \"tasks\": [{\"task_type\": \"\\ud83d\\ude00\"}]}": `unknown task type "😀"`,
		"{\"num_workers\": 2,\n  \"tasks\": [{\"task_type\": \"Mat\x7fMul\"}]}":    "unknown task type \"Mat\\x7fMul\"",
	} {
		// The value's quote, counted here: line 2, a byte a column.
		line2 := text[strings.IndexByte(text, '\n')+1:]
		want = fmt.Sprintf("s.json:2:%d: tasks[0].task_type: %s", strings.Index(line2, `: "`)+3, want)
		_, _, ok := parseJSON([]byte(text))
		assert.False(t, ok, "%q: the fast path took an unknown task type", text)
		_, err := Parse("s.json", []byte(text))
		require.Errorf(t, err, "%q: error %v\nwant it to start", text, err)
		require.GreaterOrEqualf(t, len(err.Error()), len(want), "%q: error %v\nwant it to start", text, err)
		assert.Equalf(t, want, err.Error()[:len(want)], "%q: error %v\nwant it to start", text, err)
	}
}
