package examples_test

import (
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAIVPipelineCapture: aiv_pipeline.npy is exactly what
// `cycleabi synth aiv_pipeline.yaml --seed 1 --format npy` writes: the AIV
// pipeline layout (AIC capacity 0) in NumPy's format, with nothing dropped,
// and it decodes with the capacities read from its own headers.
func TestAIVPipelineCapture(t *testing.T) {
	s, err := plan.ParseFile("aiv_pipeline.yaml")
	require.NoError(t, err)
	c, err := synth.Run(s, synth.Options{Seed: 1})
	require.NoError(t, err)
	npy := append(capture.NPYHeader(uint64(len(c.Buffer))), c.Buffer...)
	golden.Check(t, "aiv_pipeline.npy", npy)
	assert.Equal(t, uint64(40*45), c.Records(), "records")
	assert.Zero(t, c.Dropped(), "dropped")

	cp, err := capture.FromBytes("aiv_pipeline.npy", npy)
	require.NoError(t, err)
	d, err := decode.Decode(cp, capture.Request{})
	require.NoError(t, err)
	assert.Equal(t, (abi.Capacities{AIC: 0, AIV: 48}), d.Summary.Layout.Capacities, "capacities")
	assert.Equal(t, []byte(c.Buffer), []byte(npy[cp.Base:]), "the .npy payload is not the buffer")
}
