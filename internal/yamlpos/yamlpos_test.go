package yamlpos

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestAt(t *testing.T) {
	n := &yaml.Node{Line: 3, Column: 7}
	if got := At("s.yaml", n, "layout.regions", "bad %q", "x").Error(); got != `s.yaml:3:7: layout.regions: bad "x"` {
		t.Errorf("At(\"s.yaml\", n, \"layout.regions\", \"bad %%q\", \"x\").Error() = %q, want %q", got, `s.yaml:3:7: layout.regions: bad "x"`)
	}
	// An absent key has no node: the problem keeps its file and path and
	// drops the position instead of panicking.
	if got := At("s.yaml", nil, "layout.regions", "missing").Error(); got != "s.yaml: layout.regions: missing" {
		t.Errorf("At(\"s.yaml\", nil, \"layout.regions\", \"missing\").Error() = %q, want %q", got, "s.yaml: layout.regions: missing")
	}
}

var noCap = Limits{Input: 1 << 30, YAML: 1 << 30}

func TestDocumentTrailing(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`{"a": 1} {"b": 2}`, "f:1:10: text after the end of the document"},
		{"{\"a\": [1, \"]}\"]}\n  garbage [", "f:2:3: text after the end of the document"},
		{"a: 1\n---\nb: 2\n", "f:2:1: a second document starts here; the file must hold one"},
		{"a: 1\n--- \n", "f:2:1: a second document starts here; the file must hold one"},
		{"a: 1\n...\n# fine\n  garbage [\n", "f:4:3: text after the end of the document"},
		{"'a' 'b'", "f:1:5: text after the end of the document"},
		{"{é: 1} x", "f:1:8: text after the end of the document"},
		{"a: 1\n...\n", ""},
		{"{\"a\": 1}  # comment\n\n", ""},
		{"", ""},
	} {
		_, err := Document("f", "YAML", []byte(tc.text), noCap, "")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestDocumentRoot(t *testing.T) {
	for text, want := range map[string]string{"": "<nil>", "# only a comment\n": "<nil>", "---\n": "null", "a: &x {b: 1}\n": "a mapping"} {
		root, err := Document("f", "YAML", []byte(text), noCap, "")
		if err != nil {
			t.Error(err)
		}
		got := "<nil>"
		if root != nil {
			got = KindName(root)
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
	_, err := Document("f", "YAML", []byte("a: [1\n"), noCap, "")
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("error %v (%T), want a *Error", err, err)
	} else {
		if e.File != "f" {
			t.Errorf("e.File = %q, want %q", e.File, "f")
		}
		if e.Line <= 0 {
			t.Errorf("e.Line = %v, want > 0", e.Line)
		}
	}
}

func TestDocumentCap(t *testing.T) {
	text := []byte("a: 1\n# padding to 20\n")[:20]
	_, err := Document("s.yaml", "YAML", text, Limits{Input: 100, YAML: int64(len(text))}, "")
	if err != nil {
		t.Errorf("a file exactly at the cap is read: %v", err)
	}
	_, err = Document("s.yaml", "YAML", text, Limits{Input: 100, YAML: 16}, "or write JSON")
	var le *LimitError
	if !errors.As(err, &le) {
		t.Errorf("error %v (%T), want a *LimitError", err, err)
	} else {
		if got := err.Error(); got != "s.yaml: 20 bytes is more than the cap of 16 bytes on text read as YAML; set CYCLEABI_MAX_YAML_BYTES to raise it; or write JSON" {
			t.Errorf("err.Error() = %q, want %q", got, "s.yaml: 20 bytes is more than the cap of 16 bytes on text read as YAML; set CYCLEABI_MAX_YAML_BYTES to raise it; or write JSON")
		}
	}
}

func TestReadFileCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadDocumentFile(path, "schedule file", Limits{Input: 2048, YAML: 1 << 20}, nil, "")
	if err != nil {
		t.Error(err)
	}
	if len(b) != 2048 {
		t.Errorf("len(b) = %d, want 2048: %q", len(b), b)
	}
	_, err = ReadDocumentFile(path, "schedule file", Limits{Input: 1024, YAML: 1 << 20}, nil, "")
	if err == nil || err.Error() != path+": 2048 bytes is more than the cap of 1024 bytes (1 KiB) on schedule files; set CYCLEABI_MAX_INPUT_BYTES to raise it" {
		t.Errorf("error %v, want %q", err, path+": 2048 bytes is more than the cap of 1024 bytes (1 KiB) on schedule files; set CYCLEABI_MAX_INPUT_BYTES to raise it")
	}
	_, err = ReadDocumentFile(path+".missing", "schedule file", noCap, nil, "")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v, want one matching %v", err, fs.ErrNotExist)
	}
	if err == nil || err.Error() != path+".missing: schedule file not found" {
		t.Errorf("error %v, want %q", err, path+".missing: schedule file not found")
	}
}

