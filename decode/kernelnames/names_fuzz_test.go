package kernelnames_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/fuzzseed"
	"github.com/stretchr/testify/require"
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
				require.NotEqual(t, 0, list.Len(), "empty Errors")
				for _, e := range list.Errs {
					checkNamesError(t, e, file)
				}
			case errors.As(err, &one):
				checkNamesError(t, one, file)
			default:
				require.FailNow(t, fmt.Sprintf("Parse error is not a Error: %T %v", err, err))
			}
			return
		}
		for id, name := range n.Stages {
			require.Equalf(t, name, n.StageName(id), "StageName(%#x)", id)
			r := abi.ProfileRecord{DescID: id, OwnerID: abi.InvalidOwnerID}
			require.Truef(t, strings.HasSuffix(n.EventName(&r, false, ""), name), "EventName of desc_id %#x, does not end in %q", id, name)
		}
		for id, name := range n.Tasks.All() {
			got, ok := n.TaskStage(id)
			require.Truef(t, ok, "TaskStage(%d), %v; the file says", id, ok)
			require.Equalf(t, name, got, "TaskStage(%d), %v; the file says", id, ok)
			r := abi.ProfileRecord{DescID: abi.RuntimeStageWaitDependency, TaskID: id, OwnerID: abi.InvalidOwnerID}
			require.Truef(t, strings.HasPrefix(n.EventName(&r, false, ""), name+"_"), "EventName of a wait of task %d, not prefixed with %q", id, name)
		}
	})
}

func checkNamesError(t *testing.T, e *kernelnames.Error, file string) {
	t.Helper()
	require.Equalf(t, file, e.File, "names error without file and line: %+v", e)
	require.GreaterOrEqualf(t, e.Line, 1, "names error without file and line: %+v", e)
}
