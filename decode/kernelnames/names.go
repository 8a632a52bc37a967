// Package kernelnames reads a kernel's names file (YAML or JSON): the
// names of its stages, graph stages and task stages, which the trace
// writers, analyze and dump show instead of numbers.
package kernelnames

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/yamlpos"
	"go.yaml.in/yaml/v3"
)

// Names are the display names a kernel gives its descriptors and tasks,
// read from a names file (YAML or JSON):
//
//	stages:          # desc_id -> name; overrides the schema's name for that id
//	  0x10001: Prefetch
//	graph_stages:    # graph stage s -> name (desc_id 0x30000 + s)
//	  0: Dispatch
//	  1: ExpertFFN
//	tasks:           # task_id -> the name of the task's stage
//	  0: Dispatch
//	  0x11: Combine
//
// Keys are decimal or 0x hex; every section is optional. A nil *Names
// names nothing: the schema's names and fallbacks apply.
type Names struct {
	// Stages maps a desc_id to its display name. The file's graph_stages
	// are here too, at desc_id abi.GraphStageBase+s.
	Stages map[uint32]string
	// Tasks maps a task_id to the name of the task's stage (its "task
	// stage"): shown as args.task_stage and prefixed to the names of its
	// WaitDependency and TriggerEvent records.
	Tasks TaskNames
	// Family is the kernel family the capture's ids are read under: its
	// stage names and task-type table come after the file's names and
	// before the schema's (abi.Family.DescSchemaName), and its stage
	// classes say what a record is (Class). abi.FamilyNone reads ids with
	// the schema's tables alone.
	Family abi.Family
}

// WithFamily returns names read under family f: a copy of n (which may be
// nil) with Family set. The tables are shared, not copied.
func (n *Names) WithFamily(f abi.Family) *Names {
	if n == nil {
		if f == abi.FamilyNone {
			return nil
		}
		return &Names{Family: f}
	}
	c := *n
	c.Family = f
	return &c
}

// family is n's family; abi.FamilyNone for nil names.
func (n *Names) family() abi.Family {
	if n == nil {
		return abi.FamilyNone
	}
	return n.Family
}

// Class returns what a record with desc_id id is, by the schema and n's
// family: the family's class for one of its stages; for other ids, a
// WaitDependency is a wait, a TriggerEvent a trigger, and an id in the
// task-type or graph-stage namespace compute (IsCompute), and so is a
// ReplicaW2Return (the even vector cores' own work in kernel-gradients
// mode, adding a replica's W2 gradient into its owner's: without it those
// cores would show no compute at all). Anything else (TerminateTask, an
// unnamed runtime stage, an id in no namespace) is abi.StageClass(0), none.
func (n *Names) Class(id uint32) abi.StageClass {
	// analyze asks for every record: no family lookup without a family.
	if n != nil && n.Family != abi.FamilyNone {
		if st, ok := n.Family.Stage(id); ok {
			return st.Class
		}
	}
	switch {
	case id == abi.RuntimeStageWaitDependency:
		return abi.StageWait
	case id == abi.RuntimeStageTriggerEvent:
		return abi.StageTrigger
	case id == abi.RuntimeStageReplicaW2Return, IsCompute(id):
		return abi.StageCompute
	}
	return 0
}

// StageName returns the display name of desc_id id: the names file's name
// when it has one, else the family's or the schema's
// (abi.Family.DescSchemaName), else the namespace's fallback
// ("TaskType_250", "GraphStage_5"), else "DescId_<id>".
func (n *Names) StageName(id uint32) string {
	if n != nil {
		if name, ok := n.Stages[id]; ok {
			return name
		}
	}
	return n.family().DescName(id)
}

// TaskTypeName returns the display name of task type t under n's family:
// its name ("MatMul"; under MegaMoe, 107 is "ShmemGetMem"), or for a task
// type the table does not name the task-type namespace's fallback
// ("TaskType_250").
func (n *Names) TaskTypeName(t uint32) string {
	if name, ok := n.family().TaskTypeName(t); ok {
		return name
	}
	return abi.FormatFallback(abi.NamespaceTaskType, abi.TaskTypeBase+t)
}

// TaskStage returns the name of task id's stage, if the names file gives one.
func (n *Names) TaskStage(id uint32) (string, bool) {
	if n == nil {
		return "", false
	}
	return n.Tasks.Lookup(id)
}