// A FIFO is refused at once, whether or not a writer ever comes (it used
// to block open forever with none, and to be read up to the cap with one).
func TestReadFileRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadDocumentFile(fifo, "names file", Limits{Input: 1000, YAML: 1}, nil, "")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || err.Error() != fifo+": is a named pipe (FIFO), not a regular file; inputs are read from regular files only (save the data to a file first)" {
			t.Errorf("error %v, want %q", err, fifo+": is a named pipe (FIFO), not a regular file; inputs are read from regular files only (save the data to a file first)")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadDocumentFile of a FIFO with no writer still blocked after 5 s")
	}
}

func TestCurrentLimits(t *testing.T) {
	t.Setenv(MaxInputBytesEnv, "")
	t.Setenv(MaxYAMLBytesEnv, "")
	l, err := CurrentLimits()
	if err != nil {
		t.Error(err)
	}
	if want := (Limits{Input: DefaultMaxInputBytes, YAML: DefaultMaxYAMLBytes}); !reflect.DeepEqual(l, want) {
		t.Errorf("l = %v, want %v", l, want)
	}
	t.Setenv(MaxYAMLBytesEnv, "123")
	l, err = CurrentLimits()
	if err != nil {
		t.Error(err)
	}
	if l.YAML != int64(123) {
		t.Errorf("l.YAML = %v, want %v", l.YAML, int64(123))
	}
	for _, bad := range []string{"0", "-1", "1e9", "16MiB"} {
		t.Setenv(MaxInputBytesEnv, bad)
		_, err = CurrentLimits()
		if err == nil || !strings.Contains(err.Error(), MaxInputBytesEnv) {
			t.Errorf("%s: error %v, want one containing %q", bad, err, MaxInputBytesEnv)
		}
	}
}

// One rule for what a string is, everywhere: any scalar but null, as
// written; integers are !!int only.
func TestReaderRules(t *testing.T) {
	root, err := Document("f", "YAML", []byte("s0: &x 'q'\ns1: 123\ns2: yes\ns3: 0x10\ns4: ~\ns5: [a]\ns6: *x\ni1: 0x10\ni2: '3'\ni3: 3.0\nb1: True\nb2: 1\n"), noCap, "")
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"s0", "s1", "s2", "s3", "s4", "s5", "s6", "i1", "i2", "i3", "b1", "b2"}
	r := &Reader{File: "f"}
	m := r.Mapping(root, "", keys, []string{"missing"})
	var strs []string
	for _, k := range []string{"s1", "s2", "s3", "s4", "s5", "s6"} {
		s, ok := r.Str(m[k], k)
		strs = append(strs, fmt.Sprintf("%s %v", s, ok))
	}
	if want := []string{"123 true", "yes true", "0x10 true", " false", " false", "q true"}; !reflect.DeepEqual(strs, want) {
		t.Errorf("strs = %v, want %v", strs, want)
	}
	v, ok := r.Int(m["i1"], "i1", 0, 100)
	if !ok {
		t.Errorf("ok = false, want true")
	}
	if v != int64(16) {
		t.Errorf("v = %v, want %v", v, int64(16))
	}
	_, ok = r.Int(m["i2"], "i2", 0, 100)
	if ok {
		t.Errorf("ok = true, want false")
	}
	_, ok = r.Uint(m["i3"], "i3", 100)
	if ok {
		t.Errorf("ok = true, want false")
	}
	b, ok := r.Bool(m["b1"], "b1")
	if !(b && ok) {
		t.Errorf("b && ok = false, want true")
	}
	_, ok = r.Bool(m["b2"], "b2")
	if ok {
		t.Errorf("ok = true, want false")
	}
	_, ok = r.Str(nil, "absent")
	if ok {
		t.Errorf("ok = true, want false")
	}
	r.Errs.Sort()
	if got := r.Errs.Error(); got != `f:1:1: missing required key "missing"
f:5:5: s4: expected a string, got null
f:6:5: s5: expected a string, got a list
f:9:5: i2: expected an integer, got "3"
f:10:5: i3: expected a non-negative integer, got "3.0"
f:12:5: b2: expected true or false, got "1"` {
		t.Errorf("r.Errs.Error() = %q, want %q", got, `f:1:1: missing required key "missing"
f:5:5: s4: expected a string, got null
f:6:5: s5: expected a string, got a list
f:9:5: i2: expected an integer, got "3"
f:10:5: i3: expected a non-negative integer, got "3.0"
f:12:5: b2: expected true or false, got "1"`)
	}
}

