package imports

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneSniffer: what a file is, is told in one place, package sniff:
// no other package's code holds the magic bytes of the kinds it names
// (PNG, zip, ELF, PDF, .npy) or a Perfetto test of its own (there were
// three sniffers, each with its own table), and the packages that read
// inputs (the capture loader, the trace merger, the input layer of
// every command, package input) import
// it. Test files, which write such files, are not looked at.
func TestOneSniffer(t *testing.T) {
	root := filepath.Join("..", "..")
	magic := regexp.MustCompile(`\\x89PNG|PK\\x03\\x04|PK\\x05\\x06|\\x7fELF|"%PDF|\\x93NUMPY|func (isPerfetto|perfettoPacket)\(`)
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := magic.Find(src); m != nil {
			if strings.HasPrefix(rel, "sniff/") {
				found++
			} else {
				assert.Fail(t, fmt.Sprintf("%s holds %s: files are told apart by package sniff alone", rel, m))
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEqual(t, 0, found, "package sniff holds none of the magic bytes: the rule tests nothing")
	for _, pkg := range []string{"capture", "tracemerge", "input"} {
		assert.Truef(t, slices.Contains(load(t, pkg).Imports, module+"sniff"), "%s does not import sniff: it tells its inputs apart by some other rule", pkg)
	}
}
