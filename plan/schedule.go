// Package plan reads a MegaKernel task schedule and sizes the profiling
// buffer for it: how many cycle records the busiest AIC and AIV worker
// writes, the record capacities rounded up to the ABI's alignment, the cube
// slot count and the buffer size (docs/plan.md).
//
// A schedule is a YAML or JSON file (JSON is YAML):
//
//	mode: event_driven          # or aiv_pipeline; default event_driven
//	num_workers: 48
//	vector_worker_stride: 2     # optional, default 2: num_workers/2 AIV workers
//	tasks:                      # the task table; the list index is the task id
//	  - {task_type: MatMul, dependent_event: 3, trigger_event: 4}
//	  - {task_type: 102}        # by number or TaskType name; absent event = none
//	cube_task_indices: [0]      # the ordered queue dealt to AIC workers
//	vector_task_indices: [1]    # the ordered queue dealt to AIV workers
//	kernel_family: MegaMoe      # optional: the task-type table names are read in
//	replica_gradients: 6        # optional: kernel-gradients mode (see Schedule.ReplicaGradients)
//
// A task may also carry graph_stage, owner_id and stage_task_index, which
// only the simulator (package synth) uses. Every problem is reported with
// file:line:col and the YAML path of the offending value, all of them in
// one list: Parse reports the text's, Plan the sizing rules', Check adds
// waits no scheduled task triggers, and CheckFile reports both kinds at
// once. Text is read by package yamlpos, under its size caps.
package plan

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/yamlpos"
)

// Mode is how the MegaKernel runtime executes its task queues.
type Mode uint8

// The execution modes.
const (
	// EventDriven deals the cube queue round-robin over the AIC workers and
	// the vector queue over the AIV workers; device events order tasks
	// across workers.
	EventDriven Mode = iota
	// AIVPipeline runs the whole vector queue on every AIV worker
	// (num_workers/stride of them), each on its own shard; no task may
	// wait on or trigger an event.
	AIVPipeline
)

var modeNames = [...]string{EventDriven: "event_driven", AIVPipeline: "aiv_pipeline"}

// String returns the mode's name in a schedule file ("event_driven").
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", m)
}

// MarshalText encodes the mode as its schedule-file name.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// ParseMode returns the mode named name ("event_driven" or "aiv_pipeline").
func ParseMode(name string) (Mode, bool) {
	for m, n := range modeNames {
		if n == name {
			return Mode(m), true
		}
	}
	return 0, false
}

// EventID names a device event.
type EventID uint32

// NoEvent is the EventID of a task that waits on (or triggers) no event; it
// is what an absent or null dependent_event/trigger_event reads as.
const NoEvent EventID = math.MaxUint32

// Valid reports whether e names an event.
func (e EventID) Valid() bool { return e != NoEvent }

// Sentinels for the optional per-task fields the simulator uses.
const (
	// NoGraphStage marks a task without graph_stage: its compute record
	// carries the task-type descriptor.
	NoGraphStage = math.MaxUint32
	// AutoStageTaskIndex marks a task without stage_task_index: the
	// simulator numbers the task within its stage itself.
	AutoStageTaskIndex = math.MaxUint32
	// NoProfileDescID marks a task without profile_desc_id (the runtime's
	// INVALID_PROFILE_DESC_ID).
	NoProfileDescID = math.MaxUint32
)

// DefaultVectorWorkerStride is the vector_worker_stride of a schedule that
// does not give one.
const DefaultVectorWorkerStride = 2

// Task is one entry of the task table. Build one with NewTask: the optional
// fields use sentinels for "not given", so in the zero Task every one of
// them is set (it waits on and triggers event 0, has graph stage 0 and
// owner 0).
type Task struct {
	// TaskType is the task's kind; its compute record's descriptor is
	// abi.TaskTypeBase + TaskType unless ProfileDescID or GraphStage is set
	// (ComputeDesc).
	TaskType abi.TaskType
	// DependentEvent is the event the task waits on before it runs, or NoEvent.
	DependentEvent EventID
	// TriggerEvent is the event the task signals when done, or NoEvent.
	TriggerEvent EventID
	// GraphStage is the kernel's graph stage for the task (its compute
	// record's descriptor is abi.GraphStageBase + GraphStage), or NoGraphStage.
	GraphStage uint32
	// OwnerID is the task's owner (an expert, say), or abi.InvalidOwnerID.
	OwnerID uint32
	// StageTaskIndex is the task's 0-based index within its stage, or
	// AutoStageTaskIndex.
	StageTaskIndex uint32
	// ProfileDescID is the descriptor of the task's compute record as the
	// host sets it (upstream's TaskDescC.profile_desc_id), such as a
	// kernel family's stage id (MegaMoe's GMM1, 0x10002), or
	// NoProfileDescID.
	ProfileDescID uint32
}

