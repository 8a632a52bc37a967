package yamlpos

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestAt(t *testing.T) {
	n := &yaml.Node{Line: 3, Column: 7}
	assert.Equal(t, `s.yaml:3:7: layout.regions: bad "x"`, At("s.yaml", n, "layout.regions", "bad %q", "x").Error(), "At(\"s.yaml\", n, \"layout.regions\", \"bad %q\", \"x\").Error()")
	// An absent key has no node: the problem keeps its file and path and
	// drops the position instead of panicking.
	assert.Equal(t, "s.yaml: layout.regions: missing", At("s.yaml", nil, "layout.regions", "missing").Error(), "At(\"s.yaml\", nil, \"layout.regions\", \"missing\").Error()")
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
		assert.Equalf(t, tc.want, got, "%q", tc.text)
	}
}

func TestDocumentRoot(t *testing.T) {
	for text, want := range map[string]string{"": "<nil>", "# only a comment\n": "<nil>", "---\n": "null", "a: &x {b: 1}\n": "a mapping"} {
		root, err := Document("f", "YAML", []byte(text), noCap, "")
		assert.NoError(t, err)
		got := "<nil>"
		if root != nil {
			got = KindName(root)
		}
		assert.Equalf(t, want, got, "%q", text)
	}
	_, err := Document("f", "YAML", []byte("a: [1\n"), noCap, "")
	var e *Error
	if !errors.As(err, &e) {
		assert.Fail(t, fmt.Sprintf("error %v (%T), want a *Error", err, err))
	} else {
		assert.Equal(t, "f", e.File, "e.File")
		assert.Greater(t, e.Line, 0, "e.Line")
	}
}

func TestDocumentCap(t *testing.T) {
	text := []byte("a: 1\n# padding to 20\n")[:20]
	_, err := Document("s.yaml", "YAML", text, Limits{Input: 100, YAML: int64(len(text))}, "")
	assert.NoError(t, err, "a file exactly at the cap is read")
	_, err = Document("s.yaml", "YAML", text, Limits{Input: 100, YAML: 16}, "or write JSON")
	var le *LimitError
	if !errors.As(err, &le) {
		assert.Fail(t, fmt.Sprintf("error %v (%T), want a *LimitError", err, err))
	} else {
		assert.Equal(t, "s.yaml: 20 bytes is more than the cap of 16 bytes on text read as YAML; set CYCLEABI_MAX_YAML_BYTES to raise it; or write JSON", err.Error(), "err.Error()")
	}
}

func TestReadFileCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	require.NoError(t, os.WriteFile(path, make([]byte, 2048), 0o644))
	b, err := ReadDocumentFile(path, "schedule file", Limits{Input: 2048, YAML: 1 << 20}, nil, "")
	assert.NoError(t, err)
	assert.Len(t, b, 2048, "len(b)")
	_, err = ReadDocumentFile(path, "schedule file", Limits{Input: 1024, YAML: 1 << 20}, nil, "")
	assert.EqualErrorf(t, err, path+": 2048 bytes is more than the cap of 1024 bytes (1 KiB) on schedule files; set CYCLEABI_MAX_INPUT_BYTES to raise it", "error %v, want %q", err, path+": 2048 bytes is more than the cap of 1024 bytes (1 KiB) on schedule files; set CYCLEABI_MAX_INPUT_BYTES to raise it")
	_, err = ReadDocumentFile(path+".missing", "schedule file", noCap, nil, "")
	assert.ErrorIsf(t, err, fs.ErrNotExist, "error %v, want one matching %v", err, fs.ErrNotExist)
	assert.EqualErrorf(t, err, path+".missing: schedule file not found", "error %v, want %q", err, path+".missing: schedule file not found")
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
		assert.EqualErrorf(t, err, fifo+": is a named pipe (FIFO), not a regular file; inputs are read from regular files only (save the data to a file first)", "error %v, want %q", err, fifo+": is a named pipe (FIFO), not a regular file; inputs are read from regular files only (save the data to a file first)")
	case <-time.After(5 * time.Second):
		require.FailNow(t, "ReadDocumentFile of a FIFO with no writer still blocked after 5 s")
	}
}

func TestCurrentLimits(t *testing.T) {
	t.Setenv(MaxInputBytesEnv, "")
	t.Setenv(MaxYAMLBytesEnv, "")
	l, err := CurrentLimits()
	assert.NoError(t, err)
	assert.Equal(t, (Limits{Input: DefaultMaxInputBytes, YAML: DefaultMaxYAMLBytes}), l, "l")
	t.Setenv(MaxYAMLBytesEnv, "123")
	l, err = CurrentLimits()
	assert.NoError(t, err)
	assert.Equal(t, int64(123), l.YAML, "l.YAML")
	for _, bad := range []string{"0", "-1", "1e9", "16MiB"} {
		t.Setenv(MaxInputBytesEnv, bad)
		_, err = CurrentLimits()
		assert.ErrorContainsf(t, err, MaxInputBytesEnv, "%s: error %v, want one containing %q", bad, err, MaxInputBytesEnv)
	}
}

