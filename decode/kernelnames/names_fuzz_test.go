package kernelnames_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/fuzzseed"
)

// maxNamesText is the largest names file FuzzNamesFile looks at.
const maxNamesText = 64 << 10

// FuzzNamesFile parses arbitrary text as a kernel's names file. Parse
// never panics; an error is a list of Errors each naming the file and
// a line; names it accepts are the names StageName and TaskStage give back,
// and EventName uses them.
func FuzzNamesFile(f *testing.F) {
	fuzzseed.Files(f, "../../examples/*.names.yaml")
	for _, seed := range []string{
		"stages:\n  0x10001: Prefetch\ngraph_stages:\n  0: Dispatch\n  1: ExpertFFN\ntasks:\n  0: Dispatch\n  0x11: Combine\n",
		`{"stages": {"65537": "Prefetch"}, "graph_stages": {"3": "Gate"}, "tasks": {"17": "Combine"}}`,
		"graph_stages:\n  0x10000: TooBig\n",
		"tasks:\n  -1: Negative\n",
		"stages: [1, 2]\n",
		"stages:\n  1: a\n  1: b\n",
		"graph_stages: {0: \"\"}\n",
		"tasks: &a {0: x}\nstages: *a\n",
		"\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxNamesText {
			return
		}
		const file = "names.yaml"
		n, err := kernelnames.Parse(file, data)
		if err != nil {
			var list *kernelnames.Errors
			var one *kernelnames.Error
			switch {
			case errors.As(err, &list):
				if list.Len() == 0 {
					t.Fatalf("empty Errors")
				}
				for _, e := range list.Errs {
					checkNamesError(t, e, file)
				}
			case errors.As(err, &one):
				checkNamesError(t, one, file)
			default:
				t.Fatalf("Parse error is not a Error: %T %v", err, err)
			}
			return
		}
		for id, name := range n.Stages {
			if got := n.StageName(id); got != name {
				t.Fatalf("StageName(%#x) = %q, the file says %q", id, got, name)
			}
			r := abi.ProfileRecord{DescID: id, OwnerID: abi.InvalidOwnerID}
			if got := n.EventName(&r, false, ""); !strings.HasSuffix(got, name) {
				t.Fatalf("EventName of desc_id %#x = %q, does not end in %q", id, got, name)
			}
		}
		for id, name := range n.Tasks.All() {
			if got, ok := n.TaskStage(id); !ok || got != name {
				t.Fatalf("TaskStage(%d) = %q, %v; the file says %q", id, got, ok, name)
			}
			r := abi.ProfileRecord{DescID: abi.RuntimeStageWaitDependency, TaskID: id, OwnerID: abi.InvalidOwnerID}
			if got := n.EventName(&r, false, ""); !strings.HasPrefix(got, name+"_") {
				t.Fatalf("EventName of a wait of task %d = %q, not prefixed with %q", id, got, name)
			}
		}
	})
}

func checkNamesError(t *testing.T, e *kernelnames.Error, file string) {
	t.Helper()
	if e.File != file || e.Line < 1 {
		t.Fatalf("names error without file and line: %+v", e)
	}
}