// ComputeDesc is the descriptor of the task's compute record: the
// runtime's TerminateTask for a Terminate task, else ProfileDescID when
// set, else the graph stage's when GraphStage is set, else the task
// type's.
func (t *Task) ComputeDesc() uint32 {
	switch {
	case t.TaskType == abi.TaskTypeTerminate:
		return abi.RuntimeStageTerminateTask
	case t.ProfileDescID != NoProfileDescID:
		return t.ProfileDescID
	case t.GraphStage != NoGraphStage:
		return abi.GraphStageBase + t.GraphStage
	}
	return abi.TaskTypeBase + uint32(t.TaskType)
}

// NewTask returns a task of type t with no events, graph stage, owner or
// stage task index.
func NewTask(t abi.TaskType) Task {
	return Task{
		TaskType:       t,
		DependentEvent: NoEvent,
		TriggerEvent:   NoEvent,
		GraphStage:     NoGraphStage,
		OwnerID:        abi.InvalidOwnerID,
		StageTaskIndex: AutoStageTaskIndex,
		ProfileDescID:  NoProfileDescID,
	}
}

// Schedule is a parsed schedule file. It is only checked for form (types,
// keys, ranges a value can have on its own); Plan checks the rest.
type Schedule struct {
	// File names the schedule in errors.
	File string
	// Mode is the execution mode.
	Mode Mode
	// NumWorkers is num_workers as written (Plan rejects odd or negative
	// values in event-driven mode).
	NumWorkers int64
	// VectorWorkerStride is vector_worker_stride, or 0 when the file does
	// not give one (DefaultVectorWorkerStride applies).
	VectorWorkerStride int64
	// Tasks is the task table; a task's id is its index.
	Tasks []Task
	// CubeTaskIndices is the ordered queue of task ids dealt to AIC workers.
	CubeTaskIndices []uint32
	// VectorTaskIndices is the ordered queue of task ids dealt to AIV workers.
	VectorTaskIndices []uint32
	// KernelFamily is kernel_family, the kernel family whose task-type
	// table a task_type given by name is looked up in (under MegaMoe,
	// ShmemGetMem is 107, the value the device writes), or abi.FamilyNone
	// for the schema's TaskType enum (where ShmemGetMem is 141).
	KernelFamily abi.Family
	// ReplicaGradients is replica_gradients: in kernel-gradients mode, the
	// replica gradients the rank owns (upstream's owned_count in
	// ProcessReplicaGradients). Every even vector core then runs no queue
	// task and writes one ReplicaW2Return record (0x10008) per owned
	// gradient, so the AIV capacity must hold that many records; 0 (the
	// default) is not that mode.
	ReplicaGradients uint32

	// src is the file's text, kept so that an error found after parsing
	// can be given a line and column (see ErrorAt); fromJSON says the JSON
	// fast path read it.
	src      []byte
	fromJSON bool
}

// Stride returns the vector worker stride in effect.
func (s *Schedule) Stride() int64 {
	if s.VectorWorkerStride == 0 {
		return DefaultVectorWorkerStride
	}
	return s.VectorWorkerStride
}

// Error is one problem in a schedule, printed as
// "moe.yaml:12:7: tasks[3].task_type: unknown task type "MatMull"".
// Line and Col are 0 when the schedule was not read from text.
type Error = yamlpos.Error

// ErrorList is every problem parsing found, in file order, up to 20;
// Omitted counts the rest, so that a million bad entries make one
// screenful of errors rather than a million lines.
type ErrorList = yamlpos.List

// maxErrors bounds an ErrorList.
const maxErrors = 20

// ParseFile reads and parses the schedule at path. A file larger than the
// input cap (yamlpos.DefaultMaxInputBytes, 1 GiB; the environment variable
// CYCLEABI_MAX_INPUT_BYTES sets it) is refused before it is read.
func ParseFile(path string) (*Schedule, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, err
	}
	data, err := readSchedule(path, lim)
	if err != nil {
		return nil, err
	}
	s, err := parse(path, data, lim)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// CheckFile reads the schedule at path and Checks it, reporting every
// problem in one run: those in the text and, as far as the rest of the
// text can be read, those planning finds (a planning problem about a
// value the text already got wrong is not repeated; when a value every
// rule needs is wrong, such as num_workers, nothing is planned). Problems
// are an *ErrorList; reading the file can fail as ParseFile does.
func CheckFile(path string) (*Schedule, Result, error) { return checkFile(path, waitErrors) }

