package analyze_test

import (
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/assert"
)

// InputDifferences: a line per flag whose inputs differ (files by their
// bytes' hash), one line for a side that records none, nothing when
// neither does.
func TestInputDifferences(t *testing.T) {
	plan := analyze.Input{Flag: "--plan", Value: "a.yaml", SHA256: "1111111111111111"}
	moved := analyze.Input{Flag: "--plan", Value: "b/a.yaml", SHA256: "1111111111111111"}
	edited := analyze.Input{Flag: "--plan", Value: "a.yaml", SHA256: "2222222222222222"}
	rep := func(ins ...analyze.Input) *analyze.Report {
		if ins == nil {
			ins = []analyze.Input{}
		}
		return &analyze.Report{Inputs: &ins}
	}
	for _, tc := range []struct {
		name      string
		base, new *analyze.Report
		want      []string
	}{
		{"same", rep(plan), rep(plan), nil},
		{"moved", rep(plan), rep(moved), nil},
		{"edited", rep(plan), rep(edited), []string{"--plan: base a.yaml (sha256 111111111111…), new a.yaml (sha256 222222222222…)"}},
		{"dropped", rep(plan), rep(), []string{"--plan: base a.yaml (sha256 111111111111…), new none"}},
		{"unrecorded", &analyze.Report{}, rep(plan), []string{"the base analysis does not record its inputs (an analyze --format json report of an older cycleabi): they cannot be compared"}},
		{"neither", &analyze.Report{}, &analyze.Report{}, nil},
	} {
		assert.Equalf(t, tc.want, analyze.InputDifferences(tc.base, tc.new), "%s", tc.name)
	}
}
