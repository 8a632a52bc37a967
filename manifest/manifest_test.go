package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

func TestParse(t *testing.T) {
	yamlText := `# a window of two launches
- {capture: fwd_r0.bin, rank: 0, invocation_id: 4, step: 3, direction: forward, kernel_name: HyperMegaMoe}
- capture: /abs/bwd_r0.bin
  step: 3
  direction: backward
`
	got, err := Parse("runs/w.yaml", []byte(yamlText))
	require.NoError(t, err)
	require.Equal(t, []Entry{
		{Capture: filepath.Join("runs", "fwd_r0.bin"), Rank: ptr(uint32(0)), InvocationID: ptr(int64(4)), Step: ptr(int64(3)), Direction: "forward", KernelName: "HyperMegaMoe", Line: 2},
		{Capture: "/abs/bwd_r0.bin", Step: ptr(int64(3)), Direction: "backward", Line: 3},
	}, got)
	js, err := Parse("w.json", []byte(`[{"capture":"a.bin","rank":2},{"capture":"b.bin","rank":2,"direction":null}]`))
	require.NoError(t, err)
	require.Equal(t, []string{"a.bin", "b.bin"}, Captures(js))
	require.Equal(t, ptr(uint32(2)), js[1].Rank)
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		``:                                   "m.yaml: empty manifest",
		`{capture: a.bin}`:                   "m.yaml:1:1: a manifest is a list",
		`[]`:                                 "m.yaml:1:1: the manifest lists no capture",
		"- a.bin":                            "m.yaml:1:3: [0]: expected a mapping",
		"- {rank: 1}":                        "m.yaml:1:3: [0]: no capture",
		"- {capture: a, dir: forward}":       `m.yaml:1:16: [0]: unknown key "dir"`,
		"- {capture: a, direction: sideway}": `m.yaml:1:3: [0]: direction "sideway" is not forward or backward`,
		"- {capture: a, rank: -1}":           "m.yaml:1:3: [0]: rank -1 is not in [0, 2147483647]",
		"- {capture: a}\n- {capture: b, step: x}": "m.yaml: [1]: line 2: cannot unmarshal !!str `x` into int64",
		"- {capture: a\n":                         "m.yaml: yaml: line 1: did not find expected ',' or '}'",
	} {
		_, err := Parse("m.yaml", []byte(in))
		require.ErrorContains(t, err, want, in)
	}
	_, err := Load(filepath.Join(t.TempDir(), "missing.yaml"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
