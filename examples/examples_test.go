package examples_test

import (
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
)

// The capture `make demo` makes: cycleabi synth moe_layer.yaml
// --capacity-scale 0.8 --seed 1 -o moe_layer.bin.
var demoOptions = synth.Options{Seed: 1, CapacityScale: 0.8}

func TestMoELayerFiles(t *testing.T) {
	schedule, names := moeLayer.render()
	golden.Check(t, "moe_layer.yaml", []byte(schedule))
	golden.Check(t, "moe_layer.names.yaml", []byte(names))
}

// TestMoELayerCapture: the committed capture is exactly what synth makes
// of the schedule with the demo's flags, and it is what the demo promises:
// a few thousand records, a few of them dropped by the busiest cores.
func TestMoELayerCapture(t *testing.T) {
	s, err := plan.ParseFile("moe_layer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := synth.Run(s, demoOptions)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "moe_layer.bin", c.Buffer)
	if n := c.Records(); n < 2000 || n > 5000 {
		t.Errorf("%d records, want a few thousand", n)
	}
	if d := c.Dropped(); d == 0 || d > 20 {
		t.Errorf("%d records dropped, want a few", d)
	}
	if len(c.Buffer) >= 1<<20 {
		t.Errorf("capture is %d bytes; keep committed binaries under 1 MiB", len(c.Buffer))
	}
}

// TestExamples: every shipped schedule plans, and simulating it with the
// planned capacities writes every record.
func TestExamples(t *testing.T) {
	files, _ := filepath.Glob("*.yaml")
	n := 0
	for _, file := range files {
		if filepath.Ext(file[:len(file)-len(".yaml")]) == ".names" {
			continue
		}
		n++
		s, err := plan.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		c, err := synth.Run(s, synth.Options{Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if c.Dropped() != 0 || c.Records() == 0 {
			t.Errorf("%s: %d records written, %d dropped", file, c.Records(), c.Dropped())
		}
	}
	if n < 2 {
		t.Errorf("only %d schedules in examples/", n)
	}
}
