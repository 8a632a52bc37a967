package clibase

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/decode"
)

// fakeExporter analyzes and writes nothing: what cycleabi-export says on
// stderr does not depend on the Parquet writer.
type fakeExporter struct{}

func (fakeExporter) Add(d *decode.Decoded, o analyze.Options) (*analyze.Rank, error) {
	return analyze.Analyze(d, o)
}
func (fakeExporter) Commit() error { return nil }
func (fakeExporter) Abort()        {}

// TestExportNamesItself: every note, warning and --strict line
// cycleabi-export writes begins with its own name, not cycleabi's: the
// kernel family's (package input's, through Options.Warn), the trace's
// (PrintWarnings) and --strict's (StrictWarned). They said "cycleabi:".
func TestExportNamesItself(t *testing.T) {
	dir := t.TempDir()
	// A trace of MegaMoe read under --kernel-name MegaMoeGrad (a note, and
	// a warning: its desc id is not that family's), whose metadata lists
	// a rank with no events (a trace warning).
	ev := `{"name":"Dispatch","cat":"MegaKernelInternal","ph":"X","pid":0,"tid":2000,"ts":0.0,"dur":10.0,"args":{"rank":0,"device_id":0,"core_type":"AIV","block_id":0,"task_id":0,"desc_id":65537,"stage_task_index":0,"task_number":1,"start_cycle":1000,"end_cycle":1500,"core_entry_cycle":1000}}`
	meta := `"megaKernelCycleTrace":{"ranks":[{"rank":0,"recordCount":1},{"rank":2,"recordCount":3}],"schemaVersion":1,"rank":0,"deviceId":0,"socName":"ascend910b","cycleFrequencyMHz":50.0,"anchorCycle":1000,"recordCapacityPerCore":{"AIC":16,"AIV":16},"recordCount":1,"droppedRecordCount":0,"detailedTaskNames":false,"kernelName":"MegaMoe","ownerLabel":"Expert"}`
	trace := filepath.Join(dir, "moe.json")
	if err := os.WriteFile(trace, []byte(`{"traceEvents":[`+ev+`],`+meta+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	newExporter := func(string) (Exporter, error) { return fakeExporter{}, nil }
	code := RunExport(t.Context(), []string{"--strict", trace, "--kernel-name", "MegaMoeGrad", "-o", filepath.Join(dir, "out")}, strings.NewReader(""), &stdout, &stderr, newExporter)
	if code != ExitInvalid {
		t.Fatalf("code %d, want %d (--strict):\n%s", code, ExitInvalid, stderr.String())
	}
	for _, want := range []string{
		"cycleabi-export: note: " + trace + `: --kernel-name "MegaMoeGrad" applied over the data's kernel name "MegaMoe"`,
		"cycleabi-export: warning: " + trace + ": kernel family MegaMoeGrad",
		"cycleabi-export: warning: " + trace + ": megaKernelCycleTrace.ranks[1] (rank 2) has no events",
		"cycleabi-export: --strict: the inputs drew the warnings above",
	} {
		if !strings.Contains(stderr.String(), "\n"+want) && !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("stderr lacks a line beginning %q:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "cycleabi:") {
		t.Errorf("stderr names cycleabi:\n%s", stderr.String())
	}
}

// TestStderrPrefixesLines: Stderr's writer puts the prefix before every
// line however the writes split them, and nowhere else.
func TestStderrPrefixesLines(t *testing.T) {
	var buf bytes.Buffer
	w := &prefixWriter{w: &buf, prefix: []byte("p: ")}
	for _, s := range []string{"a\nb", "c\n", "", "\n\nd\ne\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got, want := buf.String(), "p: a\np: bc\np: \np: \np: d\np: e\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
