// Command abidrill is the ABI-change drill (`make abi-drill`): it proves
// that a change to the ABI is one edit in abi/schema.yaml.
//
// In a temporary copy of the repository's tracked files (outside the
// checkout, which it never writes), it applies each schema change of
// changes in turn to the pristine schema: a u64 field appended to the
// record, a new task type, a new named runtime stage, a new descriptor
// namespace, a third slot region. For each it regenerates gen/ with
// abigen, builds cycleabi, compiles the C++ header with its asserts,
// checks that `abigen diff` classifies the change as expected, that
// synth writes a capture
// validate accepts and decode shows, and that a capture written through
// the regenerated Go writer (every region, every schema-named descriptor)
// validates and decodes to the new names and fields, and that export's
// records table of either capture has the new columns. Then, per test
// group (changes applied together), it runs the copy's tests and checks
// that only the tests that pin today's schema fail: packages whose golden
// files `go test -update` refreshes, and tests the group names, each with
// what it pins.
//
// A failure says which check of which change failed and what ran; a check
// that fails for a reason the drill knows (knownGap) is reported as a known
// gap naming the code that still needs an edit, and does not fail the
// drill; when such a gap closes, the drill says so.
//
//	go run ./scripts/abidrill [-keep] [-only NAME] [-tests=false]
//	go run ./scripts/abidrill -apply NAME   # leave a copy with one change applied
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

func main() {
	keep := flag.Bool("keep", false, "keep the temporary copy and print where it is")
	only := flag.String("only", "", "run only the change of this name")
	runTests := flag.Bool("tests", true, "run the copy's tests with the changes applied")
	group := flag.String("group", "", "run only the changes and tests of this test group")
	apply := flag.String("apply", "", "apply the change (or test group) of this name in a kept copy, regenerate, print the copy's path and stop (to investigate)")
	flag.Parse()
	d, err := newDrill()
	if err != nil {
		fmt.Fprintln(os.Stderr, "abi-drill:", err)
		os.Exit(2)
	}
	if *apply != "" {
		for _, g := range testGroups {
			if g.name == *apply {
				var edits []edit
				for _, c := range changes {
					if slices.Contains(g.changes, c.name) {
						edits = append(edits, c.edits...)
					}
				}
				changes = []change{{name: g.name, edits: uniqEdits(edits)}}
			}
		}
		for _, c := range changes {
			if c.name == *apply {
				if err := d.apply(c.edits); err != nil {
					fmt.Fprintln(os.Stderr, "abi-drill:", err)
					os.Exit(2)
				}
				if out, err := d.run(d.abigen); err != nil {
					fmt.Fprintf(os.Stderr, "abi-drill: abigen: %v\n%s", err, out)
					os.Exit(1)
				}
				if err := d.noteInChangelog(c.name); err != nil {
					fmt.Fprintln(os.Stderr, "abi-drill:", err)
					os.Exit(1)
				}
				fmt.Println(d.dir)
				return
			}
		}
		fmt.Fprintf(os.Stderr, "abi-drill: no change %q\n", *apply)
		os.Exit(2)
	}
	if *keep {
		fmt.Println("abi-drill: copy kept in", d.dir)
	} else {
		defer os.RemoveAll(d.dir)
	}
	start := time.Now()
	failed := false
	inGroup := func(name string) bool {
		for _, g := range testGroups {
			if g.name == *group && slices.Contains(g.changes, name) {
				return true
			}
		}
		return *group == ""
	}
	for _, c := range changes {
		if *only != "" && c.name != *only || !inGroup(c.name) {
			continue
		}
		if !d.runChange(c) {
			failed = true
		}
	}
	if *runTests {
		for _, g := range testGroups {
			if *group != "" && g.name != *group {
				continue
			}
			var edits []edit
			for _, name := range g.changes {
				for _, c := range changes {
					if c.name == name && (*only == "" || *only == name) {
						edits = append(edits, c.edits...)
					}
				}
			}
			if len(edits) > 0 && !d.runTests("tests/"+g.name, edits, g.pinned) {
				failed = true
			}
		}
	}
	fmt.Printf("abi-drill: %s in %s\n", map[bool]string{true: "FAIL", false: "ok"}[failed], time.Since(start).Round(time.Second))
	if failed {
		if !*keep {
			os.RemoveAll(d.dir)
		}
		os.Exit(1)
	}
}