// One rule for what a string is, everywhere: any scalar but null, as
// written; integers are !!int only.
func TestReaderRules(t *testing.T) {
	root, err := Document("f", "YAML", []byte("s0: &x 'q'\ns1: 123\ns2: yes\ns3: 0x10\ns4: ~\ns5: [a]\ns6: *x\ni1: 0x10\ni2: '3'\ni3: 3.0\nb1: True\nb2: 1\n"), noCap, "")
	require.NoError(t, err)
	keys := []string{"s0", "s1", "s2", "s3", "s4", "s5", "s6", "i1", "i2", "i3", "b1", "b2"}
	r := &Reader{File: "f"}
	m := r.Mapping(root, "", keys, []string{"missing"})
	var strs []string
	for _, k := range []string{"s1", "s2", "s3", "s4", "s5", "s6"} {
		s, ok := r.Str(m[k], k)
		strs = append(strs, fmt.Sprintf("%s %v", s, ok))
	}
	assert.Equal(t, []string{"123 true", "yes true", "0x10 true", " false", " false", "q true"}, strs, "strs")
	v, ok := r.Int(m["i1"], "i1", 0, 100)
	assert.True(t, ok, "ok = false, want true")
	assert.Equal(t, int64(16), v, "v")
	_, ok = r.Int(m["i2"], "i2", 0, 100)
	assert.False(t, ok, "ok = true, want false")
	_, ok = r.Uint(m["i3"], "i3", 100)
	assert.False(t, ok, "ok = true, want false")
	b, ok := r.Bool(m["b1"], "b1")
	assert.True(t, b && ok, "b && ok = false, want true")
	_, ok = r.Bool(m["b2"], "b2")
	assert.False(t, ok, "ok = true, want false")
	_, ok = r.Str(nil, "absent")
	assert.False(t, ok, "ok = true, want false")
	r.Errs.Sort()
	assert.Equal(t, `f:1:1: missing required key "missing"
f:5:5: s4: expected a string, got null
f:6:5: s5: expected a string, got a list
f:9:5: i2: expected an integer, got "3"
f:10:5: i3: expected a non-negative integer, got "3.0"
f:12:5: b2: expected true or false, got "1"`, r.Errs.Error(), "r.Errs.Error()")
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
		require.NoErrorf(t, err, "%q", d)
		require.NotNil(t, root, "root is nil, want non-nil")
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
			if !assert.ErrorAsf(t, err, &e, "%q: error %v (%T), want a *Error", text, err, err) {
				continue
			}
			// A syntax error go-yaml finds itself (a block mapping
			// followed by text) is fine too, as long as it has a line.
			if strings.HasPrefix(e.Msg, "invalid YAML") {
				assert.Greaterf(t, e.Line, 0, "%q: %v: e.Line", text, err)
				continue
			}
			assert.Equalf(t, wantLine, e.Line, "%q: %v: e.Line", text, err)
		}
	}
}

// A file too large for the YAML parser that cannot take a fast path is
// refused from its size: at most its first 4 KiB are read (a 652 MB
// names file took 1.53 GB to be refused).
func TestReadDocumentFileRefusedFromSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	require.NoError(t, os.WriteFile(path, []byte("tasks:\n"+strings.Repeat("  - {task_type: MatMul}\n", 1<<20)), 0o644))
	lim := Limits{Input: 1 << 30, YAML: 1 << 20}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadDocumentFile(path, "schedule file", lim, func(head []byte) bool { return head[0] == '{' }, "or write JSON")
	runtime.ReadMemStats(&after)
	var le *LimitError
	if !errors.As(err, &le) {
		assert.Fail(t, fmt.Sprintf("error %v (%T), want a *LimitError", err, err))
	} else {
		assert.Equal(t, path+": 25165831 bytes is more than the cap of 1048576 bytes (1 MiB) on text read as YAML; set CYCLEABI_MAX_YAML_BYTES to raise it; or write JSON", err.Error(), "err.Error()")
	}
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated to refuse it: after.TotalAlloc-before.TotalAlloc")
	// A fast path may read it whole.
	b, err := ReadDocumentFile(path, "schedule file", lim, func([]byte) bool { return true }, "")
	assert.NoError(t, err)
	assert.Len(t, b, 25165831, "len(b)")
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
		require.NoError(t, os.WriteFile(path, []byte("{"+strings.Repeat(" ", max(size-1, 0))), 0o644))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b, err := ReadDocumentFile(path, "schedule file", Limits{Input: 1 << 30, YAML: 1 << 20}, func([]byte) bool { return true }, "")
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		require.Lenf(t, b, max(size, 1), "size %d: read", size)
		// The buffer, the 4 KiB head, the file's bookkeeping and what the
		// runtime allocates meanwhile (TotalAlloc counts the process; 16
		// KiB of room was seen exceeded by 1.6 KB): a second buffer, the
		// fault this guards against, is a whole size more.
		assert.LessOrEqualf(t, after.TotalAlloc-before.TotalAlloc, uint64(size)+64<<10, "size %d", size)
	}
}
