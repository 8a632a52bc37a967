package tracemerge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSwappedArguments: a MegaKernel trace given as the framework trace
// and a framework trace as the MegaKernel trace is named for what it is.
func TestSwappedArguments(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	_, err := runMerge(t, Options{Framework: mk, MegaKernel: fw})
	require.ErrorContainsf(t, err, "the arguments are swapped?", "error %v, want one saying the arguments are swapped", err)
	// A framework trace without one in either place is not called swapped.
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: fw})
	require.Errorf(t, err, "error %v, want no megaKernelCycleTrace and no word of swapping", err)
	require.NotContainsf(t, err.Error(), "swapped", "error %v, want no megaKernelCycleTrace and no word of swapping", err)
	require.Containsf(t, err.Error(), "no megaKernelCycleTrace", "error %v, want no megaKernelCycleTrace and no word of swapping", err)
}

// TestMergedTraceAsMegaKernel: merge's own output given as the MegaKernel
// trace is named a merged trace.
func TestMergedTraceAsMegaKernel(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	merged := writeFile(t, "m.json", string(m.raw))
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: merged})
	require.ErrorContainsf(t, err, "a merged trace", "error %v, want one naming a merged trace", err)
}

// TestDeviceMismatch: an outer kernel whose args name another device
// than the MegaKernel trace's deviceId is merged with a warning naming
// both devices; the same device, or an outer kernel naming none, has no
// such warning.
func TestDeviceMismatch(t *testing.T) {
	mk := writeMK(t, simpleMK, `{"schemaVersion":1,"rank":0,"deviceId":3,"kernelName":"HyperMegaMoe","recordCount":3}`)
	for _, c := range []struct {
		args string
		warn bool
	}{{`{"device":5}`, true}, {`{"Device Id":"5"}`, true}, {`{"device":3}`, false}, {`{}`, false}} {
		fw := writeFile(t, "fw.json", `{"traceEvents":[{"name":"HyperMegaMoe_x","cat":"kernel","ph":"X","pid":1,"tid":2,"ts":100,"dur":50,"args":`+c.args+`}]}`)
		m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
		require.NoError(t, err)
		var said bool
		for _, w := range m.res["warnings"].([]any) {
			said = said || strings.Contains(w.(string), "of device 3, its outer kernel \"HyperMegaMoe_x\" of device 5")
		}
		assert.Equal(t, c.warn, said, "args %s: warnings %v: the device warning", c.args, m.res["warnings"])
	}
}