type drill struct {
	root, dir string // the checkout, and its temporary copy
	schema    []byte // the pristine schema
	changelog []byte // the pristine CHANGELOG.md
	abigen    string // abigen, built once from the copy
	cxx       string // a C++ compiler, "" when there is none
}

// newDrill copies the checkout's tracked files (as they are in the working
// tree) into a temporary directory and builds abigen there.
func newDrill() (*drill, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil, fmt.Errorf("not in a git checkout: %v", err)
	}
	root := strings.TrimSpace(string(out))
	dir, err := os.MkdirTemp("", "abi-drill-")
	if err != nil {
		return nil, err
	}
	d := &drill{root: root, dir: dir}
	files, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		return nil, err
	}
	for _, rel := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		info, err := os.Stat(filepath.Join(root, rel))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, data, info.Mode().Perm()); err != nil {
			return nil, err
		}
	}
	// Packages installed beside the tests that git does not track (the
	// DuckDB of tests/duckdb, from npm ci) are linked into the copy, so its
	// tests run there as they do in the checkout.
	for _, rel := range []string{"tests/duckdb/node_modules"} {
		if _, err := os.Stat(filepath.Join(root, rel)); err == nil {
			if err := os.Symlink(filepath.Join(root, rel), filepath.Join(dir, rel)); err != nil {
				return nil, err
			}
		}
	}
	if d.schema, err = os.ReadFile(filepath.Join(dir, "abi", "schema.yaml")); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "abi", "schema.orig.yaml"), d.schema, 0o644); err != nil {
		return nil, err
	}
	if d.changelog, err = os.ReadFile(filepath.Join(dir, changelogFile)); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "cmd", "drillcap"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "cmd", "drillcap", "main.go"), []byte(drillcapSource), 0o644); err != nil {
		return nil, err
	}
	d.abigen = filepath.Join(dir, ".bin", "abigen")
	if out, err := d.run("go", "build", "-o", d.abigen, "./cmd/abigen"); err != nil {
		return nil, fmt.Errorf("building abigen: %v\n%s", err, out)
	}
	for _, c := range []string{"c++", "g++", "clang++"} {
		if p, err := exec.LookPath(c); err == nil {
			d.cxx = p
			break
		}
	}
	return d, nil
}

// run runs a command in the copy and returns its combined output.
func (d *drill) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = d.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// apply writes the pristine schema with edits applied.
func (d *drill) apply(edits []edit) error {
	s := string(d.schema)
	for _, e := range edits {
		if n := strings.Count(s, e.Old); n != 1 {
			return fmt.Errorf("the schema edit's anchor occurs %d times, want 1 (abi/schema.yaml changed? update the drill):\n%s", n, e.Old)
		}
		s = strings.Replace(s, e.Old, e.New, 1)
	}
	return os.WriteFile(filepath.Join(d.dir, "abi", "schema.yaml"), []byte(s), 0o644)
}

// report collects one change's results.
type report struct {
	name     string
	knownGap string
	failures []string
}

