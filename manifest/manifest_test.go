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
	require.Equal(t, []string{"a.bin", "b.bin"}, Captures(js), "Captures(js)")
	require.Equal(t, ptr(uint32(2)), js[1].Rank, "js[1].Rank")

	// Aliases are followed; an optional key given as null is absent; an
	// integer may be hex; a capture named by a number is that file name.
	got, err = Parse("w.yaml", []byte("- &fwd {capture: 12, step: 0x10, rank: ~, invocation_id: null, kernel_name: null}\n- *fwd\n"))
	require.NoError(t, err)
	want := Entry{Capture: "12", Step: ptr(int64(16)), Line: 1}
	require.Equal(t, []Entry{want, want}, got)
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		``:                                   "m.yaml: empty manifest: expected a list of captures",
		`~`:                                  "m.yaml: empty manifest: expected a list of captures",
		`{capture: a.bin}`:                   "m.yaml:1:1: a manifest is a list of {capture, rank, invocation_id, step, direction, kernel_name}, got a mapping",
		`[]`:                                 "m.yaml:1:1: the manifest lists no capture",
		"- a.bin":                            `m.yaml:1:3: [0]: expected a mapping, got "a.bin"`,
		"- {rank: 1}":                        `m.yaml:1:3: [0]: missing required key "capture"`,
		"- {capture: null}":                  "m.yaml:1:13: [0].capture: expected a string, got null",
		"- {capture: ''}":                    "m.yaml:1:13: [0].capture: empty capture path",
		"- {capture: a, dir: forward}":       "m.yaml:1:16: [0].dir: unknown key \"dir\"; did you mean direction?\nknown keys of an entry: capture, rank, invocation_id, step, direction, kernel_name",
		"- {capture: a, capture: b}":         `m.yaml:1:16: [0].capture: duplicate key "capture"`,
		"- {capture: a, direction: sideway}": `m.yaml:1:27: [0].direction: direction "sideway" is not forward or backward`,
		"- {capture: a, direction: [x]}":     "m.yaml:1:27: [0].direction: expected a string, got a list",
		"- {capture: a, rank: -1}":           "m.yaml:1:22: [0].rank: -1 is below the minimum 0",
		"- {capture: a, rank: 2147483648}":   "m.yaml:1:22: [0].rank: 2147483648 exceeds the maximum 2147483647",
		"- {capture: a, invocation_id: -2}":  "m.yaml:1:31: [0].invocation_id: -2 is below the minimum 0",
		// An integer is a YAML integer: 3.5 and "3" are not steps.
		"- {capture: a}\n- {capture: b, step: x}": `m.yaml:2:22: [1].step: expected an integer, got "x"`,
		"- {capture: a, step: 3.5}":               `m.yaml:1:22: [0].step: expected an integer, got "3.5"`,
		`- {capture: a, step: "3"}`:               `m.yaml:1:22: [0].step: expected an integer, got "3"`,
		"- {capture: a\n":                         "m.yaml:1:1: invalid YAML or JSON: did not find expected ',' or '}'",
		// One document: nothing may follow it.
		"- {capture: a}\n---\n- {capture: b}\n": "m.yaml:2:1: a second document starts here; the file must hold one",
		`[{"capture": "a"}] junk`:               "m.yaml:1:20: text after the end of the document",
		// Every problem, in file order.
		"- {capture: b, rank: 3000000000}\n- {rank: 1, invocation_id: -2}": "m.yaml:1:22: [0].rank: 3000000000 exceeds the maximum 2147483647\n" +
			"m.yaml:2:3: [1]: missing required key \"capture\"\nm.yaml:2:28: [1].invocation_id: -2 is below the minimum 0",
	} {
		_, err := Parse("m.yaml", []byte(in))
		require.Errorf(t, err, "%s: got no error, want one", in)
		require.Equalf(t, want, err.Error(), "%s: err.Error()", in)
	}
	_, err := Load(filepath.Join(t.TempDir(), "missing.yaml"))
	require.ErrorIsf(t, err, os.ErrNotExist, "error %v, want one matching %v", err, os.ErrNotExist)
}
