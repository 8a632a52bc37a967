package examples_test

import (
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The capture `make demo` makes: cycleabi synth moe_layer.yaml
// --capacity-scale 0.8 --seed 1 -o moe_layer.bin.
var demoOptions = synth.Options{Seed: 1, CapacityScale: 0.8}

func TestMoELayerFiles(t *testing.T) {
	schedule, names := moeLayer.render()
	golden.Check(t, "moe_layer.yaml", []byte(schedule))
	golden.Check(t, "moe_layer.names.yaml", []byte(names))
}

// TestMoELayerCapture: the committed capture is exactly what synth makes
// of the schedule with the demo's flags, and it is what the demo promises:
// a few thousand records, a few of them dropped by the busiest cores.
func TestMoELayerCapture(t *testing.T) {
	s, err := plan.ParseFile("moe_layer.yaml")
	require.NoError(t, err)
	c, err := synth.Run(s, demoOptions)
	require.NoError(t, err)
	golden.Check(t, "moe_layer.bin", c.Buffer)
	n := c.Records()
	assert.GreaterOrEqual(t, n, uint64(2000))
	assert.LessOrEqual(t, n, uint64(5000))
	d := c.Dropped()
	assert.NotEqual(t, uint64(0), d)
	assert.LessOrEqual(t, d, uint64(20))
	assert.Less(t, len(c.Buffer), 1<<20, "capture")
}

// TestExamples: every shipped schedule plans, and simulating it with the
// planned capacities writes every record.
func TestExamples(t *testing.T) {
	files, _ := filepath.Glob("*.yaml")
	n := 0
	for _, file := range files {
		if filepath.Ext(file[:len(file)-len(".yaml")]) == ".names" {
			continue
		}
		n++
		s, err := plan.ParseFile(file)
		require.NoError(t, err)
		c, err := synth.Run(s, synth.Options{Seed: 1})
		require.NoErrorf(t, err, "%s", file)
		assert.Zerof(t, c.Dropped(), "%s: records dropped", file)
		assert.NotZerof(t, c.Records(), "%s: records written", file)

	}
	assert.GreaterOrEqual(t, n, 2, "only")
}
