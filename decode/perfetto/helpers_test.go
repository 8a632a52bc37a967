package perfetto

// Helpers of the Perfetto writer's tests; decode/internal/decodetest
// holds those they share with decode/chromejson's.

import (
	"bytes"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"pgregory.net/rapid"
)

const (
	wait    = abi.RuntimeStageWaitDependency
	trigger = abi.RuntimeStageTriggerEvent
	noOwner = abi.InvalidOwnerID
)

func taskType(t abi.TaskType) uint32 { return abi.TaskTypeBase + uint32(t) }

// traceOf writes the trace of inputs to memory.
func traceOf(inputs ...render.Input) ([]byte, error) {
	var out bytes.Buffer
	err := chromejson.Write(&out, inputs, render.WriteOptions{})
	return out.Bytes(), err
}

// defaultConfig is what `cycleabi decode` uses without flags.
func defaultConfig() render.Config {
	return render.Config{SoCName: "ascend910b", FrequencyMHz: 50, KernelName: "MegaKernel", OwnerLabel: "Owner"}
}

// randomFlowCapture is decodetest.RandomFlowCapture with its draw as a
// Config.
func randomFlowCapture(t *rapid.T) (*decode.Decoded, *flows.Dependencies, render.Config, bool) {
	d, deps, draw, ok := decodetest.RandomFlowCapture(t)
	cfg := defaultConfig()
	cfg.FrequencyMHz, cfg.FlowMode, cfg.MaxFlows, cfg.Deps = draw.FrequencyMHz, draw.Mode, draw.MaxFlows, deps
	return d, deps, cfg, ok
}
