package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeUpstreamCompat: decode --upstream-compat writes the example
// capture as upstream's export writes it (the tests in tests/agreement
// hold it to the drop-in's Python byte for byte); a buffer upstream
// refuses exits 1 naming the file; a configuration that does not fit the
// captures, or a decode flag it replaces, exits 2 and writes nothing.
func TestDecodeUpstreamCompat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "req.json")
	require.NoError(t, os.WriteFile(config, []byte(`{"invocations": [{"config": {"rank": 3, "device_id": null,
		"cycle_frequency_mhz": 50.0, "detailed_task_names": false, "kernel_name": "MegaMoe", "owner_label": "Expert",
		"stage_names": {}, "soc_name": "Ascend910B2", "task_stage_names": {}}}]}`), 0o644))
	capture := filepath.Join("..", "..", "..", "examples", "moe_layer.bin")
	out := filepath.Join(dir, "trace.json")
	_, errOut, code := runMain(t, "decode", "--upstream-compat", capture, "--upstream-config", config, "-o", out)
	require.Equal(t, ExitOK, code, errOut)
	var trace struct {
		TraceEvents []map[string]any `json:"traceEvents"`
		Meta        map[string]any   `json:"megaKernelCycleTrace"`
	}
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &trace))
	assert.Equal(t, "MegaMoe rank 3 device 3", trace.TraceEvents[0]["args"].(map[string]any)["name"])
	assert.Equal(t, "Ascend910B2", trace.Meta["socName"])
	assert.EqualValues(t, len(trace.TraceEvents)-int(trace.Meta["recordCount"].(float64)), 1+2*countThreads(trace.TraceEvents))

	bad := filepath.Join(dir, "bad.bin")
	raw, err := os.ReadFile(capture)
	require.NoError(t, err)
	raw[20] = 5 // AIC slot 0 says block 5
	require.NoError(t, os.WriteFile(bad, raw, 0o644))
	gone := filepath.Join(dir, "gone.json")
	_, errOut, code = runMain(t, "decode", "--upstream-compat", bad, "--upstream-config", config, "-o", gone)
	assert.Equal(t, ExitInvalid, code)
	assert.Contains(t, errOut, bad+": byte 0: Profile slot identity mismatch: slot=0, expected=(1, 0), got=(1, 5)")
	assert.NoFileExists(t, gone)

	for _, args := range [][]string{
		{"decode", "--upstream-compat", capture, capture, "--upstream-config", config, "-o", gone},
		{"decode", "--upstream-compat", capture, "-o", gone},
		{"decode", "--upstream-compat", capture, "--upstream-config", config, "--rank", "2", "-o", gone},
		{"decode", capture, "--upstream-config", config, "-o", gone},
	} {
		_, errOut, code = runMain(t, args...)
		assert.Equal(t, ExitUsage, code, "%v: %s", args, errOut)
		assert.NoFileExists(t, gone)
	}
}

func countThreads(events []map[string]any) int {
	n := 0
	for _, e := range events {
		if e["name"] == "thread_name" {
			n++
		}
	}
	return n
}