// EventName returns the trace-event name of a record (docs/decode.md):
// the stage name of its desc_id, prefixed with the task's stage name for
// the descriptors the schema marks (WaitDependency, TriggerEvent); with
// detailed names, "_task<stage_task_index+1>" appended and
// "<ownerLabel><owner_id>_" prefixed unless the record has no owner.
//
// The trace writer builds the same names without allocating; this is the
// plain statement of the rule.
func (n *Names) EventName(r *abi.ProfileRecord, detailed bool, ownerLabel string) string {
	name := n.StageName(r.DescID)
	if abi.TaskStagePrefixed(r.DescID) {
		if stage, ok := n.TaskStage(r.TaskID); ok {
			name = stage + "_" + name
		}
	}
	if !detailed {
		return name
	}
	name += "_task" + strconv.FormatUint(r.TaskNumber(), 10)
	if r.OwnerID == abi.InvalidOwnerID {
		return name
	}
	return ownerLabel + strconv.FormatUint(uint64(r.OwnerID), 10) + "_" + name
}

// Error is one problem in a names file, at a line and column,
// printed as "file:line:col: path: message"; Path is where in the file
// ("graph_stages.0x3"), or "".
type Error = yamlpos.Error

// Errors are every problem found in a names file, in file order (the
// first 20, and a count of the rest).
type Errors = yamlpos.List

// maxNamesErrors bounds the problems reported for one file.
const maxNamesErrors = 20

// Load reads a names file (YAML or JSON, which YAML reads the same
// way). The usual shapes take a fast path that reads the file as a stream,
// into tables of a few bytes a task (TaskNames); a file the fast paths do
// not read is read as YAML nodes, which is capped (8 MiB,
// CYCLEABI_MAX_YAML_BYTES): a larger one is refused from its size, having
// been read only as far as the fast path went. A file larger than the
// input cap of package yamlpos (1 GiB, CYCLEABI_MAX_INPUT_BYTES) is
// refused before it is read.
func Load(path string) (*Names, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, err
	}
	f, st, err := yamlpos.Open(path, "names file", lim)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return loadNames(path, f, st.Size(), lim)
}

// loadNames reads the size-byte names file r, named file in errors: whole
// when the YAML parser may read it, else as a stream through the fast
// path, and a second time to place a task named twice (locateDup).
func loadNames(file string, r io.ReaderAt, size int64, lim yamlpos.Limits) (*Names, error) {
	if size <= lim.YAML {
		data, err := io.ReadAll(io.NewSectionReader(r, 0, size))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return parseNames(file, data, lim)
	}
	n, stop, ok := parseNamesFast(file, io.NewSectionReader(r, 0, size), nil)
	switch {
	case ok:
		return n, nil
	case stop.err != nil:
		return nil, &Errors{Errs: []*Error{stop.err}}
	case stop.dup != nil:
		return nil, &Errors{Errs: []*Error{locateDup(file, io.NewSectionReader(r, 0, size), *stop.dup)}}
	}
	return nil, &yamlpos.LimitError{File: file, Size: size, Limit: lim.YAML, Env: yamlpos.MaxYAMLBytesEnv,
		What: "text read as YAML", Note: fastNote(stop)}
}

// locateDup finds where task id is named a second time in the names file
// src, by reading it again through the fast path, which stops there.
func locateDup(file string, src io.Reader, id uint32) *Error {
	if _, stop, _ := parseNamesFast(file, src, &id); stop.err != nil {
		return stop.err
	}
	return &Error{File: file, Path: fmt.Sprintf("tasks.%d", id), Msg: fmt.Sprintf("id %d is already named", id)}
}

// fastNote says where the fast path stopped, for a file too large for the
// YAML parser.
func fastNote(stop fastStop) string {
	return fmt.Sprintf("a JSON object of objects of plain strings, or block YAML of \"id: name\" lines, takes a fast path up to the %s cap instead; it stopped at line %d, column %d",
		yamlpos.MaxInputBytesEnv, stop.line, stop.col)
}

// Parse parses the contents of a names file; file labels errors.
// Problems come back as Errors, each with its line and column. A
// file the fast paths do not read is read as YAML nodes, which is capped
// (8 MiB, CYCLEABI_MAX_YAML_BYTES: go-yaml's nodes take about 30 times
// the text): past the cap it is a *yamlpos.LimitError. Anything after the
// document is a problem.
func Parse(file string, data []byte) (*Names, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, err
	}
	return parseNames(file, data, lim)
}

func parseNames(file string, data []byte, lim yamlpos.Limits) (*Names, error) {
	n, stop, ok := parseNamesFast(file, bytes.NewReader(data), nil)
	if ok {
		return n, nil
	}
	if int64(len(data)) > lim.YAML && stop.err != nil {
		return nil, &Errors{Errs: []*Error{stop.err}}
	}
	return parseNamesYAML(file, data, lim, fastNote(stop))
}

// namesSections are the keys of a names file.
var namesSections = []string{"stages", "graph_stages", "tasks"}

