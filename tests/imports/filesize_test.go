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

// TestNoFileOverMaxLines: no hand-written Go file of the module (tests
// included) is over maxLines lines. Generated files (gen/, a "Code
// generated ... DO NOT EDIT." header, testdata) are left out.
func TestNoFileOverMaxLines(t *testing.T) {
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || path == filepath.Join(root, "gen")) {
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
		files++
		if n := bytes.Count(src, []byte("\n")); n > maxLines {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s: %d lines, more than %d: split it by what it holds", filepath.ToSlash(rel), n, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s", files, root)
	}
}
