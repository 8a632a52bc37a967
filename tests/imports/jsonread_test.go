package imports

import (
	"go/build"
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

// TestOneJSONReader: every JSON input goes through internal/jsonread.
// Its users import it; it imports, of the module, only the input opener;
// and encoding/json decodes input only where a value jsonread has
// already read and checked is mapped onto a struct (a trace's metadata
// object), or where a test helper reads back what this module's writers
// wrote. diff's analyze reports are read through jsonread too.
func TestOneJSONReader(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, dir := range []string{"tracemerge", "jsontrace", "plan", "decode/kernelnames", "internal/yamlpos", "analyze"} {
		p, err := build.ImportDir(filepath.Join(root, dir), 0)
		require.NoError(t, err)
		assert.Truef(t, slices.Contains(p.Imports, module+"internal/jsonread"), "%s does not read JSON through internal/jsonread", dir)
	}
	p, err := build.ImportDir(filepath.Join(root, "internal", "jsonread"), 0)
	require.NoError(t, err)
	for _, imp := range p.Imports {
		dep, ours := strings.CutPrefix(imp, module)
		assert.Falsef(t, ours && dep != "internal/infile", "internal/jsonread imports %s: it stands below everything but the input opener", dep)
	}
	allowed := map[string]bool{
		"tracemeta/tracemeta.go": true, // megaKernelCycleTrace, read and checked by jsonread (jsontrace, tracemerge)
		// Test helpers reading back what this module's writers wrote.
		"decode/internal/decodetest/decodetest.go": true, // a JSON trace decode wrote
		"internal/testkit/golden/golden.go":        true, // JSON texts compared as values
		"scripts/abidrill/main.go":                 true, // the output of this module's own commands
		"scripts/testskips/main.go":                true, // go test -json's lines, and the skips it wrote itself
	}
	decodes := regexp.MustCompile(`json\.(Unmarshal|NewDecoder|Valid)\(`)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "internal/jsonread/") || allowed[rel] {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		assert.Falsef(t, decodes.Match(src), "%s decodes JSON with encoding/json: read it with internal/jsonread", rel)
		return nil
	})
	require.NoError(t, err)
}
