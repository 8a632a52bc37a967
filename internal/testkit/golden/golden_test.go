package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// recorder is a testing.TB whose failures are recorded, not reported.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// FailNow is how require stops a test, after its Errorf.
func (r *recorder) FailNow() { runtime.Goexit() }

// run calls f with a recorder, with -update set to up, and returns what
// failed.
func run(t *testing.T, up bool, f func(tb testing.TB)) []string {
	t.Helper()
	old := *update
	*update = up
	defer func() { *update = old }()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.failures
}

func TestCheck(t *testing.T) {
	for _, name := range []string{"plain.txt", "sub/trace.json.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			got := []byte("one\ntwo\nthree\n")
			f := run(t, false, func(tb testing.TB) { Check(tb, path, got) })
			require.Len(t, f, 1, "a missing golden")
			require.Contains(t, f[0], "-update writes it", "a missing golden")
			require.Empty(t, run(t, true, func(tb testing.TB) { Check(tb, path, got) }), "update")
			first, _ := os.ReadFile(path)
			require.NotEqualf(t, (string(first) == string(got)), strings.HasSuffix(name, ".gz"), "written as %q", first)
			require.Empty(t, run(t, false, func(tb testing.TB) { Check(tb, path, got) }), "the same output")
			run(t, true, func(tb testing.TB) { Check(tb, path, got) })
			again, _ := os.ReadFile(path)
			require.Equal(t, string(first), string(again), "a rewrite of the same output changed the file")
			f = run(t, false, func(tb testing.TB) { Check(tb, path, []byte("one\nTWO\nthree\n")) })
			require.Len(t, f, 1, "a difference")
			// testify indents a message's lines after the first.
			require.Regexp(t, `line 2:\n\s* got TWO\n\s*want two`, f[0], "a difference")
		})
	}
}

func TestFirstDiffBinary(t *testing.T) {
	require.Equal(t, "first difference at byte 3 (got 5 bytes, want 5)", FirstDiff([]byte("ab\x00cd"), []byte("ab\x00xd")))
}

// TestDiffIsFirstDiff: Diff, the message argument, writes what FirstDiff
// gives, when formatted.
func TestDiffIsFirstDiff(t *testing.T) {
	got, want := []byte("one\ntwo\n"), []byte("one\nTWO\n")
	require.NotEmpty(t, FirstDiff(got, want))
	assert.Equal(t, FirstDiff(got, want), fmt.Sprintf("%s", Diff(got, want)))
}

func TestCheckSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.txtar")
	ar := &txtar.Archive{Comment: []byte("a case\n"), Files: []txtar.File{{Name: "input", Data: []byte("x\n")}}}
	require.Len(t, run(t, false, func(tb testing.TB) { CheckSection(tb, path, ar, "expect", []byte("y\n")) }), 1, "a missing section")
	run(t, true, func(tb testing.TB) { CheckSection(tb, path, ar, "expect", []byte("y\n")) })
	data, _ := os.ReadFile(path)
	require.Equalf(t, "a case\n-- input --\nx\n-- expect --\ny\n", string(data), "written %q", data)
	read := txtar.Parse(data)
	require.Empty(t, run(t, false, func(tb testing.TB) { CheckSection(tb, path, read, "expect", []byte("y\n")) }), "the same output")
	require.Len(t, run(t, false, func(tb testing.TB) { CheckSection(tb, path, read, "expect", []byte("z\n")) }), 1, "a difference")
	run(t, true, func(tb testing.TB) { CheckSection(tb, path, read, "input", []byte("w\n")) })
	data, _ = os.ReadFile(path)
	require.Contains(t, string(data), "-- input --\nw\n-- expect --", "an existing section rewritten in place")
}

func TestJSONDiff(t *testing.T) {
	for _, c := range []struct {
		got, want, diff string // diff: "" for the same value, else a part of the description
	}{
		{`{"a":1,"b":[true,null]}`, "{\"b\": [true, null],\n \"a\": 1.0}", ""},
		{`"x"`, `"x"`, ""},
		{`{"a":1}`, `{"a":2}`, `got {"a":1}, want {"a":2}`},
		{`{"a":1}`, `{"a":1,"b":2}`, "want"},
		{`[1,2]`, `[2,1]`, "got [1,2]"},
		{`{"a":1`, `{"a":1}`, "got \"{\\\"a\\\":1\", not JSON"},
		{`1`, `one`, "want \"one\", not JSON"},
	} {
		d := JSONDiff(c.got, c.want)
		require.Equalf(t, (c.diff == ""), (d == ""), "JSONDiff(%q, %q)", c.got, c.want)
		assert.Containsf(t, d, c.diff, "JSONDiff(%q, %q)", c.got, c.want)
	}
}
