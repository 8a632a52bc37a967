package analyze

import (
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// Labeler gives a record the labels analyze groups it by, for tools that
// show records one by one (export): the same rules as Analyze, from the
// same names and schedule.
type Labeler struct{ n namer }

// NewLabeler labels records under names and deps (either may be nil), as
// Analyze does under Options with the same Names and Deps.
func NewLabeler(names *kernelnames.Names, deps *flows.Dependencies) *Labeler {
	return &Labeler{namer{names: names, deps: deps}}
}

// Kind is the record's kind: KindCompute, KindWait, KindTrigger or
// KindOther.
func (l *Labeler) Kind(r *abi.ProfileRecord) string { return l.n.kind(r.DescID) }

// TaskType is the task type a compute record counts under in
// Report.TaskTypes; "" for other kinds.
func (l *Labeler) TaskType(r *abi.ProfileRecord) string {
	if l.n.kind(r.DescID) != KindCompute {
		return ""
	}
	return l.n.taskType(r)
}

// Stage is the stage a record counts under: Report.Stages for a compute
// record, Report.Waits (the stage of the waiting task) for a wait; ""
// for other kinds.
func (l *Labeler) Stage(r *abi.ProfileRecord) string {
	switch l.n.kind(r.DescID) {
	case KindCompute:
		return l.n.stage(r)
	case KindWait:
		return l.n.taskStage(r.TaskID)
	}
	return ""
}