// Every valid document followed by any kind of trailing content is
// refused, at the line where that content starts.
func TestDocumentTrailingCombinations(t *testing.T) {
	docs := []string{
		`{"num_workers": 2, "tasks": [{"task_type": "MatMul"}]}`,
		"{a: [1, '}', \"]\"], b: {c: d}}  # a comment",
		"a: 1\nb: [x, y]\n",
		"a: 1\n...\n",
		"- 1\n- {x: 'y'}\n",
		"'a quoted '' scalar'",
	}
	trailers := []string{" {\"b\": 2}", "\n  garbage [", "\n---\nx: 1\n", "\n# comment\n\n}"}
	for _, d := range docs {
		root, err := Document("f", "YAML", []byte(d), noCap, "")
		if err != nil {
			t.Fatalf("%q: %v", d, err)
		}
		if root == nil {
			t.Fatalf("root is nil, want non-nil")
		}
		for _, tr := range trailers {
			if strings.Contains(d, "#") && !strings.HasPrefix(tr, "\n") {
				continue // the comment would swallow it
			}
			text := d + tr
			// The line where the trailing content's first non-space,
			// non-comment character is.
			wantLine := 1 + strings.Count(d, "\n")
			rest := tr
			for {
				rest = strings.TrimLeft(rest, " ")
				if strings.HasPrefix(rest, "\n") {
					wantLine++
					rest = rest[1:]
					continue
				}
				if strings.HasPrefix(rest, "#") {
					rest = rest[strings.IndexByte(rest, '\n'):]
					continue
				}
				break
			}
			_, err := Document("f", "YAML", []byte(text), noCap, "")
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%q: error %v (%T), want a *Error", text, err, err)
				continue
			}
			// A syntax error go-yaml finds itself (a block mapping
			// followed by text) is fine too, as long as it has a line.
			if strings.HasPrefix(e.Msg, "invalid YAML") {
				if e.Line <= 0 {
					t.Errorf("%q: %v: e.Line = %v, want > 0", text, err, e.Line)
				}
				continue
			}
			if e.Line != wantLine {
				t.Errorf("%q: %v: e.Line = %v, want %v", text, err, e.Line, wantLine)
			}
		}
	}
}

// A file too large for the YAML parser that cannot take a fast path is
// refused from its size: at most its first 4 KiB are read (a 652 MB
// names file took 1.53 GB to be refused).
func TestReadDocumentFileRefusedFromSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte("tasks:\n"+strings.Repeat("  - {task_type: MatMul}\n", 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	lim := Limits{Input: 1 << 30, YAML: 1 << 20}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadDocumentFile(path, "schedule file", lim, func(head []byte) bool { return head[0] == '{' }, "or write JSON")
	runtime.ReadMemStats(&after)
	var le *LimitError
	if !errors.As(err, &le) {
		t.Errorf("error %v (%T), want a *LimitError", err, err)
	} else {
		if got := err.Error(); got != path+": 25165831 bytes is more than the cap of 1048576 bytes (1 MiB) on text read as YAML; set CYCLEABI_MAX_YAML_BYTES to raise it; or write JSON" {
			t.Errorf("err.Error() = %q, want %q", got, path+": 25165831 bytes is more than the cap of 1048576 bytes (1 MiB) on text read as YAML; set CYCLEABI_MAX_YAML_BYTES to raise it; or write JSON")
		}
	}
	if after.TotalAlloc-before.TotalAlloc >= uint64(1<<20) {
		t.Errorf("bytes allocated to refuse it: after.TotalAlloc-before.TotalAlloc = %v, want < %v", after.TotalAlloc-before.TotalAlloc, uint64(1<<20))
	}
	// A fast path may read it whole.
	b, err := ReadDocumentFile(path, "schedule file", lim, func([]byte) bool { return true }, "")
	if err != nil {
		t.Error(err)
	}
	if len(b) != 25165831 {
		t.Errorf("len(b) = %d, want 25165831: %q", len(b), b)
	}
}

// A file is read into one buffer of its size: bytes.Buffer.ReadFrom asks
// for bytes.MinRead bytes of room before each read, so a buffer of
// exactly the size is doubled for the read that finds the end.
func TestReadFileOneBuffer(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates: counted without it")
	}
	for _, size := range []int{0, 1, 511, 512, 4096, 3 << 20, 3<<20 - 1, 3<<20 - 100} {
		path := filepath.Join(t.TempDir(), "s.json")
		if err := os.WriteFile(path, []byte("{"+strings.Repeat(" ", max(size-1, 0))), 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b, err := ReadDocumentFile(path, "schedule file", Limits{Input: 1 << 30, YAML: 1 << 20}, func([]byte) bool { return true }, "")
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if want := max(size, 1); len(b) != want {
			t.Fatalf("size %d: read %d bytes", size, len(b))
		}
		// The buffer, the 4 KiB head, the file's bookkeeping and what the
		// runtime allocates meanwhile (TotalAlloc counts the process; 16
		// KiB of room was seen exceeded by 1.6 KB): a second buffer, the
		// fault this guards against, is a whole size more.
		if got := after.TotalAlloc - before.TotalAlloc; got > uint64(size)+64<<10 {
			t.Errorf("size %d: %d bytes allocated to read it", size, got)
		}
	}
}
