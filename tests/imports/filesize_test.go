package imports

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines is the most lines a hand-written Go file holds: a longer one is
// split by what it holds (docs/development.md).
const maxLines = 800

// goFile is a hand-written Go file of the module: its path from the
// module's root, with slashes, and its text.
type goFile struct {
	rel string
	src []byte
}

// handWritten returns every hand-written Go file of the module, tests
// included: generated files (a "Code generated ... DO NOT EDIT." header),
// testdata and node_modules are left out, and so the hand-written files
// of gen/go/abi are in.
func handWritten(t *testing.T) []goFile {
	t.Helper()
	root := filepath.Join("..", "..")
	var files []goFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		head, _, _ := bytes.Cut(src, []byte("\npackage "))
		if bytes.Contains(head, []byte("Code generated")) && bytes.Contains(head, []byte("DO NOT EDIT")) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		files = append(files, goFile{rel: filepath.ToSlash(rel), src: src})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("read %d Go files under %s", len(files), root)
	}
	return files
}

// TestHandWrittenIncludesGen: the hand-written files of gen/go/abi (the
// layout, the descriptor lookup, the writer mirror) are held to the rules
// like any other, and its generated files are not.
func TestHandWrittenIncludesGen(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range handWritten(t) {
		seen[f.rel] = true
	}
	for path, want := range map[string]bool{"gen/go/abi/layout.go": true, "gen/go/abi/writer.go": true, "gen/go/abi/layout_gen.go": false, "gen/go/abi/structs_gen.go": false} {
		if seen[path] != want {
			t.Errorf("%s among the hand-written files: %v, want %v", path, seen[path], want)
		}
	}
}

// TestNoFileOverMaxLines: no hand-written Go file of the module (tests
// included) is over maxLines lines.
func TestNoFileOverMaxLines(t *testing.T) {
	for _, f := range handWritten(t) {
		if n := bytes.Count(f.src, []byte("\n")); n > maxLines {
			t.Errorf("%s: %d lines, more than %d: split it by what it holds", f.rel, n, maxLines)
		}
	}
}
