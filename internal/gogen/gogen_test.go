package gogen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// realSchema is the repository's schema, loaded under the name abigen uses.
const realSchema = "abi/schema.yaml"

func loadReal(t *testing.T) *schema.Schema {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(realSchema)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.Load(realSchema, data)
	if err != nil {
		t.Fatalf("load %s: %v", realSchema, err)
	}
	return s
}

// TestGolden renders every testdata/*.yaml schema and the real one and
// compares the output with testdata/golden/<name>/; a schema Generate
// refuses has the exact error text as its golden, <name>.err.
func TestGolden(t *testing.T) {
	cases := map[string]func(t *testing.T) *schema.Schema{"schema": loadReal}
	paths, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		p := p
		cases[strings.TrimSuffix(filepath.Base(p), ".yaml")] = func(t *testing.T) *schema.Schema {
			s, err := schema.LoadFile(filepath.ToSlash(p))
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			return s
		}
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			files, err := Generate(cases[name](t))
			dir := filepath.Join("testdata", "golden", name)
			errFile := dir + ".err"
			if err != nil {
				checkGolden(t, errFile, []byte(err.Error()+"\n"))
				return
			}
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
			}
			for path, got := range files {
				checkGolden(t, filepath.Join(dir, filepath.FromSlash(path)), got)
			}
			// A golden file the generator no longer writes is stale.
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(dir, p)
				if _, ok := files[filepath.ToSlash(rel)]; !ok {
					t.Errorf("%s: golden file not generated any more (run go test -update)", p)
				}
				return nil
			})
		})
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the generated output (run go test -update and review the diff)\n%s", path, firstDiff(want, got))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return "(no line differs)"
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}