// CheckText is CheckFile for the schedule text data; file names it in errors.
func CheckText(file string, data []byte) (*Schedule, Result, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, Result{}, err
	}
	return check(file, data, lim, waitErrors)
}

// PlanFile is CheckFile with a wait on an event no scheduled task
// triggers a warning (in Result.Warnings, positioned as errors are), not
// a problem: in a multi-rank kernel a peer rank may set the event, and the
// buffer is sized all the same. `cycleabi plan` runs it (--strict runs
// CheckFile).
func PlanFile(path string) (*Schedule, Result, error) { return checkFile(path, waitWarnings) }

// checkFile reads the schedule at path and checks it, with waits on
// untriggered events errors or warnings.
func checkFile(path string, waits waitCheck) (*Schedule, Result, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, Result{}, err
	}
	data, err := readSchedule(path, lim)
	if err != nil {
		return nil, Result{}, err
	}
	return check(path, data, lim, waits)
}

// PlanText is PlanFile for the schedule text data; file names it in errors.
func PlanText(file string, data []byte) (*Schedule, Result, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, Result{}, err
	}
	return check(file, data, lim, waitWarnings)
}

func check(file string, data []byte, lim yamlpos.Limits, waits waitCheck) (*Schedule, Result, error) {
	s, err := parse(file, data, lim)
	if err == nil {
		p := &planner{s: s}
		r := p.plan(waits)
		if err := p.err(); err != nil {
			return s, r, err
		}
		r.Warnings = p.warnings()
		return s, r, nil
	}
	var list *ErrorList
	if s == nil || !errors.As(err, &list) || list.Omitted > 0 {
		return nil, Result{}, err
	}
	bad := make([]string, len(list.Errs))
	for i, e := range list.Errs {
		bad[i] = e.Path
		switch e.Path {
		case "", "mode", "num_workers", "vector_worker_stride", "tasks", "cube_task_indices", "vector_task_indices", "kernel_family", "replica_gradients":
			// A value every rule needs, or the whole file: planning
			// would only repeat the problem in other words.
			return nil, Result{}, err
		}
	}
	p := &planner{s: s, skip: func(path string) bool {
		for _, b := range bad {
			if related(path, b) {
				return true
			}
		}
		return false
	}}
	p.plan(waits)
	if p.failed() {
		p.s.locate(&p.probs)
		list.Merge(&p.probs)
		list.Sort()
	}
	return nil, Result{}, list
}

// related reports whether YAML path a is b, or one lies under the other.
func related(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return strings.HasPrefix(b, a) && (len(b) == len(a) || b[len(a)] == '.' || b[len(a)] == '[')
}

// Parse parses the schedule text data; file names it in errors. Problems
// in the text are an *ErrorList. JSON text takes a fast path (a
// million-task schedule, 85 MB, in a fraction of a second); anything the
// fast path does not accept is parsed, and its problems reported, as
// YAML, which is capped: go-yaml's node tree takes about 30 times the
// text, so text past yamlpos.DefaultMaxYAMLBytes (8 MiB; the environment
// variable CYCLEABI_MAX_YAML_BYTES sets it) is refused with a
// *yamlpos.LimitError rather than parsed. Anything after the document (a
// second document, text after a JSON object) is a problem.
func Parse(file string, data []byte) (*Schedule, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, err
	}
	s, err := parse(file, data, lim)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// readSchedule reads the schedule at path: one too large for the YAML
// parser that does not open as JSON (the fast path) is refused from its
// size, without being read.
func readSchedule(path string, lim yamlpos.Limits) ([]byte, error) {
	return yamlpos.ReadDocumentFile(path, "schedule file", lim, func(head []byte) bool {
		t := bytes.TrimLeft(head, " \t\r\n")
		return len(t) == 0 || t[0] == '{'
	}, fmt.Sprintf("JSON (integers without a fraction or exponent, no unknown or repeated keys) takes a fast path up to the %s cap instead", yamlpos.MaxInputBytesEnv))
}

func parse(file string, data []byte, lim yamlpos.Limits) (*Schedule, error) {
	s, stop, ok := parseJSON(data)
	if ok {
		s.File = file
		s.src, s.fromJSON = data, true
		return s, nil
	}
	line, col := yamlpos.PositionOf(data, stop)
	note := fmt.Sprintf("JSON (integers without a fraction or exponent, no unknown or repeated keys) takes a fast path up to the %s cap instead; it stopped at line %d, column %d", yamlpos.MaxInputBytesEnv, line, col)
	return parseYAML(file, data, lim, note)
}
