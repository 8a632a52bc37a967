// Command testskips passes `go test -json` through as go test's own
// output would read (each package's line, and the output of the tests
// that fail), and keeps the tests that skipped with the reason they gave,
// so that `make test` can end with one line naming each check it skipped
// and why (a DuckDB or C++ compiler that is not installed, a test too slow
// under the race detector).
//
//	go test -json ./... | testskips -record skips.jsonl   # pass through, append skips
//	testskips -summary skips.jsonl                        # the one line
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
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

// skip is one skipped test and the reason it gave.
type skip struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	Reason  string `json:"reason"`
}

func main() {
	record := flag.String("record", "", "pass `go test -json` on stdin through and append its skips to this file (JSON lines)")
	summary := flag.String("summary", "", "print the one line naming the skips recorded in this file")
	flag.Parse()
	switch {
	case *record != "":
		f, err := os.OpenFile(*record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testskips:", err)
			os.Exit(2)
		}
		skips, err := pass(os.Stdin, os.Stdout)
		enc := json.NewEncoder(f)
		for _, s := range skips {
			enc.Encode(s)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "testskips:", err)
			os.Exit(2)
		}
	case *summary != "":
		b, err := os.ReadFile(*summary)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testskips:", err)
			os.Exit(2)
		}
		var skips []skip
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var s skip
			if line != "" && json.Unmarshal([]byte(line), &s) == nil {
				skips = append(skips, s)
			}
		}
		fmt.Println(summarize(skips))
	default:
		flag.Usage()
		os.Exit(2)
	}
}

// pass writes what go test prints without -json: package lines and build
// output as they come, a test's output only when it fails. It returns the
// tests that skipped, with the last line each printed before it did.
func pass(r io.Reader, w io.Writer) ([]skip, error) {
	held := map[string][]string{} // package + "\x00" + test -> its output
	var skips []skip
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text()) // not test2json's: as it came
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			io.WriteString(w, e.Output)
		case e.Test == "" && e.Action == "output":
			if e.Output != "PASS\n" { // go test without -json prints only "ok"
				io.WriteString(w, e.Output)
			}
		case e.Action == "output":
			held[key] = append(held[key], e.Output)
		case e.Action == "fail" && e.Test != "":
			io.WriteString(w, strings.Join(held[key], ""))
			delete(held, key)
		case e.Action == "skip" && e.Test != "":
			skips = append(skips, skip{Package: e.Package, Test: e.Test, Reason: reason(held[key])})
			delete(held, key)
		case e.Action == "pass":
			delete(held, key)
		}
	}
	return skips, sc.Err()
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

// maxNamed bounds the tests named per reason.
const maxNamed = 3

// summarize is the one line: each reason, with the tests that gave it.
func summarize(skips []skip) string {
	if len(skips) == 0 {
		return "make test: skipped nothing"
	}
	by := map[string][]string{}
	for _, s := range skips {
		pkg := s.Package[strings.LastIndex(s.Package, "/")+1:]
		by[s.Reason] = append(by[s.Reason], pkg+"."+s.Test)
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
	return fmt.Sprintf("make test skipped %d check(s): %s", len(skips), strings.Join(parts, "; "))
}
