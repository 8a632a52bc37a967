package main

// The drill's data: the schema changes it applies and the tests each
// group of them runs, with what they pin. The checks are in main.go.

import (
	"fmt"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// edit replaces Old with New in abi/schema.yaml; Old must occur exactly once.
type edit struct{ Old, New string }

// change is one schema change of the drill and what it must do.
type change struct {
	name  string
	edits []edit
	// rules are the `abigen diff` rules the change must produce, as
	// "category rule"; no other rule may appear.
	rules []string
	// schedule, when set, replaces examples/moe_layer.yaml as synth's input.
	schedule string
	// trace holds text decode's trace of the synth capture must contain;
	// drillTrace what the trace of the writer capture must contain.
	trace, drillTrace []string
	// columns are columns the records table of `cycleabi export` of either
	// capture must have.
	columns []string
	// header holds lines the C++ header must contain.
	header []string
	// knownGap, when set, says which code outside the schema still needs
	// an edit for this change; its functional checks may fail.
	knownGap string
}

// versionRaise raises the ABI version, as a breaking change must: from
// the version the schema states today (the generated abi.Version, which
// the drift checks hold to the schema) to the next.
var versionRaise = edit{fmt.Sprintf("version: %d\n", abi.Version), fmt.Sprintf("version: %d\n", abi.Version+1)}

var changes = []change{{
	name: "record-field",
	edits: []edit{versionRaise,
		{"    size: 32\n    fields:\n      - name: start_cycle\n", "    size: 40\n    fields:\n      - name: start_cycle\n"},
		{"        doc: The task's owner (e.g. an expert); InvalidOwnerID = no owner.\n",
			"        doc: The task's owner (e.g. an expert); InvalidOwnerID = no owner.\n" +
				"      - name: drill_stamp\n        type: u64\n        offset: 32\n        doc: A field the ABI drill appends.\n"},
	},
	rules: []string{
		"breaking-wire fingerprint-changed", "breaking-wire struct-size", "compatible version-raised",
		"breaking-wire field-added", "breaking-wire layout-constant-changed",
	},
	trace:      []string{`"drill_stamp":0`},
	drillTrace: []string{`"drill_stamp":0`},
	columns:    []string{"drill_stamp"},
	header: []string{
		"static_assert(sizeof(ProfileRecord) == 40,",
		"static_assert(offsetof(ProfileRecord, drill_stamp) == 32,",
	},
}, {
	name: "task-type",
	edits: []edit{{"      - {name: ShmemGetMem, value: 141, doc: Remote get.}\n",
		"      - {name: ShmemGetMem, value: 141, doc: Remote get.}\n      - {name: DrillTask, value: 177, doc: A task type the ABI drill adds.}\n"}},
	rules:      []string{"compatible enum-value-added"},
	schedule:   "num_workers: 4\ntasks:\n  - {task_type: DrillTask}\n  - {task_type: MatMul}\ncube_task_indices: [1]\nvector_task_indices: [0]\n",
	trace:      []string{`"name":"TaskType_DrillTask"`, `"task_type":177`},
	drillTrace: []string{`"name":"TaskType_DrillTask"`},
	header:     []string{"  DrillTask = 177,"},
}, {
	name: "runtime-stage",
	edits: []edit{{"        - {index: 7, name: TriggerEvent, task_stage_prefix: true, doc: Signalling the task's trigger event.}\n",
		"        - {index: 7, name: TriggerEvent, task_stage_prefix: true, doc: Signalling the task's trigger event.}\n" +
			"        - {index: 9, name: DrillStage, doc: A runtime stage the ABI drill adds.}\n"}},
	rules:      []string{"compatible stage-added"},
	drillTrace: []string{`"name":"DrillStage"`, `"desc_id":65545`},
}, {
	name: "namespace",
	edits: []edit{{"      doc: Kernel-defined graph stages; names come from the kernel's names file.\n",
		"      doc: Kernel-defined graph stages; names come from the kernel's names file.\n" +
			"    - name: DrillSpace\n      base: 0x70000000\n      count: 0x100\n      display: 'Drill_{name}'\n" +
			"      fallback: Drill_{index}\n      arg: drill_index\n      doc: A descriptor namespace the ABI drill adds.\n" +
			"      names:\n        - {index: 1, name: Mark, doc: A named drill descriptor.}\n"}},
	rules:      []string{"compatible namespace-added"},
	drillTrace: []string{`"name":"Drill_Mark"`, `"desc_id":1879048193`, `"drill_index":1`},
}, {
	name: "region",
	edits: []edit{versionRaise,
		{"      - {name: AIV, value: 2, doc: Vector core; runs element-wise and communication tasks.}\n",
			"      - {name: AIV, value: 2, doc: Vector core; runs element-wise and communication tasks.}\n" +
				"      - {name: DRL, value: 3, doc: A core type the ABI drill adds.}\n"},
		{"    - {core_type: AIV, slots_per_cube_slot: 2, doc: \"Vector cores, block ids 0..2C-1.\"}\n",
			"    - {core_type: AIV, slots_per_cube_slot: 2, doc: \"Vector cores, block ids 0..2C-1.\"}\n" +
				"    - {core_type: DRL, slots_per_cube_slot: 1, doc: \"Drill cores, block ids 0..C-1.\"}\n"},
	},
	rules: []string{
		"breaking-wire fingerprint-changed", "breaking-wire region-changed", "compatible version-raised",
		"compatible enum-value-added",
	},
	drillTrace: []string{`"core_type":"DRL"`, `"args":{"name":"DRL/0"}`},
	header:     []string{"  DRL = 3,"},
}}

// testGroups are the changes whose tests run together, one test run per
// group (a run rebuilds every package, so there are few), and what each
// group's tests may fail because they pin today's schema on purpose, with
// what they pin. A key "pkg" is a package whose golden files pin it: it
// must pass once `go test -update` has refreshed them. A key
// "pkg.TestA,TestB" names tests that still fail after that and must be
// edited by hand for such a change; any other test that fails fails the
// drill. A reason starting "record-field:" or "region:" says which change
// of the wire group the test pins. A change with a known gap is in no
// group.
var testGroups = []struct {
	name    string
	changes []string
	pinned  map[string]string
}{
	{"compatible", []string{"task-type", "runtime-stage", "namespace"}, map[string]string{
		"validate": "golden findings whose expected text lists the namespaces",
		"dump":     "golden dumps whose findings list the namespaces",
		"plan":     "golden errors that list the known task types",
		"gen/go/abi.TestTaskTypesMatchSpec,TestNamespaces": "today's task types and namespaces",
		"tests/agreement.TestQualifierMutants":             "the qualifier kernel calls every C++ helper by name: a new namespace's <Name>DescId needs a call",
	}},
	// The wire-breaking changes share a run (both raise the version).
	{"wire", []string{"record-field", "region"}, map[string]string{
		"analyze": "golden reports of the example capture, which give the ABI version and the capture's size in bytes",
		"decode":  "golden traces, which give the ABI version, the buffer size and every region's capacity",
		"dump":    "golden dumps, which give the buffer size and every region's capacity",
		"plan":    "golden plans (TestSchedules): the buffer size, and a key per region (drl_workers, ...)",

		"capture.TestDecodingErrors": "region: captures sized by hand for today's 72 headers of 24 cube slots",
		"capture/capturetest.TestParseLayoutCaseBuilds,TestParseLayoutCaseErrors": "region: the case parser's own cases give one capacity per region of today's schema (aic=, aiv=) and expect a layout without a third",
		"capture.TestLayoutCases": "region: the layout cases (testdata/layout) give one capacity per region of today's schema (aic=, aiv=), and their answers are worked out on today's offsets",
		"capture.TestFoundCubeSlots,TestFoundAIVPipeline,TestAmbiguousLayout,TestAmbiguousIdleAICRegion,TestPlanPicksTruncatedLayout,TestRequestProblems,TestDamagedFirstHeader": "region: the layout search's findings and messages worked out on today's AIC and AIV regions (TestFoundLayout and TestGivenCapacitiesPlaceTheLastRegion hold it to any regions)",
		"cmd/internal/cli.TestVersion":                                   "the ABI version",
		"cmd/internal/cli.TestPlanCommand":                               "the example plan's buffer size and flags (24 cube slots of AIC and AIV, 32-byte records)",
		"cmd/internal/cli.TestDecodeCommandPlan,TestValidateCommandPlan": "record-field: the found header's offset in 32-byte records; region: the layout line of a two-region capture",
		"cmd/internal/cli.TestDumpCommandPlan,TestValidateCommandText":   "the layout and ABI lines of a capture in today's layout (the ABI version, the AIC and AIV capacities, 32-byte offsets)",
		"cmd/internal/cli.TestLayoutFoundWithoutFlags,TestValidateCommandJSON,TestValidateCommandTruncated,TestValidateCommandUsage": "region: the layout lines and capacity maps of captures with today's two regions",
		"decode/chromejson.TestBenchCaptureShape": "the benchmark captures' shape: 72 slots of 32-byte records",
		"decode/chromejson.TestReferenceDecoder":  "the reference decoder (decode/testdata/reference) reads today's buffer: two regions of 32-byte records",
		"dump.TestDumpFoldsIdleSlots":             "record-field: offsets of 32-byte records",
		"dump.TestDump":                           "region: the cases' captures are buffers of today's two regions, whose layout a third region's zero slots do not resolve",
		"gen/go/abi.TestMaxRecordsPerCore,TestRoundUpCapacity,TestWireLayout,TestInitSlot": "record-field: today's MaxRecordsPerCore and 32-byte records",
		"gen/go/abi.TestLayoutMatchesSpec,TestSlot":                                        "today's layout: C AIC and 2C AIV slots of 32-byte records",
		"gen/go/abi.TestCoreType,TestBufferSizeOverflow":                                   "region: today's two core types, and the AIV region's slot count in the overflow message",
		"tracemeta.TestAppendRank":                                                         "region: the object it expects states record capacities for today's AIC and AIV",
		"internal/abigen/schema.TestSchema":                                                "the wire as it is today (32-byte records, two regions)",
		"plan.TestCapacityPastMaximum,TestPlanMatchesModel":                                "record-field: today's MaxRecordsPerCore, and the model's 32-byte records",
		"tests/agreement.TestGoldRegenerates,TestGoldDecodes,TestHarnessAgreement,TestRecorderAgreement,TestPythonReadsHarnessCaptures,TestPythonSlotViews": "the C++ harness (cxx/harness.cpp) calls AppendRecord and Recorder::Record with today's record fields and BufferSize, SlotOffset and Recorder::Init with the AIC and AIV capacities; testdata/gold.bin is its capture in today's layout",
		"tests/agreement.TestQualifierConfigs":                                                "the qualifier probe (cxx/qualifier_probe.cpp) calls AppendRecord and RecordCapacity with today's arguments",
		"tests/agreement.TestPythonRefusesWhatValidateRefuses":                                "its inputs are validate's txtar buffers of today's layout, which then no longer draw every error code",
		"tests/agreement.TestPythonFollowsSchemaChange":                                       "it applies its own change to today's schema text and expects its two regions",
		"tests/agreement.TestPythonLayoutCases":                                               "it runs capture's layout cases, which give one capacity per region of today's schema (aic=, aiv=)",
		"tests/cpp.TestLayoutMatchesGo":                                                       "layout_check.cpp calls AppendRecord with today's record fields and BufferSize and SlotOffset with the AIC and AIV capacities",
		"tests/cpp.TestRecorderRules,TestRecorderMutants,TestAscendCPreset":                   "recorder_check.cpp and the AscendC kernel call Record with today's record fields and Init with the AIC and AIV capacities; recorder_check lays out 32-byte records itself, and the mutants edit today's text of the Recorder",
		"tests/cpp.TestPublishModes,TestPublishModeMutants,TestCUDAPresetPTX,TestCUDAExample": "publish_check.cpp, the CUDA test kernels and examples/cuda call Record with today's record fields and Init with the AIC and AIV capacities; publish_check lays out 32-byte records itself, and the mutants edit today's text of PutRecord",
		"examples/cuda/tasktable.TestMoELayerTable":                                           "record-field: the plan's size of moe_layer.yaml's buffer (188,928 bytes of 32-byte records); region: its 72 blocks, the 24 AIC and 48 AIV cores of today's two regions",
		"validate.TestCases":                                                                  "txtar cases written as readable buffers of today's layout",
		"cmd/internal/cli.TestDiffReportErrors,TestDumpNames,TestDecodeNegativeTS,TestDecodePartial,TestDecodePartialNPY,TestPlanUntriggeredWait,TestDecodeWarnsBytesAfterLayout,TestTraceRefusals,TestTraceKernelFamily,TestDecodePerfettoUnrepresentable,TestDiffShowsDropped,TestAnalyzeStrict,TestTraceWarningsCLI,TestWindowObjectAsUpstream,TestReplicaW2Return,TestExportFarRecordIsInvalidInput": "captures, cuts and traces written for today's wire (the AIC and AIV regions, 32-byte records): their byte offsets, sizes and layout lines",
		"decode.TestPartialDecode":                                           "captures built and cut at today's offsets: two regions of 32-byte records",
		"input.TestLoadReadsCaptureWhoseEntryCycleLooksLikeABOM":             "region: its captures are buffers of today's two regions, whose layout a third region's zero slots do not resolve (as capture.TestDecodingErrors')",
		"tests/agreement.TestPythonReadsCaptureWhoseEntryCycleLooksLikeABOM": "region: its captures are buffers of today's two regions, whose layout a third region's zero slots do not resolve",
		"tests/agreement.TestHyperParallelDropIn":                            "the drop-in reads hyper-parallel's buffer as upstream lays it out today (24 AIC and 48 AIV slots, UPSTREAM_TABLES), and its cases are upstream's buffers of 32-byte records",
		"tests/agreement.TestHyperParallelFastExport":                        "decode --upstream-compat reads hyper-parallel's buffer as upstream lays it out today (24 AIC and 48 AIV slots, or 32 cube slots), byte for byte against the drop-in's Python path, and its cases are upstream's buffers of 32-byte records",
		"cmd/internal/cli.TestDecodeUpstreamCompat":                          "decode --upstream-compat reads hyper-parallel's raw buffer as upstream lays it out today: upstream's 32-byte records, whatever this schema says",
		"decode/chromejson.TestShiftNegativeTS":                              "captures built at today's offsets: two regions of 32-byte records",
		"jsontrace.TestAnalyzeTraceEqualsCapture,TestReadOne,TestGzipAndSniff,TestErrors,TestValidatePointsAtEvents,TestNamesCapped,TestNamesCappedCounted,TestJSONReadAsPython,TestFrequencyRange,TestMissingCoreIsSaid,TestRepeatedMetadataKeyReplaces,TestBufferBytesContradictingLayoutIsRefused": "region: a trace states record capacities for AIC and AIV only (upstream's recordCapacityPerCore), and the reference decoder writing the property test's traces reads today's two regions of 32-byte records",
	}},
}