// parseNamesYAML parses a names file with go-yaml: every file the fast
// paths accept parses to the same Names here, and every problem is
// reported from here.
func parseNamesYAML(file string, data []byte, lim yamlpos.Limits, note string) (*Names, error) {
	p := namesParser{Reader: yamlpos.Reader{File: file, Errs: Errors{Max: maxNamesErrors}}}
	names := &Names{Stages: map[uint32]string{}}
	root, err := yamlpos.Document(file, "YAML or JSON", data, lim, note)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return nil, err
		}
		p.Errs.Add(e)
		return nil, &p.Errs
	}
	if root == nil || yamlpos.IsNull(root) {
		return names, nil // an empty file names nothing
	}
	if root.Kind != yaml.MappingNode {
		p.Errorf(root, "", "expected a mapping with stages, graph_stages and tasks, got %s", yamlpos.KindName(root))
		return nil, &p.Errs
	}
	m := p.Mapping(root, "", namesSections, nil)
	// Where each desc_id was named, to report stages and graph_stages
	// naming the same one; sections are read in file order, so the
	// second naming is the one reported.
	stageAt := map[uint32]*yaml.Node{}
	done := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key := yamlpos.Resolve(root.Content[i]).Value
		v := m[key]
		if v == nil || done[key] {
			continue // unknown or duplicate: reported by Mapping
		}
		done[key] = true
		switch key {
		case "stages":
			p.section(v, key, 1<<32-1, func(k *yaml.Node, id uint32, name string) {
				p.setStage(names, stageAt, k, key, id, name)
			})
		case "graph_stages":
			p.section(v, key, abi.GraphStageCount-1, func(k *yaml.Node, s uint32, name string) {
				id := uint32(abi.GraphStageBase) + s
				p.setStage(names, stageAt, k, key, id, abi.FormatDisplay(abi.NamespaceGraphStage, id, name))
			})
		case "tasks":
			p.section(v, key, 1<<32-1, func(_ *yaml.Node, id uint32, name string) {
				names.Tasks.add(id, name) // each id once: section checks
			})
		}
	}
	if err := p.Errs.Err(); err != nil {
		p.Errs.Sort()
		return nil, err
	}
	names.Tasks.finish()
	return names, nil
}

// namesParser reads a names file's nodes.
type namesParser struct {
	yamlpos.Reader
}

// section reads a mapping of id -> name with ids in [0, max], calling set
// for each well-formed entry. A name is a string by the rule of
// yamlpos.Reader: any scalar but null, as written.
func (p *namesParser) section(n *yaml.Node, path string, max uint64, set func(key *yaml.Node, id uint32, name string)) {
	if yamlpos.IsNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		p.Errorf(n, path, "expected a mapping of id -> name, got %s", yamlpos.KindName(n))
		return
	}
	seen := map[uint64]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := yamlpos.Resolve(n.Content[i]), yamlpos.Resolve(n.Content[i+1])
		at := path + "." + k.Value
		id, err := parseID(k)
		if err != "" {
			p.Errorf(k, at, "%s", err)
			continue
		}
		if id > max {
			p.Errorf(k, at, "%s is past the largest id %#x", k.Value, max)
			continue
		}
		if prev, dup := seen[id]; dup {
			p.Errorf(k, at, "id %d is already named at line %d", id, prev.Line)
			continue
		}
		seen[id] = k
		if !yamlpos.IsString(v) {
			p.Errorf(v, at, "expected a name, got %s", yamlpos.KindName(v))
			continue
		}
		if strings.TrimSpace(v.Value) == "" {
			p.Errorf(v, at, "a name must not be empty")
			continue
		}
		if len(v.Value) > MaxNameBytes {
			p.Errorf(v, at, "%s", longName())
			continue
		}
		set(k, uint32(id), v.Value)
	}
}

func (p *namesParser) setStage(names *Names, at map[uint32]*yaml.Node, key *yaml.Node, section string, id uint32, name string) {
	if prev, dup := at[id]; dup {
		p.Errorf(key, section+"."+key.Value, "desc_id %#x is already named at line %d", id, prev.Line)
		return
	}
	at[id] = key
	names.Stages[id] = name
}

var idRE = regexp.MustCompile(`^(?:0|[1-9][0-9]*|0[xX][0-9a-fA-F]+)$`)

// parseID reads a key: decimal without leading zeros, or 0x hex.
func parseID(k *yaml.Node) (uint64, string) {
	if k.Kind != yaml.ScalarNode || !idRE.MatchString(k.Value) {
		return 0, fmt.Sprintf("key %s is not an id (decimal, or hex with 0x)", yamlpos.KindName(k))
	}
	id, err := strconv.ParseUint(k.Value, 0, 64)
	if err != nil {
		return 0, fmt.Sprintf("id %s does not fit in 64 bits", k.Value)
	}
	return id, ""
}

// IsCompute reports whether a desc_id is a task's compute: the TaskType or
// GraphStage namespace.
func IsCompute(desc uint32) bool {
	ns, _ := abi.LookupDesc(desc)
	return ns == abi.NamespaceTaskType || ns == abi.NamespaceGraphStage
}
