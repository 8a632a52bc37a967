package decode

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode/internal/benchgen"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/golden"
)

// A slot's window holds at most the slot's records: a capture of many
// cores with a few records each must not cost a full window per core.
func TestMergeWindowsFitTheirSlots(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	for _, ct := range abi.CoreTypes() {
		for id := range b.Layout.SlotCount(ct) {
			b.Enter(ct, id, 100).Span(ct, id, 200, 300, abi.RuntimeStageTriggerEvent, id)
		}
	}
	d, err := mustDecode("many.bin", b.Bytes(), capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.newMerge()
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	held := 0
	for _, h := range m.heap {
		s := h.s
		held += cap(s.recs)
	}
	if want := int(d.Summary.Records); held > want {
		t.Errorf("windows hold %d records for %d live records", held, want)
	}
}

// The out-of-order worst case, one slot of random start cycles with ties,
// gives the same trace bytes whether the slot is sorted in one run in
// memory or in many runs spilled to TempDir, and the merge holds one run
// of records at most, never the slot.
func TestSpilledRunsSameTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse.bin")
	const records = 20_000
	flags, err := benchgen.WriteSparse(path, records, 7)
	if err != nil {
		t.Fatal(err)
	}
	var aiv uint32
	if _, err := fmt.Sscanf(flags, "--cube-slots 24 --aic-capacity 0 --aiv-capacity %d", &aiv); err != nil {
		t.Fatalf("flags %q: %v", flags, err)
	}
	var want []byte
	for _, run := range []int{records, 1000, 999, 1} {
		c, err := capture.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		d, err := Decode(c, capture.Request{Capacities: &abi.Capacities{AIC: 0, AIV: aiv}})
		if err != nil {
			t.Fatal(err)
		}
		d.runRecords, d.TempDir = run, t.TempDir()
		m, err := d.newMerge()
		if err != nil {
			t.Fatal(err)
		}
		held := 0
		for _, h := range m.heap {
			s := h.s
			held = max(held, cap(s.recs))
		}
		m.close()
		if held > run {
			t.Errorf("run %d: a source holds %d records", run, held)
		}
		got, err := traceOf(Input{d, defaultConfig()})
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
			continue
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("runs of %d: trace differs from one run: %s", run, golden.FirstDiff(got, want))
		}
		if entries, _ := os.ReadDir(d.TempDir); len(entries) != 0 {
			t.Errorf("runs of %d: left in TempDir: %v", run, entries)
		}
	}
}

// Runs are runRecords long until there would be more than maxRuns of
// them; then they grow, so their number (and the read windows) stays
// bounded.
func TestRunLength(t *testing.T) {
	for _, c := range []struct{ records, want int }{
		{1, runRecords},
		{runRecords * maxRuns, runRecords},
		{runRecords*maxRuns + 1, runRecords + 1},
		{int(abi.MaxRecordsPerCore) * 72, (int(abi.MaxRecordsPerCore)*72 + maxRuns - 1) / maxRuns},
	} {
		got := runLength(c.records)
		if got != c.want {
			t.Errorf("runLength(%d) = %d, want %d", c.records, got, c.want)
		}
		if runs := (c.records + got - 1) / got; runs > maxRuns {
			t.Errorf("runLength(%d) = %d: %d runs", c.records, got, runs)
		}
	}
}
