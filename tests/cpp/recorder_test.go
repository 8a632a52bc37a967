package cpp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorderCheck watches the header's device writers through their hooks
// (see the file's comment).
const recorderCheck = "testdata/recorder_check.cpp"

// recorderChecks are the checks recorder_check runs, in its order.
var recorderChecks = []string{"order/recorder", "order/append", "full/recorder", "full/zero-capacity", "invalid/capacity", "invalid/worker", "reinit"}

// runRecorderCheck builds recorder_check against the header in includeDir
// and runs it; it returns what it printed and whether it exited 0.
func runRecorderCheck(t *testing.T, cxx cxxtest.Compiler, std, includeDir string) (lines []string, ok bool) {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "recorder_check")
	cxx.Compile(t, std, "-O2", "-I", includeDir, "-o", exe, recorderCheck)
	out, err := exec.Command(exe).Output()
	_, exited := err.(*exec.ExitError)
	require.Falsef(t, err != nil && !exited, "%v", err)
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"), err == nil
}

// TestRecorderRules runs recorder_check, built with every compiler on PATH
// at the oldest and newest standard, against the committed header: the
// Recorder and AppendRecord publish each record after its body, in
// upstream's barrier order; a full slot counts drops and writes nothing
// past itself; a bad capacity or a core with no slot traps and writes
// nothing.
func TestRecorderRules(t *testing.T) {
	var want []string
	for _, c := range recorderChecks {
		want = append(want, "PASS "+c)
	}
	for _, cxx := range cxxtest.Compilers(t) {
		for _, std := range []string{"c++11", "c++20"} {
			t.Run(cxx.Name+"/"+std, func(t *testing.T) {
				t.Parallel()
				lines, ok := runRecorderCheck(t, cxx, std, genCpp)
				assert.Equal(t, strings.Join(want, "\n"), strings.Join(lines, "\n"), "recorder_check printed")
				assert.True(t, ok, "recorder_check exits with success")
			})
		}
	}
}

// recorderMutants each break one rule in a copy of the header (old, which
// must occur exactly once, becomes new); recorder_check must then fail
// every check in fails.
var recorderMutants = []struct {
	name, old, new string
	fails          []string
}{{
	name:  "count published before the body",
	old:   "  record->start_cycle = start_cycle;\n",
	new:   "  header->record_count = index + 1;\n  record->start_cycle = start_cycle;\n",
	fails: []string{"order/recorder", "order/append"},
}, {
	name:  "a field written after the count",
	old:   "  record->owner_id = owner_id;\n}\n",
	new:   "  header->record_count = index + 1;\n  record->owner_id = owner_id;\n}\n",
	fails: []string{"order/recorder", "order/append"},
}, {
	name:  "no barrier between the body and the count",
	old:   "  CYCLEABI_BARRIER();\n  CYCLEABI_PUBLISH_STORE(&header->record_count, count);\n",
	new:   "  CYCLEABI_PUBLISH_STORE(&header->record_count, count);\n",
	fails: []string{"order/recorder", "order/append"},
}, {
	name:  "no barrier after the count",
	old:   "  CYCLEABI_PUBLISH_STORE(&header->record_count, count);\n  CYCLEABI_BARRIER();\n}",
	new:   "  CYCLEABI_PUBLISH_STORE(&header->record_count, count);\n}",
	fails: []string{"order/recorder", "order/append"},
}, {
	name:  "AppendRecord does not publish",
	old:   "  detail::PublishCount(header, index + 1);\n",
	new:   "",
	fails: []string{"order/append"},
}, {
	name:  "Record does not publish",
	old:   "    if (detail::PublishesAt(count_)) {\n      detail::PublishCount(header_, count_);\n    }\n    return true;\n",
	new:   "    return true;\n",
	fails: []string{"order/recorder"},
}, {
	name:  "no trap on a bad capacity",
	old:   "    if (!IsValidCapacity(aic_capacity) || !IsValidCapacity(aiv_capacity)) {\n      CYCLEABI_TRAP();\n",
	new:   "    if (!IsValidCapacity(aic_capacity) || !IsValidCapacity(aiv_capacity)) {\n",
	fails: []string{"invalid/capacity"},
}, {
	name:  "no capacity check",
	old:   "    if (!IsValidCapacity(aic_capacity) || !IsValidCapacity(aiv_capacity)) {\n      CYCLEABI_TRAP();\n",
	new:   "    if (false) {\n      CYCLEABI_TRAP();\n",
	fails: []string{"invalid/capacity"},
}, {
	name:  "no trap for a core without a slot",
	old:   "    if (header_ == nullptr) {\n      CYCLEABI_TRAP();\n",
	new:   "    if (header_ == nullptr) {\n",
	fails: []string{"invalid/worker"},
}, {
	name:  "drops not counted in the buffer",
	old:   "        header_->dropped_count = ++dropped_;\n",
	new:   "        ++dropped_;\n",
	fails: []string{"full/recorder", "full/zero-capacity"},
}, {
	name:  "one record past the capacity",
	old:   "    if (count_ >= capacity_) {\n",
	new:   "    if (count_ > capacity_) {\n",
	fails: []string{"full/recorder", "full/zero-capacity"},
}, {
	name:  "Init keeps the previous launch's count",
	old:   "    header_ = nullptr;\n    count_ = 0;\n",
	new:   "    header_ = nullptr;\n",
	fails: []string{"reinit"},
}}

// committedHeader is gen/cpp's header as committed.
func committedHeader(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(genCpp, "cycleabi_abi.h"))
	require.NoError(t, err)
	return string(data)
}

// mutatedHeader writes header with old, which must stand in it exactly
// once, replaced by new into a folder of the test's, and returns the
// folder.
func mutatedHeader(t *testing.T, header, old, new string) string {
	t.Helper()
	n := strings.Count(header, old)
	require.Equalf(t, 1, n, "the header copies of the text this mutant changes, want 1 (update the mutant):\n%s", old)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cycleabi_abi.h"), []byte(strings.Replace(header, old, new, 1)), 0o644))
	return dir
}

// TestRecorderMutants runs recorder_check against copies of the header
// with one rule broken each, and requires the checks of that rule to fail
// (a crash counts: a check that does not print PASS failed): the checks
// that pass on the committed header can tell a broken one.
func TestRecorderMutants(t *testing.T) {
	cxx := cxxtest.Compilers(t)[0]
	header := committedHeader(t)
	for _, m := range recorderMutants {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			dir := mutatedHeader(t, header, m.old, m.new)
			lines, ok := runRecorderCheck(t, cxx, "c++11", dir)
			assert.Falsef(t, ok, "recorder_check passed on the mutant:\n%s", strings.Join(lines, "\n"))

			for _, c := range m.fails {
				for _, l := range lines {
					assert.NotEqualf(t, "PASS "+c, l, "check %s passed on the mutant", c)
				}
			}
		})
	}
}
