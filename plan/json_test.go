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
	require.Falsef(t, !ok || len(s.Tasks) != 1 || s.Tasks[0].TaskType != abi.TaskTypeMatMul || s.Mode != pipeline || s.NumWorkers != 2, "fast path: %+v, %v", s, ok)
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
		assert.Falsef(t, err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want, "%q: error %v\nwant it to start %s", text, err, want)
	}
}
