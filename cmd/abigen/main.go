// Command abigen generates the Go and C++ sides of the cycle-trace ABI, and
// its reference document, from abi/schema.yaml.
//
//	go run ./cmd/abigen            regenerate gen/go, gen/cpp, gen/doc and gen/py
//	go run ./cmd/abigen -check     print a unified diff of any drift; exit 1 if any
//	go run ./cmd/abigen diff OLD NEW   classify the changes between two schemas
//	go run ./cmd/abigen doc        regenerate gen/doc/ABI.md only
//	go run ./cmd/abigen -version   print abigen's version and the schema's ABI version and fingerprint
//
// The schema is loaded into a validated model first; a schema with any
// problem is reported in full (file:line:col: path: message), exit 1, and
// nothing under gen/ is touched. Files are written only once every emitter
// has succeeded, each to a temporary name renamed into place (package
// outfile); a file to write that is the schema itself is refused, exit 2.
package main

//go:generate go run . -schema ../../abi/schema.yaml -go-out ../../gen/go -cpp-out ../../gen/cpp -doc-out ../../gen/doc -py-out ../../gen/py

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/cppgen"
	"github.com/megakernel/cycleabi/internal/abigen/docgen"
	"github.com/megakernel/cycleabi/internal/abigen/gogen"
	"github.com/megakernel/cycleabi/internal/abigen/pygen"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/pmezard/go-difflib/difflib"
)

func main() {
	outfile.HandleSignals()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "diff":
			return runDiff(args[1:], stdout, stderr)
		case "doc":
			return runDoc(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("abigen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := defaultOutputs()
	fs.StringVar(&o.schema, "schema", o.schema, "the ABI schema to generate from")
	fs.StringVar(&o.goOut, "go-out", o.goOut, "root folder of the generated Go packages")
	fs.StringVar(&o.cppOut, "cpp-out", o.cppOut, "folder of the generated C++ header")
	fs.StringVar(&o.docOut, "doc-out", o.docOut, "folder of the generated ABI reference")
	fs.StringVar(&o.pyOut, "py-out", o.pyOut, "folder of the generated Python module")
	version := fs.Bool("version", false, "print abigen's version and the schema's ABI version and fingerprint, then exit")
	check := fs.Bool("check", false, "render in memory and print a unified diff of any drift from the files on disk; exit 1 on drift")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: abigen [-check] [-schema FILE] [-go-out DIR] [-cpp-out DIR] [-doc-out DIR] [-py-out DIR]
       abigen -version [-schema FILE]
       abigen diff OLD NEW [-format text|json]
       abigen doc [-schema FILE] [-out DIR]

abigen turns abi/schema.yaml into gen/go (decoders, encoders, layout
helpers), gen/cpp (the header device kernels include), gen/doc (the ABI
reference) and gen/py (the Python/NumPy module). Run it from the repository root after changing the schema.

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "abigen: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if *version {
		return printVersion(o.schema, stdout, stderr)
	}
	files, err := render(o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if *check {
		drift, err := diffFiles(files, o.dirs())
		if err != nil {
			fmt.Fprintln(stderr, "abigen:", err)
			return 2
		}
		if drift != "" {
			fmt.Fprint(stdout, drift)
			fmt.Fprintln(stderr, "abigen: generated files are out of date; run `go run ./cmd/abigen`")
			return 1
		}
		return 0
	}
	if err := writeFiles(files, o.dirs(), o.schema); err != nil {
		fmt.Fprintln(stderr, "abigen:", err)
		return writeStatus(err)
	}
	return 0
}

// printVersion prints abigen's build and the version and fingerprint of
// the schema it would generate from (not of the gen/ it was built with, so
// that abigen never depends on the code it generates).
func printVersion(schemaPath string, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "abigen %s\n", buildinfo.Version())
	s, err := schema.LoadFile(schemaPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: ABI version %d, fingerprint %s\n", schemaPath, s.Version, s.FingerprintHex())
	return 0
}

// outputs says where the schema is and where each emitter's files go.
type outputs struct {
	schema, goOut, cppOut, docOut, pyOut string
}

func defaultOutputs() outputs {
	return outputs{schema: "abi/schema.yaml", goOut: "gen/go", cppOut: "gen/cpp", docOut: "gen/doc", pyOut: "gen/py"}
}

func (o outputs) dirs() []string { return []string{o.goOut, o.cppOut, o.docOut, o.pyOut} }

// render loads the schema and runs every emitter, returning the files keyed
// by their path on disk. Nothing is written.
func render(o outputs) (map[string][]byte, error) {
	s, err := load(o.schema)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range []struct {
		name string
		dir  string
		gen  func(*schema.Schema) (map[string][]byte, error)
	}{
		{"Go", o.goOut, gogen.Generate},
		{"C++", o.cppOut, cppgen.Generate},
		{"doc", o.docOut, docgen.Generate},
		{"Python", o.pyOut, pygen.Generate},
	} {
		out, err := e.gen(s)
		if err != nil {
			return nil, fmt.Errorf("abigen: %s emitter: %w", e.name, err)
		}
		for rel, data := range out {
			files[filepath.Join(e.dir, filepath.FromSlash(rel))] = data
		}
	}
	return files, nil
}

// load reads the schema at path to generate from it: named by its path
// in the module, whatever path it was read from, so that the output does
// not depend on the working directory, and stamped with this abigen's
// version (buildinfo, the repository's VERSION), which the banners name.
func load(path string) (*schema.Schema, error) {
	s, err := schema.LoadFile(path)
	if err != nil {
		return nil, err
	}
	s.File = modulePath(path)
	s.Release = buildinfo.Version()
	return s, nil
}

// modulePath returns path relative to the root of the module that holds
// it (the nearest folder above with a go.mod), or path itself when there is
// none.
func modulePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, abs); err == nil {
				return filepath.ToSlash(rel)
			}
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return filepath.ToSlash(path)
}