func (r *report) failf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// runChange applies one change and checks everything it must do; it
// reports false when the drill fails.
func (d *drill) runChange(c change) bool {
	start := time.Now()
	r := &report{name: c.name, knownGap: c.knownGap}
	defer func() { d.restore() }()
	if err := d.apply(c.edits); err != nil {
		r.failf("%v", err)
		return r.done(start, false)
	}
	// Regenerate: the schema edit is the only edit.
	if out, err := d.run(d.abigen); err != nil {
		r.failf("abigen refused the changed schema: %v\n%s", err, out)
		return r.done(start, false)
	}
	d.checkDiff(r, c)
	d.checkHeader(r, c)
	bin := filepath.Join(d.dir, ".bin")
	if out, err := d.run("go", "build", "-o", bin+"/", "./cmd/cycleabi", "./cmd/drillcap"); err != nil {
		r.failf("the regenerated Go does not build (a hand-written file depends on today's schema): %v\n%s", err, out)
		return r.done(start, true)
	}
	cycleabi := filepath.Join(bin, "cycleabi")
	// synth → validate → decode.
	schedule := "examples/moe_layer.yaml"
	if c.schedule != "" {
		schedule = ".bin/drill.yaml"
		if err := os.WriteFile(filepath.Join(d.dir, schedule), []byte(c.schedule), 0o644); err != nil {
			r.failf("%v", err)
		}
	}
	d.checkCapture(r, "synth", c.trace, c.columns, func(capture string) (string, error) {
		return d.run(cycleabi, "synth", schedule, "--seed", "1", "-o", capture)
	}, cycleabi)
	d.checkCapture(r, "writer", c.drillTrace, c.columns, func(capture string) (string, error) {
		return d.run(filepath.Join(bin, "drillcap"), capture)
	}, cycleabi)
	return r.done(start, true)
}

// restore puts the pristine schema, gen/ and changelog back.
func (d *drill) restore() {
	_ = os.WriteFile(filepath.Join(d.dir, "abi", "schema.yaml"), d.schema, 0o644)
	_ = os.WriteFile(filepath.Join(d.dir, changelogFile), d.changelog, 0o644)
	if out, err := d.run(d.abigen); err != nil {
		fmt.Fprintf(os.Stderr, "abi-drill: restoring gen/: %v\n%s", err, out)
	}
}

// done prints the change's result; ok is false when the drill fails.
func (r *report) done(start time.Time, ranChecks bool) bool {
	took := time.Since(start).Round(100 * time.Millisecond)
	switch {
	case len(r.failures) == 0 && r.knownGap != "":
		fmt.Printf("ok    %-14s %s (known gap closed: remove knownGap from the drill)\n", r.name, took)
		return true
	case len(r.failures) == 0:
		fmt.Printf("ok    %-14s %s\n", r.name, took)
		return true
	case r.knownGap != "" && ranChecks:
		fmt.Printf("GAP   %-14s %s: needs an edit outside the schema: %s\n", r.name, took, r.knownGap)
		for _, f := range r.failures {
			fmt.Printf("        %s\n", indent(f))
		}
		return true
	}
	fmt.Printf("FAIL  %-14s %s\n", r.name, took)
	for _, f := range r.failures {
		fmt.Printf("        %s\n", indent(f))
	}
	return false
}

// indent indents a failure's text under its change, at most 12 lines.
func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 12 {
		lines = append(lines[:12], fmt.Sprintf("… (%d more lines)", len(lines)-12))
	}
	return strings.Join(lines, "\n        ")
}

