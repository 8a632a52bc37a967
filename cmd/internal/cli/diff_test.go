package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lineCol is the 1-based line and column of byte off of s (its text is
// ASCII: a column is a byte).
func lineCol(s string, off int) string {
	line := 1 + strings.Count(s[:off], "\n")
	return fmt.Sprintf("%d:%d", line, off-strings.LastIndex(s[:off], "\n"))
}

// TestDiffReportErrors: a report diff cannot read is invalid input (exit
// 1) named with the line and column to blame; sections that do not pair
// are invalid input too.
func TestDiffReportErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	_, errOut, code := runMain(t, "analyze", moeCapture, "--format", "json", "-o", base)
	require.Equalf(t, 0, code, "%s: code", errOut)
	data, err := os.ReadFile(base)
	require.NoError(t, err)
	text := string(data)

	// replace swaps the first match of re's group 1 for with, and returns
	// the new text and the group's offset.
	replace := func(re, with string) (string, int) {
		m := regexp.MustCompile(re).FindStringSubmatchIndex(text)
		require.NotNilf(t, m, "%s: m is nil, want non-nil", re)
		return text[:m[2]] + with + text[m[3]:], m[2]
	}
	cases := []struct {
		name, text string
		off        int // the byte to blame
		msg        string
	}{
		{"truncated", text[:len(text)/2], len(text) / 2, "ends before the report does"},
	}
	add := func(name, re, with, msg string, shift int) {
		s, off := replace(re, with)
		cases = append(cases, struct {
			name, text string
			off        int
			msg        string
		}{name, s, off + shift, msg})
	}
	add("nan", `"makespan_us": ([0-9.e+-]+)`, "NaN", "invalid character 'N'", 0)
	add("inf", `"makespan_us": ([0-9.e+-]+)`, "-Infinity", "invalid character 'I'", 1)
	add("overflow", `"makespan_us": ([0-9.e+-]+)`, "1e999", "makespan_us: a number 1e999 where a float64 goes", 0)
	add("type", `"records": ([0-9]+)`, `"12\"x"`, `records: a string where a uint64 goes`, 0)
	add("object", `"records": ([0-9]+)`, `{"a": 1}`, `records: a object where a uint64 goes`, 0)
	add("negative", `"records": ([0-9]+)`, `-1`, `records: a number -1 where a uint64 goes`, 0)
	add("version", `"abi_version": ([0-9]+)`, "99", "abi_version 99: this cycleabi reads reports of ABI versions 1 to 2", 0)
	cases = append(cases, struct {
		name, text string
		off        int
		msg        string
	}{"trailing", text + "\n{}\n", len(text) + 1, "more after the report's closing brace"})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".json")
			require.NoError(t, os.WriteFile(path, []byte(c.text), 0o644))
			_, errOut, code := runMain(t, "diff", base, path)
			assert.Equalf(t, 1, code, "%s: code", errOut)
			assert.Contains(t, errOut, path+":"+lineCol(c.text, c.off)+": ", "errOut")
			assert.Contains(t, errOut, c.msg, "errOut")
		})
	}

	// Sections that do not pair: exit 1.
	r0, r1 := filepath.Join(dir, "rank0.bin"), filepath.Join(dir, "rank1.bin")
	capData, err := os.ReadFile(moeCapture)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(r0, capData, 0o644))
	_, errOut, code = runMain(t, "synth", moePlan, "--seed", "5", "-o", r1)
	require.Equalf(t, 0, code, "%s: code", errOut)
	two := filepath.Join(dir, "two.json")
	_, errOut, code = runMain(t, "analyze", r0, r1, "--format", "json", "-o", two)
	require.Equalf(t, 0, code, "%s: code", errOut)
	data, err = os.ReadFile(two)
	require.NoError(t, err)
	other := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(other, []byte(strings.Replace(string(data), `"rank": 1,`, `"rank": 7,`, 1)), 0o644))
	_, errOut, code = runMain(t, "diff", other, two)
	assert.Equalf(t, 1, code, "%s: code", errOut)
	assert.Contains(t, errOut, "rank 7 ("+r1+") is not in the new analysis", "errOut")
	_, errOut, code = runMain(t, "diff", base, two)
	assert.Equalf(t, 1, code, "%s: code", errOut)
	assert.Contains(t, errOut, "rank 1 ("+r1+") is not in the base analysis", "errOut")
	// report's --base pairs its sections the same way.
	_, errOut, code = runMain(t, "report", r0, r1, "--base", other, "-o", filepath.Join(dir, "r.html"))
	assert.Equalf(t, 1, code, "%s: code", errOut)
	assert.Contains(t, errOut, "rank 7 ("+r1+") is not in the new analysis", "errOut")
	assert.NoFileExists(t, filepath.Join(dir, "r.html"))
}
