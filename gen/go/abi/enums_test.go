package abi_test

import (
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTaskTypesMatchSpec compares the generated enum with the reference decoder.s table (decode/testdata/reference/cycle_trace.py),
// written out here by hand.
func TestTaskTypesMatchSpec(t *testing.T) {
	spec := map[string]uint32{
		"Terminate": 0, "BeginTaskGraph": 10, "AddCustom": 101, "SwiGLU": 102, "MatMul": 103,
		"GroupedMatMul": 104, "ShmemPutMemSignal": 105, "SwiGLUGrad": 106, "MhcPost": 107,
		"MhcNormCast": 108, "MhcProjection": 109, "MhcMapping": 110, "RmsNorm": 111, "MhcInputMix": 112,
		"RmsNormGrad": 113, "MhcGradPrevA": 114, "MhcGradMapping": 115, "MhcGradPhiRms": 116,
		"MhcGradPrevXAndPost": 117, "MhcPostGrad": 118, "MhcGradPrevAAndMapping": 119, "ShmemGetMem": 141,
	}
	assert.Len(t, abi.TaskTypes(), len(spec))
	for name, value := range spec {
		tt, ok := abi.ParseTaskType(name)
		assert.Truef(t, ok, "%s: Parse", name)
		assert.Equalf(t, value, uint32(tt), "%s: Parse", name)
		assert.Equalf(t, name, tt.String(), "%s: String", name)
		assert.Truef(t, tt.Valid(), "%s: Valid", name)

	}
	assert.Equal(t, abi.TaskType(abi.TaskTypeMatMul), abi.TaskType(103), "TaskTypeMatMul")
	assert.Equal(t, abi.TaskType(abi.TaskTypeShmemPutMemSignal), abi.TaskType(105), "TaskTypeMatMul")
}

func TestCoreType(t *testing.T) {
	require.Equal(t, abi.CoreType(abi.CoreTypeAIC), abi.CoreType(1), "core types differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
	require.Equal(t, abi.CoreType(abi.CoreTypeAIV), abi.CoreType(2), "core types differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
	require.Equal(t, "AIC", abi.CoreTypeAIC.String(), "core types differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
	assert.Equal(t, "AIV", abi.CoreTypeAIV.String(), "core types differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
	got := abi.CoreTypes()
	require.Len(t, got, 2, "CoreTypes()")
	require.Equal(t, abi.CoreType(abi.CoreTypeAIC), got[0], "CoreTypes()")
	assert.Equal(t, abi.CoreType(abi.CoreTypeAIV), got[1], "CoreTypes()")
	for _, v := range []abi.CoreType{0, 3, 0xFFFFFFFF} {
		assert.Falsef(t, v.Valid(), "%d is valid", v)
	}
	assert.Equal(t, "CoreType(7)", abi.CoreType(7).String(), "CoreType(7).String()")
	assert.Equal(t, "TaskType(65535)", abi.TaskType(65535).String(), "TaskType(65535).String()")
	for _, name := range []string{"aic", "", "AIC ", "CoreTypeAIC"} {
		_, ok := abi.ParseCoreType(name)
		assert.Falsef(t, ok, "ParseCoreType(%q) succeeded", name)
	}
}
