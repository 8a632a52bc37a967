package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
			if f := run(t, false, func(tb testing.TB) { Check(tb, path, got) }); len(f) != 1 || !strings.Contains(f[0], "-update writes it") {
				t.Fatalf("a missing golden: %q", f)
			}
			if f := run(t, true, func(tb testing.TB) { Check(tb, path, got) }); len(f) != 0 {
				t.Fatalf("-update: %q", f)
			}
			first, _ := os.ReadFile(path)
			if strings.HasSuffix(name, ".gz") == (string(first) == string(got)) {
				t.Fatalf("written as %q", first)
			}
			if f := run(t, false, func(tb testing.TB) { Check(tb, path, got) }); len(f) != 0 {
				t.Fatalf("the same output: %q", f)
			}
			run(t, true, func(tb testing.TB) { Check(tb, path, got) })
			if again, _ := os.ReadFile(path); string(again) != string(first) {
				t.Fatal("a rewrite of the same output changed the file")
			}
			f := run(t, false, func(tb testing.TB) { Check(tb, path, []byte("one\nTWO\nthree\n")) })
			if len(f) != 1 || !strings.Contains(f[0], "line 2:\n got TWO\nwant two") {
				t.Fatalf("a difference: %q", f)
			}
		})
	}
}

func TestFirstDiffBinary(t *testing.T) {
	if got := FirstDiff([]byte("ab\x00cd"), []byte("ab\x00xd")); got != "first difference at byte 3 (got 5 bytes, want 5)" {
		t.Fatal(got)
	}
}

func TestCheckSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.txtar")
	ar := &txtar.Archive{Comment: []byte("a case\n"), Files: []txtar.File{{Name: "input", Data: []byte("x\n")}}}
	if f := run(t, false, func(tb testing.TB) { CheckSection(tb, path, ar, "expect", []byte("y\n")) }); len(f) != 1 {
		t.Fatalf("a missing section: %q", f)
	}
	run(t, true, func(tb testing.TB) { CheckSection(tb, path, ar, "expect", []byte("y\n")) })
	data, _ := os.ReadFile(path)
	if want := "a case\n-- input --\nx\n-- expect --\ny\n"; string(data) != want {
		t.Fatalf("written %q, want %q", data, want)
	}
	read := txtar.Parse(data)
	if f := run(t, false, func(tb testing.TB) { CheckSection(tb, path, read, "expect", []byte("y\n")) }); len(f) != 0 {
		t.Fatalf("the same output: %q", f)
	}
	if f := run(t, false, func(tb testing.TB) { CheckSection(tb, path, read, "expect", []byte("z\n")) }); len(f) != 1 {
		t.Fatalf("a difference: %q", f)
	}
	run(t, true, func(tb testing.TB) { CheckSection(tb, path, read, "input", []byte("w\n")) })
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "-- input --\nw\n-- expect --") {
		t.Fatalf("an existing section rewritten in place: %q", data)
	}
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
		if (d == "") != (c.diff == "") || !strings.Contains(d, c.diff) {
			t.Errorf("JSONDiff(%q, %q) = %q, want %q", c.got, c.want, d, c.diff)
		}
	}
}
