package perfetto

// Helpers of the Perfetto writer's tests; decode/internal/decodetest
// holds those they share with decode/chromejson's.

import (
	"bytes"

	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
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
