// Package golden is the test helper for golden files: the one -update
// flag of the module's tests and the one comparison. A test hands Check
// what the code made and the committed file it must equal; under
// `go test ./PKG -update` Check writes the file instead, to be reviewed
// before it is committed. Tests whose goldens are sections of txtar files
// (the expected output beside the input) use CheckSection. JSONDiff
// compares two JSON texts as values, for tests that hold a piece of JSON
// output to an expected one.
//
// The flag is registered by this package, so a test binary that imports it
// has -update and no test declares its own.
package golden

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files (and golden sections of txtar files) from the output of the code under test; review the diff before committing")

// Update reports whether the tests run with -update: goldens are written,
// not compared.
func Update() bool { return *update }

// Check compares got with the file at path; under -update it writes got to
// path (creating its folder) instead. A path ending in .gz holds got
// gzipped (at gzip.BestCompression, so a rewrite of the same output gives
// the same bytes); got is compared with its contents. A difference is
// reported with the first line that differs.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	gz := strings.HasSuffix(path, ".gz")
	if *update {
		data := got
		if gz {
			var buf bytes.Buffer
			zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			require.NoError(t, err)
			zw.Write(got)
			require.NoError(t, zw.Close())
			data = buf.Bytes()
		}
		write(t, path, data)
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test -update writes it; review it before committing")
	if gz {
		zr, err := gzip.NewReader(bytes.NewReader(want))
		require.NoError(t, err, path)
		want, err = io.ReadAll(zr)
		require.NoError(t, err, path)
	}
	// The first line that differs, not testify's dump of both files.
	assert.True(t, bytes.Equal(got, want), "output differs from %s (go test -update rewrites it; review the diff)\n%s", path, Diff(got, want))
}

// CheckSection compares got with the section name of the txtar archive ar
// read from path; under -update it sets the section (adding it at the end
// when missing) and writes the archive back to path instead.
func CheckSection(t testing.TB, path string, ar *txtar.Archive, name string, got []byte) {
	t.Helper()
	if *update {
		SetSection(ar, name, got)
		write(t, path, txtar.Format(ar))
		return
	}
	want, ok := Section(ar, name)
	require.True(t, ok, "%s has no %s section (go test -update adds it; review it before committing)", path, name)
	assert.True(t, bytes.Equal(got, want), "output differs from the %s section of %s (go test -update rewrites it; review the diff)\n%s", name, path, Diff(got, want))
}

// Section returns the data of the section name of ar.
func Section(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// SetSection sets the data of the section name of ar, adding the section
// at the end when it is missing.
func SetSection(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}

// Diff is FirstDiff(got, want) as a message argument: worked out only
// when the message is written, that is when the check fails (testify
// formats its message then), so a passing check on megabytes costs one
// bytes.Equal.
func Diff(got, want []byte) fmt.Stringer { return lazyDiff{got, want} }

type lazyDiff struct{ got, want []byte }

func (d lazyDiff) String() string { return FirstDiff(d.got, d.want) }

// FirstDiff describes the first line where got and want differ, or for
// binary data (a NUL byte, or not UTF-8) the first byte.
func FirstDiff(got, want []byte) string {
	if binary(got) || binary(want) {
		n := 0
		for n < len(got) && n < len(want) && got[n] == want[n] {
			n++
		}
		return fmt.Sprintf("first difference at byte %d (got %d bytes, want %d)", n, len(got), len(want))
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("first difference at line %d:\n got %s\nwant %s", i+1, gl, wl)
		}
	}
	return "no difference"
}

// JSONDiff compares two JSON texts as values, the way a reader of them
// would: key order and spacing aside, numbers as float64. It returns "" when
// they hold the same value, and otherwise both texts, or which one is not
// JSON.
func JSONDiff(got, want string) string {
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		return fmt.Sprintf("got %q, not JSON: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return fmt.Sprintf("want %q, not JSON: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("got %s, want %s", got, want)
	}
	return ""
}

func binary(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) }

func write(t testing.TB, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}
