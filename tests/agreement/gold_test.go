package agreement_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The gold capture: the harness's "gold" scenario, written by the C++
// helpers and committed with its manifest, so that every machine decodes
// device-written bytes even without a C++ compiler (FlatBuffers'
// monsterdata_test.mon).
const (
	goldBin      = "testdata/gold.bin"
	goldManifest = "testdata/gold.manifest"
)

// TestGoldRegenerates runs the harness built with every compiler on PATH
// and requires the gold scenario's bytes and manifest to be the committed
// ones: a change to the header's writer that moves a byte shows here as a
// diff of the gold file. With -update it rewrites them instead.
func TestGoldRegenerates(t *testing.T) {
	wantBin, errBin := os.ReadFile(goldBin)
	wantText, errText := os.ReadFile(goldManifest)
	for i, cxx := range cxxtest.Compilers(t) {
		t.Run(cxx.Name, func(t *testing.T) {
			exe := buildHarness(t, harnessBuild{cxx: cxx, std: "c++11"})
			dir, text := runHarness(t, exe, "gold")
			bin, err := os.ReadFile(filepath.Join(dir, "gold.bin"))
			require.NoError(t, err)
			if golden.Update() && i == 0 { // the first compiler writes; the others must agree with it
				require.NoError(t, os.WriteFile(goldBin, bin, 0o644))
				require.NoError(t, os.WriteFile(goldManifest, text, 0o644))
				wantBin, errBin, wantText, errText = bin, nil, text, nil
				return
			}
			require.NoError(t, errBin, "no committed gold capture")
			require.NoError(t, errText, "no committed gold capture")
			if !assert.Truef(t, bytes.Equal(text, wantText), "the harness's gold manifest differs from %s; if the change is intended, run go test ./tests/agreement -run Gold -update", goldManifest) {
				t.Log(golden.FirstDiff(text, wantText))
			}
			if !assert.Truef(t, bytes.Equal(bin, wantBin), "the harness's gold.bin differs from %s; if the change is intended, run go test ./tests/agreement -run Gold -update", goldBin) {
				t.Log(golden.FirstDiff(bin, wantBin))
			}

		})
	}
}

// TestGoldDecodes decodes the committed gold capture with every Go reader
// and requires exactly its committed manifest. It needs no compiler.
func TestGoldDecodes(t *testing.T) {
	text, err := os.ReadFile(goldManifest)
	require.NoError(t, err)
	m, err := parseManifest(text)
	require.NoError(t, err)
	require.Lenf(t, m, 1, "%s must describe the one capture gold.bin", goldManifest)
	require.Equalf(t, "gold", m[0].Name, "%s must describe the one capture gold.bin", goldManifest)
	require.Equalf(t, filepath.Base(goldBin), m[0].File, "%s must describe the one capture gold.bin", goldManifest)
	checkAgreement(t, goldBin, m[0])
}
