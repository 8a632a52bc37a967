// Command testskips runs `go test -json` and prints what go test itself
// would (each package's line, and the output of the tests that fail),
// keeping the tests that skipped with the reason they gave, so that each
// make target ends with one line naming every check it skipped and why (a
// DuckDB or C++ compiler that is not installed, a drill left to make ci
// under -short).
//
//	testskips run -record skips.jsonl -- -short ./...   # go test -json -short ./..., its exit status
//	testskips summary -label "make test" skips.jsonl     # the one line, over one or more records
//
// A test that a package's timeout (or a crash) stops never gets its own
// "fail" event: its output, the timeout's panic and the "running tests:"
// list naming it, is printed when its package fails.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// outcome is what one test did in one run: it skipped (with the reason
// it gave) or it passed. A test that skipped in one run and passed in
// another (a race-detector run, then one without) skipped nothing.
type outcome struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	Action  string `json:"action"` // "skip" or "pass"
	Reason  string `json:"reason,omitempty"`
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run":
		var rc int
		rc, err = run(os.Args[2:], os.Stdout)
		if err == nil {
			os.Exit(rc)
		}
	case "summary":
		err = summary(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testskips:", err)
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage: testskips run -record FILE -- GO-TEST-ARGS...
       testskips summary [-label NAME] FILE...`)
	os.Exit(2)
}

// run runs go test -json with args, passes its stream through pass and
// appends the outcomes to the record file. It returns go test's exit
// status.
func run(args []string, w io.Writer) (int, error) {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	record := fs.String("record", "", "append each test's skip or pass to this file (JSON lines)")
	fs.Parse(args)
	if *record == "" {
		return 0, errors.New("run: -record is required")
	}
	goTool := os.Getenv("GO")
	if goTool == "" {
		goTool = "go"
	}
	cmd := exec.Command(goTool, append([]string{"test", "-json"}, fs.Args()...)...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	outcomes, perr := pass(stdout, w)
	io.Copy(io.Discard, stdout) // whatever is left, so go test never blocks
	werr := cmd.Wait()
	if err := appendOutcomes(*record, outcomes); err != nil {
		return 0, err
	}
	if perr != nil {
		return 0, perr
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) {
		return exit.ExitCode(), nil
	}
	return 0, werr
}

func appendOutcomes(file string, outcomes []outcome) error {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, o := range outcomes {
		if err := enc.Encode(o); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func summary(args []string) error {
	fs := flag.NewFlagSet("summary", flag.ExitOnError)
	label := fs.String("label", "make test", "what the line says ran")
	fs.Parse(args)
	var outcomes []outcome
	for _, file := range fs.Args() {
		b, err := os.ReadFile(file)
		if err != nil && !errors.Is(err, os.ErrNotExist) { // no file: nothing ran, nothing skipped
			return err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var o outcome
			if line != "" && json.Unmarshal([]byte(line), &o) == nil {
				outcomes = append(outcomes, o)
			}
		}
	}
	fmt.Println(summarize(*label, outcomes))
	return nil
}

// pass writes what go test prints without -json: package lines and build
// output as they come, a test's output only when it fails, or when its
// package fails while it still runs (a timeout, a crash). It returns each
// test's skip (with the last line it printed before it did) or pass.
func pass(r io.Reader, w io.Writer) ([]outcome, error) {
	type test struct{ pkg, name string }
	held := map[test][]string{} // a running test's output
	var running []test          // the held tests, in the order they started
	var outcomes []outcome
	done := func(k test) {
		delete(held, k)
		for i, t := range running {
			if t == k {
				running = append(running[:i], running[i+1:]...)
				break
			}
		}
	}
	// unfinished prints the output of pkg's tests that are still running
	// when pkg fails: a timeout's panic, or a crash, is in it, and no
	// fail event of theirs will ever print it.
	unfinished := func(pkg string) {
		for _, t := range append([]test(nil), running...) {
			if t.pkg == pkg {
				fmt.Fprintf(w, "--- UNFINISHED: %s (still running when its package failed)\n", t.name)
				io.WriteString(w, strings.Join(held[t], ""))
				done(t)
			}
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text()) // not test2json's: as it came
			continue
		}
		k := test{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			io.WriteString(w, e.Output)
		case e.Test == "" && e.Action == "output":
			if strings.HasPrefix(e.Output, "FAIL") {
				unfinished(e.Package)
			}
			if e.Output != "PASS\n" { // go test without -json prints only "ok"
				io.WriteString(w, e.Output)
			}
		case e.Test == "" && e.Action == "fail":
			unfinished(e.Package)
		case e.Test == "":
		case e.Action == "run":
			if _, ok := held[k]; !ok {
				running = append(running, k)
				held[k] = nil
			}
		case e.Action == "output":
			if _, ok := held[k]; !ok {
				running = append(running, k)
			}
			held[k] = append(held[k], e.Output)
		case e.Action == "fail":
			io.WriteString(w, strings.Join(held[k], ""))
			done(k)
		case e.Action == "skip":
			outcomes = append(outcomes, outcome{Package: e.Package, Test: e.Test, Action: "skip", Reason: reason(held[k])})
			done(k)
		case e.Action == "pass":
			outcomes = append(outcomes, outcome{Package: e.Package, Test: e.Test, Action: "pass"})
			done(k)
		}
	}
	return outcomes, sc.Err()
}

// reason is the message a skipped test gave: its last output line other
// than go test's own (=== RUN, --- SKIP), less the "file.go:12: " prefix.
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		if i := strings.Index(l, ".go:"); i >= 0 && !strings.Contains(l[:i], " ") {
			if j := strings.Index(l[i:], ": "); j >= 0 {
				l = l[i+j+2:]
			}
		}
		return l
	}
	return "no reason given"
}

// ShortPrefix begins the reason of every test that -short leaves to
// make ci (internal/testkit/short.Prefix): the summary counts those apart.
const ShortPrefix = "-short:"

// maxNamed bounds the tests named per reason.
const maxNamed = 3

// summarize is the one line: each reason, with the tests that gave it,
// each test once, and none that passed in another run of the record.
// The tests -short left to make ci are counted, not listed.
func summarize(label string, outcomes []outcome) string {
	type key struct{ pkg, test string }
	passed := map[key]bool{}
	for _, o := range outcomes {
		if o.Action == "pass" {
			passed[key{o.Package, o.Test}] = true
		}
	}
	seen := map[key]bool{}
	by := map[string][]string{}
	skipped, short := 0, 0
	for _, o := range outcomes {
		k := key{o.Package, o.Test}
		if o.Action != "skip" || passed[k] || seen[k] {
			continue
		}
		seen[k] = true
		if strings.HasPrefix(o.Reason, ShortPrefix) {
			short++
			continue
		}
		skipped++
		pkg := o.Package[strings.LastIndex(o.Package, "/")+1:]
		by[o.Reason] = append(by[o.Reason], pkg+"."+o.Test)
	}
	leftToCI := ""
	if short > 0 {
		leftToCI = fmt.Sprintf("%d test(s) left to make ci by -short", short)
	}
	if skipped == 0 {
		if leftToCI != "" {
			return fmt.Sprintf("%s: skipped nothing else; %s", label, leftToCI)
		}
		return label + ": skipped nothing"
	}
	reasons := make([]string, 0, len(by))
	for r := range by {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	var parts []string
	for _, r := range reasons {
		tests := by[r]
		sort.Strings(tests)
		named := strings.Join(tests[:min(len(tests), maxNamed)], ", ")
		if len(tests) > maxNamed {
			named += fmt.Sprintf(" and %d more", len(tests)-maxNamed)
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", r, named))
	}
	line := fmt.Sprintf("%s skipped %d check(s): %s", label, skipped, strings.Join(parts, "; "))
	if leftToCI != "" {
		line += "; and " + leftToCI
	}
	return line
}