// checkDiff runs `abigen diff` between the pristine and the changed schema.
func (d *drill) checkDiff(r *report, c change) {
	out, err := d.run(d.abigen, "diff", "abi/schema.orig.yaml", "abi/schema.yaml", "-format", "json")
	var res struct {
		Changes []struct{ Rule, Category, Path string }
		OK      bool
	}
	if jerr := json.Unmarshal([]byte(out), &res); jerr != nil {
		r.failf("abigen diff: %v (%v)\n%s", err, jerr, out)
		return
	}
	if err != nil || !res.OK {
		r.failf("abigen diff does not accept the change (exit %v)\n%s", err, out)
	}
	var got []string
	for _, ch := range res.Changes {
		got = append(got, ch.Category+" "+ch.Rule)
	}
	got = uniq(got)
	want := uniq(c.rules)
	if !slices.Equal(got, want) {
		r.failf("abigen diff classifies the change as\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func uniqEdits(edits []edit) []edit {
	var out []edit
	for _, e := range edits {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func uniq(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return slices.Compact(s)
}

// checkHeader compiles the regenerated C++ header with its static_asserts.
func (d *drill) checkHeader(r *report, c change) {
	header, err := os.ReadFile(filepath.Join(d.dir, "gen", "cpp", "cycleabi_abi.h"))
	if err != nil {
		r.failf("%v", err)
		return
	}
	for _, line := range c.header {
		if !bytes.Contains(header, []byte(line)) {
			r.failf("the C++ header lacks %q", line)
		}
	}
	if d.cxx == "" {
		if os.Getenv("CYCLEABI_REQUIRE_CXX") != "" {
			r.failf("no C++ compiler on PATH (CYCLEABI_REQUIRE_CXX is set)")
		}
		return
	}
	src := filepath.Join(d.dir, ".bin", "header.cpp")
	_ = os.WriteFile(src, []byte("#include \"cycleabi_abi.h\"\nint main() { return 0; }\n"), 0o644)
	for _, std := range []string{"c++11", "c++20"} {
		if out, err := d.run(d.cxx, "-std="+std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "-I", "gen/cpp", src); err != nil {
			r.failf("the C++ header does not compile at -std=%s: %v\n%s", std, err, out)
		}
	}
}

// checkCapture writes a capture, then requires validate to accept it,
// decode's trace to contain want and export's records table to have the
// columns.
func (d *drill) checkCapture(r *report, what string, want, columns []string, write func(capture string) (string, error), cycleabi string) {
	capture := filepath.Join(".bin", what+".bin")
	if out, err := write(capture); err != nil {
		r.failf("%s: writing the capture: %v\n%s", what, err, out)
		return
	}
	if out, err := d.run(cycleabi, "validate", capture); err != nil {
		r.failf("%s: validate does not accept the capture: %v\n%s", what, err, out)
	}
	trace := filepath.Join(".bin", what+".json")
	if out, err := d.run(cycleabi, "decode", capture, "-o", trace); err != nil {
		r.failf("%s: decode fails: %v\n%s", what, err, out)
		return
	}
	data, err := os.ReadFile(filepath.Join(d.dir, trace))
	if err != nil {
		r.failf("%v", err)
		return
	}
	for _, w := range want {
		if !bytes.Contains(data, []byte(w)) {
			r.failf("%s: decode's trace lacks %s", what, w)
		}
	}
	parquetDir := filepath.Join(".bin", what+".parquet")
	// The previous change's export is in the way: export never replaces
	// a folder with files in it.
	if err := os.RemoveAll(filepath.Join(d.dir, parquetDir)); err != nil {
		r.failf("%v", err)
		return
	}
	if out, err := d.run(cycleabi, "export", capture, "-o", parquetDir); err != nil {
		r.failf("%s: export fails: %v\n%s", what, err, out)
		return
	}
	have, err := parquetColumns(filepath.Join(d.dir, parquetDir, "records", "rank=0", "part-00000.parquet"))
	if err != nil {
		r.failf("%s: reading export's records table: %v", what, err)
		return
	}
	for _, c := range columns {
		if !slices.Contains(have, c) {
			r.failf("%s: export's records table has no column %s (it has %s)", what, c, strings.Join(have, ", "))
		}
	}
}

// parquetColumns returns the names of a Parquet file's top-level columns.
func parquetColumns(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, err
	}
	var names []string
	for _, c := range pf.Schema().Fields() {
		names = append(names, c.Name())
	}
	return names, nil
}

// runTests applies a group of changes at once and runs the copy's tests:
// only pinned packages may fail, and -update must fix those that have it.
func (d *drill) runTests(name string, edits []edit, pinned map[string]string) bool {
	start := time.Now()
	r := &report{name: name}
	defer d.restore()
	if err := d.apply(uniqEdits(edits)); err != nil {
		r.failf("%v", err)
		return r.done(start, false)
	}
	if out, err := d.run(d.abigen); err != nil {
		r.failf("abigen refused the schema: %v\n%s", err, out)
		return r.done(start, false)
	}
	if err := d.noteInChangelog(name); err != nil {
		r.failf("%v", err)
		return r.done(start, false)
	}
	// The example captures are synth's output, regenerated as after any
	// ABI change (make examples); the tests that read them follow.
	if o, err := d.run("go", "test", "-count=1", "./examples", "-update"); err != nil && !strings.Contains(o, "FAIL") {
		r.failf("make examples does not run: %v\n%s", err, o)
	}
	failing, firstTests, _ := d.goTestJSON("./...")
	if len(failing) == 0 {
		fmt.Printf("        every package passes\n")
	}
	// Refresh the golden files of every failing package that has them,
	// then run the failing packages again: a package that only read
	// another's golden data (the example captures) passes now.
	var updated []string
	for _, pkg := range failing {
		if !d.hasUpdateFlag(pkg) {
			continue
		}
		if o, err := d.run("go", "test", "-count=1", "./"+pkg, "-update"); err != nil && !strings.Contains(o, "FAIL") {
			r.failf("%s: go test -update does not run: %v\n%s", pkg, err, o)
		}
		updated = append(updated, pkg)
	}
	var still []string
	stillTests, stillOut := map[string][]string{}, map[string]string{}
	if len(failing) > 0 {
		var pkgs []string
		for _, p := range failing {
			pkgs = append(pkgs, "./"+p)
		}
		still, stillTests, stillOut = d.goTestJSON(pkgs...)
	}
	pinnedTests := pinnedTests(pinned)
	for _, pkg := range failing {
		why, isPinned := pinned[pkg]
		failsStill := slices.Contains(still, pkg)
		wasUpdated := slices.Contains(updated, pkg)
		switch {
		case !failsStill && wasUpdated && isPinned:
			fmt.Printf("        -update %-18s %s\n", pkg, why)
		case !failsStill && wasUpdated:
			r.failf("%s needs go test -update, and it does not pin today's schema: its golden files depend on it (add it to the drill's pinned list with what it pins, or make it follow the schema)", pkg)
		case !failsStill:
			fmt.Printf("        passes  %-18s once the packages above are updated\n", pkg)
		case len(stillTests[pkg]) == 0:
			r.failf("%s fails with the schema changed, and no test of it fails: it does not build or run\n%s", pkg, failures(stillOut[pkg]))
		default:
			var unpinned []string
			for _, test := range stillTests[pkg] {
				if why, ok := pinnedTests[pkg+"."+test]; ok {
					fmt.Printf("        by hand %-18s %s\n", pkg+"."+test, why)
				} else {
					unpinned = append(unpinned, test)
				}
			}
			if len(unpinned) > 0 {
				r.failf("%s: %s fail with the schema changed and -update does not fix them: they need an edit outside the schema (or, if they pin today's schema on purpose, an entry %q in the drill's pinned list)\n%s",
					pkg, strings.Join(unpinned, ", "), pkg+"."+unpinned[0], failures(stillOut[pkg]))
			}
		}
	}
	// A pinned test that no longer fails is a pin to remove.
	var stale []string
	for key := range pinnedTests {
		if pkg, test, _ := strings.Cut(key, "."); !slices.Contains(firstTests[pkg], test) {
			stale = append(stale, key)
		}
	}
	sort.Strings(stale)
	for _, key := range stale {
		fmt.Printf("        stale   %-18s passes with the schema changed: remove it from the drill's pinned list\n", key)
	}
	return r.done(start, true)
}

// pinnedTests returns the tests pinned lists by name, "pkg.TestName",
// from its "pkg.TestA,TestB" keys.
func pinnedTests(pinned map[string]string) map[string]string {
	out := map[string]string{}
	for key, why := range pinned {
		pkg, tests, ok := strings.Cut(key, ".")
		if !ok {
			continue
		}
		for _, test := range strings.Split(tests, ",") {
			out[pkg+"."+test] = why
		}
	}
	return out
}

// module is the import path prefix of the repository's packages.
const module = "github.com/megakernel/cycleabi/"

// hasUpdateFlag reports whether a package's tests take -update: they
// import internal/testkit/golden, which declares it.
func (d *drill) hasUpdateFlag(pkg string) bool {
	files, _ := filepath.Glob(filepath.Join(d.dir, pkg, "*_test.go"))
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil && bytes.Contains(data, []byte(`"`+module+`internal/testkit/golden"`)) {
			return true
		}
	}
	return false
}

// failures keeps the lines of a package's test output that say what failed.
func failures(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- PASS") && !strings.HasPrefix(t, "PASS") && !strings.HasPrefix(t, "ok ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// goTestJSON runs the tests of pkgs in the copy (short mode: no fuzzing,
// no compiler matrix beyond what the packages run by default) and returns
// the packages that fail, the top-level tests that fail in each, and each
// package's output (its end).
func (d *drill) goTestJSON(pkgs ...string) ([]string, map[string][]string, map[string]string) {
	cmd := exec.Command("go", append([]string{"test", "-short", "-count=1", "-json"}, pkgs...)...)
	cmd.Dir = d.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = io.Discard
	_ = cmd.Run()
	failed := map[string]bool{}
	tests := map[string][]string{}
	output := map[string]string{}
	dec := json.NewDecoder(&stdout)
	for {
		var ev struct{ Action, Package, Test, Output string }
		if err := dec.Decode(&ev); err != nil {
			break
		}
		pkg := strings.TrimPrefix(ev.Package, module)
		if ev.Action == "output" {
			// Keep the end: a failure comes after the passing tests' logs.
			o := output[pkg] + ev.Output
			output[pkg] = o[max(0, len(o)-4000):]
		}
		switch {
		case ev.Action != "fail":
		case ev.Test == "":
			failed[pkg] = true
		case !strings.Contains(ev.Test, "/"):
			tests[pkg] = append(tests[pkg], ev.Test)
		}
	}
	var out []string
	for p := range failed {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, tests, output
}

// drillcapSource is a program the drill builds in the copy against the
// regenerated package: it writes a capture through the Go writer with the
// first slot of every region holding one record per descriptor the schema
// names, so the trace must show every region and every name.
const drillcapSource = `// Command drillcap is written by the ABI drill; it is not part of the repository.
package main

import (
	"fmt"
	"os"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

func main() {
	var ids []uint32
	for _, ns := range abi.Namespaces() {
		for i := uint32(0); i < ns.Count() && i < 0x10000; i++ {
			if _, ok := abi.DescSchemaName(ns.Base() + i); ok {
				ids = append(ids, ns.Base()+i)
			}
		}
	}
	capacity, err := abi.RoundUpCapacity(uint64(len(ids)))
	if err != nil {
		fail(err)
	}
	l, err := abi.NewLayout(abi.MinCubeSlots, abi.SameCapacities(capacity))
	if err != nil {
		fail(err)
	}
	buf := make([]byte, l.Size())
	for _, r := range abi.Regions() {
		s, _ := l.SlotOf(r.CoreType, 0)
		slot := buf[s.Offset : s.Offset+s.Stride()]
		if err := abi.InitSlot(slot, 1000, r.CoreType, 0, capacity); err != nil {
			fail(err)
		}
		for i, id := range ids {
			rec := abi.ProfileRecord{StartCycle: 1000 + 10*uint64(i), EndCycle: 1005 + 10*uint64(i), DescID: id, TaskID: uint32(i), OwnerID: abi.InvalidOwnerID}
			if _, err := abi.WriteRecord(slot, &rec); err != nil {
				fail(err)
			}
		}
	}
	if err := os.WriteFile(os.Args[1], buf, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "drillcap:", err)
	os.Exit(1)
}
`
