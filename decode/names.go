package decode

import (
	"fmt"
	"os"
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
	Tasks map[uint32]string
}

// StageName returns the display name of desc_id id: the names file's name
// when it has one, else the schema's, else the namespace's fallback
// ("TaskType_250", "GraphStage_5"), else "DescId_<id>".
func (n *Names) StageName(id uint32) string {
	if n != nil {
		if name, ok := n.Stages[id]; ok {
			return name
		}
	}
	if name, ok := abi.DescSchemaName(id); ok {
		return name
	}
	ns, _ := abi.LookupDesc(id)
	return abi.FormatFallback(ns, id)
}

// TaskStage returns the name of task id's stage, if the names file gives one.
func (n *Names) TaskStage(id uint32) (string, bool) {
	if n == nil {
		return "", false
	}
	name, ok := n.Tasks[id]
	return name, ok
}

// EventName returns the trace-event name of a record (SPEC.md, "Decoding"):
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

// NamesError is one problem in a names file, at a line and column,
// printed as "file:line:col: path: message"; Path is where in the file
// ("graph_stages.0x3"), or "".
type NamesError = yamlpos.Error

// NamesErrors are every problem found in a names file, in file order (the
// first 20, and a count of the rest).
type NamesErrors = yamlpos.List

// maxNamesErrors bounds the problems reported for one file.
const maxNamesErrors = 20

// LoadNames reads a names file (YAML or JSON, which YAML reads the same
// way; large files of the usual shapes take a fast path).
func LoadNames(path string) (*Names, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseNames(path, data)
}

// ParseNames parses the contents of a names file; file labels errors.
// Problems come back as NamesErrors, each with its line and column.
func ParseNames(file string, data []byte) (*Names, error) {
	if n, ok := parseNamesFast(data); ok {
		return n, nil
	}
	return parseNamesYAML(file, data)
}

// parseNamesYAML parses a names file with go-yaml: every file the fast
// paths accept parses to the same Names here, and every problem is
// reported from here.
func parseNamesYAML(file string, data []byte) (*Names, error) {
	p := namesParser{file: file, errs: &NamesErrors{Max: maxNamesErrors}}
	names := &Names{Stages: map[uint32]string{}, Tasks: map[uint32]string{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.errs.Add(yamlpos.Syntax(file, "YAML or JSON", err))
		return nil, p.errs
	}
	if len(doc.Content) == 0 {
		return names, nil // an empty file names nothing
	}
	root := resolveAlias(doc.Content[0])
	if isNull(root) {
		return names, nil
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(root, "", "expected a mapping with stages, graph_stages and tasks, got %s", kindName(root))
		return nil, p.errs
	}
	// Where each desc_id was named, to report stages and graph_stages
	// naming the same one.
	stageAt := map[uint32]*yaml.Node{}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolveAlias(root.Content[i+1])
		if seen[k.Value] {
			p.errorf(k, k.Value, "duplicate key %q", k.Value)
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "stages":
			p.section(v, k.Value, 1<<32-1, func(key *yaml.Node, id uint32, name string) {
				p.setStage(names, stageAt, key, k.Value, id, name)
			})
		case "graph_stages":
			p.section(v, k.Value, abi.GraphStageCount-1, func(key *yaml.Node, s uint32, name string) {
				id := uint32(abi.GraphStageBase) + s
				p.setStage(names, stageAt, key, k.Value, id, abi.FormatDisplay(abi.NamespaceGraphStage, id, name))
			})
		case "tasks":
			p.section(v, k.Value, 1<<32-1, func(_ *yaml.Node, id uint32, name string) {
				names.Tasks[id] = name
			})
		default:
			p.errorf(k, k.Value, "unknown key %q (known: stages, graph_stages, tasks)", k.Value)
		}
	}
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	return names, nil
}

type namesParser struct {
	file string
	errs *NamesErrors
}

func (p *namesParser) errorf(n *yaml.Node, path, format string, args ...any) {
	p.errs.Add(yamlpos.At(p.file, n, path, format, args...))
}

// section reads a mapping of id -> name with ids in [0, max], calling set
// for each well-formed entry.
func (p *namesParser) section(n *yaml.Node, path string, max uint64, set func(key *yaml.Node, id uint32, name string)) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "expected a mapping of id -> name, got %s", kindName(n))
		return
	}
	seen := map[uint64]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolveAlias(n.Content[i]), resolveAlias(n.Content[i+1])
		at := path + "." + k.Value
		id, err := parseID(k)
		if err != "" {
			p.errorf(k, at, "%s", err)
			continue
		}
		if id > max {
			p.errorf(k, at, "%s is past the largest id %#x", k.Value, max)
			continue
		}
		if prev, dup := seen[id]; dup {
			p.errorf(k, at, "id %d is already named at line %d", id, prev.Line)
			continue
		}
		seen[id] = k
		if v.Kind != yaml.ScalarNode || isNull(v) {
			p.errorf(v, at, "expected a name, got %s", kindName(v))
			continue
		}
		if strings.TrimSpace(v.Value) == "" {
			p.errorf(v, at, "a name must not be empty")
			continue
		}
		set(k, uint32(id), v.Value)
	}
}

func (p *namesParser) setStage(names *Names, at map[uint32]*yaml.Node, key *yaml.Node, section string, id uint32, name string) {
	if prev, dup := at[id]; dup {
		p.errorf(key, section+"."+key.Value, "desc_id %#x is already named at line %d", id, prev.Line)
		return
	}
	at[id] = key
	names.Stages[id] = name
}

var idRE = regexp.MustCompile(`^(?:0|[1-9][0-9]*|0[xX][0-9a-fA-F]+)$`)

// parseID reads a key: decimal without leading zeros, or 0x hex.
func parseID(k *yaml.Node) (uint64, string) {
	if k.Kind != yaml.ScalarNode || !idRE.MatchString(k.Value) {
		return 0, fmt.Sprintf("key %s is not an id (decimal, or hex with 0x)", kindName(k))
	}
	id, err := strconv.ParseUint(k.Value, 0, 64)
	if err != nil {
		return 0, fmt.Sprintf("id %s does not fit in 64 bits", k.Value)
	}
	return id, ""
}

func isNull(n *yaml.Node) bool             { return yamlpos.IsNull(n) }
func resolveAlias(n *yaml.Node) *yaml.Node { return yamlpos.Resolve(n) }
func kindName(n *yaml.Node) string         { return yamlpos.KindName(n) }
