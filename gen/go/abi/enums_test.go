package abi_test

import (
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
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
	if len(abi.TaskTypes()) != len(spec) {
		t.Errorf("%d task types, the reference decoder has %d", len(abi.TaskTypes()), len(spec))
	}
	for name, value := range spec {
		tt, ok := abi.ParseTaskType(name)
		if !ok || uint32(tt) != value || tt.String() != name || !tt.Valid() {
			t.Errorf("%s: Parse = %d, %v; String %q", name, tt, ok, tt.String())
		}
	}
	if abi.TaskTypeMatMul != 103 || abi.TaskTypeShmemPutMemSignal != 105 {
		t.Errorf("TaskTypeMatMul = %d", abi.TaskTypeMatMul)
	}
}

func TestCoreType(t *testing.T) {
	if abi.CoreTypeAIC != 1 || abi.CoreTypeAIV != 2 || abi.CoreTypeAIC.String() != "AIC" || abi.CoreTypeAIV.String() != "AIV" {
		t.Errorf("core types differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
	}
	if got := abi.CoreTypes(); len(got) != 2 || got[0] != abi.CoreTypeAIC || got[1] != abi.CoreTypeAIV {
		t.Errorf("CoreTypes() = %v", got)
	}
	for _, v := range []abi.CoreType{0, 3, 0xFFFFFFFF} {
		if v.Valid() {
			t.Errorf("%d is valid", v)
		}
	}
	if s := abi.CoreType(7).String(); s != "CoreType(7)" {
		t.Errorf("CoreType(7).String() = %q", s)
	}
	if s := abi.TaskType(65535).String(); s != "TaskType(65535)" {
		t.Errorf("TaskType(65535).String() = %q", s)
	}
	for _, name := range []string{"aic", "", "AIC ", "CoreTypeAIC"} {
		if _, ok := abi.ParseCoreType(name); ok {
			t.Errorf("ParseCoreType(%q) succeeded", name)
		}
	}
}
