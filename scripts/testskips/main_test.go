package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A go test -json stream of a package with a passing, a failing and two
// skipped tests (one with a reason, one without), and a package line.
const stream = `{"Action":"start","Package":"m/tests/duckdb"}
{"Action":"run","Package":"m/tests/duckdb","Test":"TestQueries"}
{"Action":"output","Package":"m/tests/duckdb","Test":"TestQueries","Output":"=== RUN   TestQueries\n"}
{"Action":"output","Package":"m/tests/duckdb","Test":"TestQueries","Output":"    duckdb_test.go:51: DuckDB is not installed here (needs node and ` + "`npm ci`" + ` in tests/duckdb)\n"}
{"Action":"output","Package":"m/tests/duckdb","Test":"TestQueries","Output":"--- SKIP: TestQueries (0.00s)\n"}
{"Action":"skip","Package":"m/tests/duckdb","Test":"TestQueries"}
{"Action":"run","Package":"m/tests/duckdb","Test":"TestBare"}
{"Action":"skip","Package":"m/tests/duckdb","Test":"TestBare"}
{"Action":"run","Package":"m/tests/duckdb","Test":"TestOK"}
{"Action":"output","Package":"m/tests/duckdb","Test":"TestOK","Output":"quiet when it passes\n"}
{"Action":"pass","Package":"m/tests/duckdb","Test":"TestOK"}
{"Action":"run","Package":"m/tests/duckdb","Test":"TestBad"}
{"Action":"output","Package":"m/tests/duckdb","Test":"TestBad","Output":"    x_test.go:3: got 1, want 2\n"}
{"Action":"fail","Package":"m/tests/duckdb","Test":"TestBad"}
{"Action":"output","Package":"m/tests/duckdb","Output":"FAIL\tm/tests/duckdb\t0.1s\n"}
{"Action":"fail","Package":"m/tests/duckdb"}
`

func TestPass(t *testing.T) {
	var out bytes.Buffer
	outcomes, err := pass(strings.NewReader(stream), &out)
	require.NoError(t, err)
	assert.Equal(t, "    x_test.go:3: got 1, want 2\nFAIL\tm/tests/duckdb\t0.1s\n", out.String(), "output")
	want := []outcome{
		{Package: "m/tests/duckdb", Test: "TestQueries", Action: "skip", Reason: "DuckDB is not installed here (needs node and `npm ci` in tests/duckdb)"},
		{Package: "m/tests/duckdb", Test: "TestBare", Action: "skip", Reason: "no reason given"},
		{Package: "m/tests/duckdb", Test: "TestOK", Action: "pass"},
	}
	require.Lenf(t, outcomes, len(want), "outcomes, want %+v", want)
	for i := range want {
		assert.Equalf(t, want[i], outcomes[i], "outcomes[%d]", i)
	}
	line := summarize("make test", outcomes)
	for _, want := range []string{"make test skipped 2 check(s)", "DuckDB is not installed here", "(duckdb.TestQueries)", "no reason given (duckdb.TestBare)"} {
		assert.Contains(t, line, want, "summary")
	}
	assert.Equal(t, "make test: skipped nothing", summarize("make test", nil), "summarize(nil)")
}

func TestSummaryBounded(t *testing.T) {
	var s []outcome
	for _, n := range []string{"TestA", "TestB", "TestC", "TestD", "TestE"} {
		s = append(s, outcome{Package: "m/p", Test: n, Action: "skip", Reason: "no compiler"})
	}
	assert.Equal(t, "make test skipped 5 check(s): no compiler (p.TestA, p.TestB, p.TestC and 2 more)", summarize("make test", s), "summarize")
}

// A test is named once however many runs skipped it, not at all when
// another run of the same target ran it (make ci's race run skips what
// its run without the race detector then runs), and the tests -short
// leaves to make ci are counted apart.
func TestSummaryOncePerTest(t *testing.T) {
	s := []outcome{
		{Package: "m/tests/duckdb", Test: "TestManyRanks", Action: "skip", Reason: "no DuckDB"},
		{Package: "m/tests/duckdb", Test: "TestManyRanks", Action: "skip", Reason: "no DuckDB"},
		{Package: "m/decode/perfetto", Test: "TestSizeGoal", Action: "skip", Reason: "too slow under -race"},
		{Package: "m/decode/perfetto", Test: "TestSizeGoal", Action: "pass"},
		{Package: "m/report", Test: "TestBrowser", Action: "skip", Reason: ShortPrefix + " runs chromium (make ci runs it)"},
		{Package: "m/scripts/wheel", Test: "TestWheels", Action: "skip", Reason: ShortPrefix + " builds two wheels (make ci runs it)"},
	}
	assert.Equal(t, "make ci skipped 1 check(s): no DuckDB (duckdb.TestManyRanks); and 2 test(s) left to make ci by -short", summarize("make ci", s), "summarize")
	assert.Equal(t, "make test: skipped nothing else; 2 test(s) left to make ci by -short", summarize("make test", s[4:]), "summarize")
}

// A test its package's timeout stops never gets a fail event of its own:
// the runner prints its name and the timeout's panic all the same, and
// the record still holds the skips of the package's other tests.
func TestTimeoutNamesTheTest(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("go.mod", "module sleepy\n\ngo 1.26\n")
	write("sleepy_test.go", `package sleepy

import (
	"testing"
	"time"
)

func TestSkips(t *testing.T) { t.Skip("nothing to do here") }

func TestSleepsPastTheTimeout(t *testing.T) {
	t.Log("going to sleep")
	time.Sleep(11 * time.Minute)
}
`)
	t.Setenv("GO", goTool)
	t.Setenv("GOFLAGS", "")
	record := filepath.Join(t.TempDir(), "skips.jsonl")
	wd, _ := os.Getwd()
	require.NoError(t, os.Chdir(dir))
	defer os.Chdir(wd)
	var out bytes.Buffer
	rc, err := run([]string{"-record", record, "--", "-count=1", "-timeout=2s", "."}, &out)
	require.NoError(t, err)
	assert.NotEqual(t, 0, rc, "exit status 0, want go test's failure")
	for _, want := range []string{
		"--- UNFINISHED: TestSleepsPastTheTimeout",
		"going to sleep",
		"panic: test timed out after 2s",
		"running tests:",
		"FAIL\tsleepy",
	} {
		assert.Contains(t, out.String(), want, "output lacks")
	}
	assert.LessOrEqualf(t, strings.Index(out.String(), "panic: test timed out"), strings.Index(out.String(), "FAIL\tsleepy"), "the timeout's panic comes after the package's FAIL line:\n%s", out.String())
	b, err := os.ReadFile(record)
	require.NoError(t, err)
	assert.Containsf(t, string(b), `"test":"TestSkips","action":"skip","reason":"nothing to do here"`, "record = %s, want TestSkips' skip in it", b)
}

// The prefix the summary counts apart is the one short.Skip writes (a
// command may not import the test kit, so it is written twice).
func TestShortPrefixIsTestkits(t *testing.T) {
	assert.Equal(t, ShortPrefix, short.Prefix, "ShortPrefix")
}