// generatedMarker starts the first line of every file abigen writes; files
// under the output folders that carry it but are no longer produced are stale.
const generatedMarker = "Code generated by abigen"

// staleFiles lists generated files under dirs that files does not contain.
func staleFiles(files map[string][]byte, dirs []string) ([]string, error) {
	var stale []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() || files[path] != nil {
				return nil
			}
			if isGenerated(path) {
				stale = append(stale, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(stale)
	return stale, nil
}

func isGenerated(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	first, _, _ := bytes.Cut(head[:n], []byte("\n"))
	return bytes.Contains(first, []byte(generatedMarker))
}

// diffFiles returns a unified diff between what is on disk and files, with
// stale generated files shown as deleted; "" when they agree.
func diffFiles(files map[string][]byte, dirs []string) (string, error) {
	var out strings.Builder
	for _, path := range sortedKeys(files) {
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if bytes.Equal(old, files[path]) {
			continue
		}
		from := path
		if old == nil {
			from = "/dev/null"
		}
		if err := unified(&out, from, path, old, files[path]); err != nil {
			return "", err
		}
	}
	stale, err := staleFiles(files, dirs)
	if err != nil {
		return "", err
	}
	for _, path := range stale {
		old, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		if err := unified(&out, path, "/dev/null", old, nil); err != nil {
			return "", err
		}
	}
	return out.String(), nil
}

func unified(w io.Writer, from, to string, a, b []byte) error {
	return difflib.WriteUnifiedDiff(w, difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(a)),
		B:        difflib.SplitLines(string(b)),
		FromFile: from,
		ToFile:   to,
		Context:  3,
	})
}

// writeFiles writes each changed file through package outfile (a
// temporary file beside it, renamed into place), then removes stale
// generated files. Every file is staged before the first rename, so a
// failure while staging leaves the old files untouched. A file to write or
// remove that is one of inputs (the schema) is refused with a
// *outfile.SameFileError before anything is written.
func writeFiles(files map[string][]byte, dirs []string, inputs ...string) error {
	stale, err := staleFiles(files, dirs)
	if err != nil {
		return err
	}
	var changed []string
	for _, path := range sortedKeys(files) {
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, files[path]) {
			continue
		}
		changed = append(changed, path)
	}
	for _, path := range append(changed, stale...) {
		if err := outfile.SameFile(path, inputs...); err != nil {
			return err
		}
	}
	var pending []*outfile.File
	abort := func() {
		for _, f := range pending {
			f.Abort()
		}
	}
	for _, path := range changed {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			abort()
			return err
		}
		f, err := outfile.Create(path)
		if err != nil {
			abort()
			return err
		}
		pending = append(pending, f)
		if _, err := f.Write(files[path]); err != nil {
			abort()
			return err
		}
	}
	for i, f := range pending {
		if err := f.Commit(); err != nil {
			for _, rest := range pending[i+1:] {
				rest.Abort()
			}
			return err
		}
	}
	for _, path := range stale {
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	return nil
}

// writeStatus is the exit status for a failure to write: 2 for an output
// that is an input (a usage error), else 1.
func writeStatus(err error) int {
	var same *outfile.SameFileError
	if errors.As(err, &same) {
		return 2
	}
	return 1
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
