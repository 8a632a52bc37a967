package main

import (
	"bytes"
	"strings"
	"testing"
)

// A go test -json stream of a package with a passing, a failing and two
// skipped tests (one with a reason, one without), and a package line.
const stream = `{"Action":"start","Package":"m/tests/duckdb"}
{"Action":"run","Package":"m/tests/duckdb","Test":"TestQueries"}
{"Action":"output","Package":"m/tests/duckdb","Test":"TestQueries","Output":"=== RUN   TestQueries\n"}
{"Action":"output","Package":"m/tests/duckdb","Test":"TestQueries","Output":"    duckdb_test.go:51: DuckDB is not installed here (needs node and ` + "`npm ci`" + ` in tests/duckdb)\n"}
{"Action":"output","Package":"m/tests/duckdb","Test":"TestQueries","Output":"--- SKIP: TestQueries (0.00s)\n"}
{"Action":"skip","Package":"m/tests/duckdb","Test":"TestQueries"}
{"Action":"run","Package":"m/tests/duckdb","Test":"TestBare"}
{"Action":"skip","Package":"m/tests/duckdb","Test":"TestBare"}
{"Action":"run","Package":"m/tests/duckdb","Test":"TestOK"}
{"Action":"output","Package":"m/tests/duckdb","Test":"TestOK","Output":"quiet when it passes\n"}
{"Action":"pass","Package":"m/tests/duckdb","Test":"TestOK"}
{"Action":"run","Package":"m/tests/duckdb","Test":"TestBad"}
{"Action":"output","Package":"m/tests/duckdb","Test":"TestBad","Output":"    x_test.go:3: got 1, want 2\n"}
{"Action":"fail","Package":"m/tests/duckdb","Test":"TestBad"}
{"Action":"output","Package":"m/tests/duckdb","Output":"FAIL\tm/tests/duckdb\t0.1s\n"}
{"Action":"fail","Package":"m/tests/duckdb"}
`

func TestPass(t *testing.T) {
	var out bytes.Buffer
	skips, err := pass(strings.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "    x_test.go:3: got 1, want 2\nFAIL\tm/tests/duckdb\t0.1s\n"; got != want {
		t.Errorf("output = %q, want %q (a failing test's output and the package line only)", got, want)
	}
	if len(skips) != 2 || skips[0].Reason != "DuckDB is not installed here (needs node and `npm ci` in tests/duckdb)" || skips[1].Reason != "no reason given" {
		t.Fatalf("skips = %+v", skips)
	}
	line := summarize(skips)
	for _, want := range []string{"make test skipped 2 check(s)", "DuckDB is not installed here", "(duckdb.TestQueries)", "no reason given (duckdb.TestBare)"} {
		if !strings.Contains(line, want) {
			t.Errorf("summary %q, want it to contain %q", line, want)
		}
	}
	if got := summarize(nil); got != "make test: skipped nothing" {
		t.Errorf("summarize(nil) = %q", got)
	}
}

func TestSummaryBounded(t *testing.T) {
	var s []skip
	for _, n := range []string{"TestA", "TestB", "TestC", "TestD", "TestE"} {
		s = append(s, skip{Package: "m/p", Test: n, Reason: "no compiler"})
	}
	if got, want := summarize(s), "make test skipped 5 check(s): no compiler (p.TestA, p.TestB, p.TestC and 2 more)"; got != want {
		t.Errorf("summarize = %q, want %q", got, want)
	}
}
