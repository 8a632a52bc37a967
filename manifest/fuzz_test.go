package manifest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse: any text gives entries that keep the manifest's promises, or
// an error naming the file; never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"- {capture: fwd_r0.bin, rank: 0, invocation_id: 4, step: 3, direction: forward, kernel_name: K}\n- capture: b.bin\n",
		`[{"capture":"a.bin","rank":2,"step":null}]`,
		"- &a {capture: a}\n- *a\n",
		"- {capture: a, step: 3.5}",
		"- {capture: a}\n---\n- {capture: b}\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		entries, err := Parse("m.yaml", []byte(text))
		if err != nil {
			require.Truef(t, strings.HasPrefix(err.Error(), "m.yaml"), "error does not name the file: %v", err)
			return
		}
		require.NotEmpty(t, entries, "no entries and no error")
		for i, e := range entries {
			switch {
			case e.Capture == "":
				require.FailNow(t, fmt.Sprintf("entry %d: empty capture", i))
			case e.Direction != "" && e.Direction != "forward" && e.Direction != "backward":
				require.FailNow(t, fmt.Sprintf("entry %d: direction %q", i, e.Direction))
			case e.Rank != nil && *e.Rank > maxRank:
				require.FailNow(t, fmt.Sprintf("entry %d: rank %d", i, *e.Rank))
			case e.InvocationID != nil && *e.InvocationID < 0:
				require.FailNow(t, fmt.Sprintf("entry %d: invocation id %d", i, *e.InvocationID))
			case e.Line < 1:
				require.FailNow(t, fmt.Sprintf("entry %d: line %d", i, e.Line))
			}
		}
	})
}
