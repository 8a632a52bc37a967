package abi_test

import (
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSystemCounterMHz(t *testing.T) {
	for soc, want := range map[string]float64{
		"Ascend910B2":    50,
		"ascend910b":     50,
		"Ascend910C":     50,
		"910_93":         50,
		"Ascend910_9391": 50,
		"ascend950":      1000,
		"Ascend950PR":    1000,
		" Ascend-910B3 ": 50,
		"ASCEND 950":     1000,
		"nvidia":         1000,
		"NVIDIA H200":    1000,
		"nvidia_h200":    1000,
	} {
		got, err := abi.SystemCounterMHz(soc)
		require.NoErrorf(t, err, "SystemCounterMHz(%q)", soc)
		assert.Equalf(t, want, got, "SystemCounterMHz(%q)", soc)
	}
}

func TestUnsupportedSoC(t *testing.T) {
	for _, soc := range []string{"Ascend310P", "", "910", "gpu", "ascendnvidia", "nvidi"} {
		_, err := abi.SystemCounterMHz(soc)
		var u *abi.UnsupportedSoCError
		require.ErrorAsf(t, err, &u, "SystemCounterMHz = %v", err)
		assert.Equalf(t, soc, u.Name, "SystemCounterMHz = %v", err)
	}
	_, err := abi.SystemCounterMHz("Ascend310P")
	want := `abi: unsupported SoC for MegaKernel profiling: "Ascend310P"; supported SoC prefixes: ascend910_93, ascend910b, ascend910c, ascend950, nvidia`
	assert.EqualErrorf(t, err, want, "error = %v\nwant   %s", err, want)
}

func TestNormalizeSoCName(t *testing.T) {
	for in, want := range map[string]string{
		"Ascend910B2":  "ascend910b2",
		"910_93":       "910_93",
		"Ascend 950-X": "ascend950x",
		"NVIDIA H200":  "nvidiah200",
		"":             "",
		"ascendÄ1":     "ascendä1",
	} {
		assert.Equalf(t, want, abi.NormalizeSoCName(in), "NormalizeSoCName(%q)", in)
	}
}

func TestSoCs(t *testing.T) {
	socs := abi.SoCs()
	require.Len(t, socs, 5, "SoCs()")
	require.Equal(t, (abi.SoC{Prefix: "ascend910b", MHz: 50}), socs[0], "SoCs()")
	require.Equal(t, (abi.SoC{Prefix: "ascend950", MHz: 1000}), socs[3], "SoCs()")
	assert.Equal(t, (abi.SoC{Prefix: "nvidia", MHz: 1000}), socs[4], "SoCs()")
	socs[0].MHz = 1
	assert.Equal(t, float64(50), abi.SoCs()[0].MHz, "SoCs shares its backing array")
}
