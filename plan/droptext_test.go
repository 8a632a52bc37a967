package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDropText: an error placed by ErrorAt has the line and column of its
// value while the text is kept, none once it is dropped.
func TestDropText(t *testing.T) {
	for _, text := range []string{
		`{"num_workers": 2, "tasks": [{"task_type": "MatMul"}, {"task_type": "MatMul", "trigger_event": 1}], "cube_task_indices": [0, 1]}`,
		"num_workers: 2\ntasks:\n  - {task_type: MatMul}\n  - {task_type: MatMul, trigger_event: 1}\ncube_task_indices: [0, 1]\n",
	} {
		s, err := Parse("s.json", []byte(text))
		require.NoError(t, err)
		e := s.ErrorAt("tasks[1].trigger_event", "bad")
		require.NotEqualf(t, 0, e.Line, "%q: no place with the text kept: %v", text, e)
		assert.NotEqualf(t, 0, e.Col, "%q: no place with the text kept: %v", text, e)
		s.DropText()
		e = s.ErrorAt("tasks[1].trigger_event", "bad")
		assert.Zero(t, e.Line, "%q: placed without its text", text)
		assert.Zero(t, e.Col, "%q: placed without its text", text)
		assert.EqualError(t, e, "s.json: tasks[1].trigger_event: bad", "%q: placed without its text", text)
	}
}
