package schema

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/internal/testkit/yamltest"
	"github.com/megakernel/cycleabi/internal/yamlpos"
)

const realSchema = "../../../abi/schema.yaml"

func load(t *testing.T) *Schema {
	t.Helper()
	s, err := LoadFile(realSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchema checks the model's own rules on the real schema, the way
// Go's tracer checks its spec tables.
func TestSchema(t *testing.T) {
	s := load(t)

	t.Run("top-level names are unique", func(t *testing.T) {
		seen := map[string]bool{}
		for _, n := range topNames(s) {
			if seen[n] {
				t.Errorf("duplicate %s: seen[n] = true, want false", n)
			}
			seen[n] = true
		}
	})
	t.Run("fields and padding cover every struct byte exactly once", func(t *testing.T) {
		for _, st := range s.Structs {
			next := 0
			for _, f := range st.Fields {
				if f.Offset != next {
					t.Errorf("%s.%s: f.Offset = %v, want %v", st.Name, f.Name, f.Offset, next)
				}
				if w := f.Type.Width(); w > 0 {
					if f.Offset%w != 0 {
						t.Errorf("%s.%s is not naturally aligned: f.Offset%%w = %v, want 0", st.Name, f.Name, f.Offset%w)
					}
					if f.Size != w {
						t.Errorf("f.Size = %v, want %v", f.Size, w)
					}
				}
				next = f.End()
			}
			if next != st.Size {
				t.Errorf("%s: next = %v, want %v", st.Name, next, st.Size)
			}
		}
	})
	t.Run("enum values are unique", func(t *testing.T) {
		for _, e := range s.Enums {
			names, values := map[string]bool{}, map[uint32]bool{}
			for _, v := range e.Values {
				if names[v.Name] || values[v.Value] {
					t.Errorf("%s.%s: names[v.Name] || values[v.Value] = true, want false", e.Name, v.Name)
				}
				names[v.Name], values[v.Value] = true, true
			}
		}
	})
	t.Run("descriptor namespaces are disjoint and their names inside them", func(t *testing.T) {
		ns := s.Descriptors.Namespaces
		for i, a := range ns {
			for _, b := range ns[i+1:] {
				if !(a.End() <= uint64(b.Base) || b.End() <= uint64(a.Base)) {
					t.Errorf("%s overlaps %s: a.End() <= uint64(b.Base) || b.End() <= uint64(a.Base) = false, want true", a.Name, b.Name)
				}
			}
			for _, d := range a.Names {
				if d.Index >= a.Count {
					t.Errorf("%s.%s: d.Index = %v, want < %v", a.Name, d.Name, d.Index, a.Count)
				}
			}
		}
	})
	t.Run("the wire is what gen/doc/ABI.md says", func(t *testing.T) {
		if got := s.Struct("CoreHeader").Size; got != 64 {
			t.Errorf("s.Struct(\"CoreHeader\").Size = %v, want 64", got)
		}
		if got := s.Struct("ProfileRecord").Size; got != 32 {
			t.Errorf("s.Struct(\"ProfileRecord\").Size = %v, want 32", got)
		}
		if got := s.Constant("MaxRecordsPerCore").Value; got != 134_217_712 {
			t.Errorf("s.Constant(\"MaxRecordsPerCore\").Value = %v, want 134_217_712", got)
		}
		if got := s.Constant("RecordCapacityAlignment").Value; got != 16 {
			t.Errorf("s.Constant(\"RecordCapacityAlignment\").Value = %v, want 16", got)
		}
		if got := s.Constant("MinCubeSlots").Value; got != 24 {
			t.Errorf("s.Constant(\"MinCubeSlots\").Value = %v, want 24", got)
		}
		if got := s.Constant("InvalidOwnerID").Value; got != 0xFFFFFFFF {
			t.Errorf("s.Constant(\"InvalidOwnerID\").Value = %v, want 0xFFFFFFFF", got)
		}
		lay := s.Layout
		if len(lay.Regions) != 2 {
			t.Fatalf("len(lay.Regions) = %d, want 2: %v", len(lay.Regions), lay.Regions)
		}
		if lay.Regions[0].CoreType.Name != "AIC" {
			t.Errorf("lay.Regions[0].CoreType.Name = %q, want %q", lay.Regions[0].CoreType.Name, "AIC")
		}
		if lay.Regions[0].SlotsPerCubeSlot != 1 {
			t.Errorf("lay.Regions[0].SlotsPerCubeSlot = %v, want 1", lay.Regions[0].SlotsPerCubeSlot)
		}
		if lay.Regions[1].CoreType.Name != "AIV" {
			t.Errorf("lay.Regions[1].CoreType.Name = %q, want %q", lay.Regions[1].CoreType.Name, "AIV")
		}
		if lay.Regions[1].SlotsPerCubeSlot != 2 {
			t.Errorf("lay.Regions[1].SlotsPerCubeSlot = %v, want 2", lay.Regions[1].SlotsPerCubeSlot)
		}
		// The largest slot's stride fits in a u32; one more aligned step does not.
		stride := func(records uint64) uint64 { return uint64(lay.Header.Size) + records*uint64(lay.Record.Size) }
		maxRecords := s.Constant("MaxRecordsPerCore").Value
		if got := stride(maxRecords); got > uint64(0xFFFFFFFF) {
			t.Errorf("stride(maxRecords) = %v, want <= %v", got, uint64(0xFFFFFFFF))
		}
		if got := stride(maxRecords + 16); got <= uint64(0xFFFFFFFF) {
			t.Errorf("stride(maxRecords+16) = %v, want > %v", got, uint64(0xFFFFFFFF))
		}
	})
	t.Run("every docstring is present", func(t *testing.T) {
		for _, st := range s.Structs {
			if st.Doc == "" {
				t.Errorf("%s: st.Doc is empty, want something", st.Name)
			}
			for _, f := range st.Fields {
				if f.Doc == "" {
					t.Errorf("%s.%s: f.Doc is empty, want something", st.Name, f.Name)
				}
			}
		}
		for _, e := range s.Enums {
			for _, v := range e.Values {
				if v.Doc == "" {
					t.Errorf("%s.%s: v.Doc is empty, want something", e.Name, v.Name)
				}
			}
		}
	})
}

func topNames(s *Schema) []string {
	var names []string
	for _, c := range s.Constants {
		names = append(names, c.Name)
	}
	for _, e := range s.Enums {
		names = append(names, e.Name)
	}
	for _, st := range s.Structs {
		names = append(names, st.Name)
	}
	return names
}

func TestFingerprint(t *testing.T) {
	s := load(t)
	data, err := os.ReadFile(realSchema)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)

	t.Run("docs do not change it", func(t *testing.T) {
		changed := strings.Replace(text, "doc: Must be 0.", "doc: Must be zero on every core.", 1)
		if changed == text {
			t.Fatalf("the edit left the schema unchanged")
		}
		s2, err := Load("x.yaml", []byte(changed))
		if err != nil {
			t.Fatal(err)
		}
		if s2.Fingerprint != s.Fingerprint {
			t.Errorf("s2.Fingerprint = %v, want %v", s2.Fingerprint, s.Fingerprint)
		}
	})
	t.Run("an offset changes it", func(t *testing.T) {
		// Swap two u32 fields of ProfileRecord: same size, different meaning of bytes.
		changed := strings.Replace(text, "      - name: task_id\n        type: u32\n        offset: 20", "      - name: task_id\n        type: u32\n        offset: 24", 1)
		changed = strings.Replace(changed, "      - name: stage_task_index\n        type: u32\n        offset: 24", "      - name: stage_task_index\n        type: u32\n        offset: 20", 1)
		if changed == text {
			t.Fatalf("the edit left the schema unchanged")
		}
		_, err := Load("x.yaml", []byte(changed))
		if err == nil {
			t.Fatalf("fields must be listed in offset order: got no error, want one")
		}
	})
	same := func(t *testing.T, from, to string) bool {
		t.Helper()
		if !strings.Contains(text, from) {
			t.Fatalf("the schema does not contain %q", from)
		}
		s2, err := Load("x.yaml", []byte(strings.Replace(text, from, to, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return s.Fingerprint == s2.Fingerprint
	}
	t.Run("a wire enum value changes it", func(t *testing.T) {
		// A value no core type has, whatever the schema adds.
		if same(t, "{name: AIV, value: 2,", "{name: AIV, value: 200,") {
			t.Errorf("the fingerprint is unchanged, want a new one")
		}
	})
	t.Run("a layout constant changes it", func(t *testing.T) {
		if same(t, "value: 16\n    doc: Every per-core", "value: 32\n    doc: Every per-core") {
			t.Errorf("the fingerprint is unchanged, want a new one")
		}
		if same(t, "value: 24\n    doc: >-\n      The smallest", "value: 32\n    doc: >-\n      The smallest") {
			t.Errorf("the fingerprint is unchanged, want a new one")
		}
	})
	t.Run("region order changes it", func(t *testing.T) {
		if same(t, "core_type: AIC, slots_per_cube_slot: 1", "core_type: AIC, slots_per_cube_slot: 2") {
			t.Errorf("the fingerprint is unchanged, want a new one")
		}
	})
	// What abigen diff calls compatible leaves it alone.
	t.Run("a new task type does not change it", func(t *testing.T) {
		if !same(t, "      - {name: ShmemGetMem, value: 141, doc: Remote get.}",
			"      - {name: ShmemGetMem, value: 141, doc: Remote get.}\n      - {name: Softmax, value: 142, doc: New.}") {
			t.Errorf("the fingerprint changed, want it unchanged")
		}
	})
	t.Run("a new SoC or namespace name does not change it", func(t *testing.T) {
		if !same(t, "socs:\n", "socs:\n  - {prefix: ascend960, mhz: 1000, doc: Next.}\n") {
			t.Errorf("the fingerprint changed, want it unchanged")
		}
		if !same(t, "display: '{name}'\n      fallback: GraphStage_{index}", "display: 'Stage_{name}'\n      fallback: GraphStage_{index}") {
			t.Errorf("the fingerprint changed, want it unchanged")
		}
	})
	t.Run("reordering constants does not change it", func(t *testing.T) {
		block := "  - name: InvalidOwnerID\n    value: 0xFFFFFFFF\n    doc: ProfileRecord.owner_id value meaning the record has no owner.\n"
		if !strings.Contains(text, block) {
			t.Fatalf("text = %q, want it to contain %q", text, block)
		}
		moved := strings.Replace(text, block, "", 1)
		moved = strings.Replace(moved, "constants:\n", "constants:\n"+block, 1)
		s2, err := Load("x.yaml", []byte(moved))
		if err != nil {
			t.Fatal(err)
		}
		if s2.Fingerprint != s.Fingerprint {
			t.Errorf("s2.Fingerprint = %v, want %v", s2.Fingerprint, s.Fingerprint)
		}
	})
	if got := len(s.FingerprintHex()); got != 16 {
		t.Errorf("len(s.FingerprintHex()) = %d, want 16", got)
	}
}

// TestInvalidSchemas loads each testdata/invalid/*.yaml and compares the
// exact error text (every problem, with line:col and path) with its
// .golden file. Refresh with -update, then review the diff.
func TestInvalidSchemas(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("files is empty, want something")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			_, err := LoadFile(file)
			if err == nil {
				t.Fatalf("got no error, want one")
			}
			got := err.Error() + "\n"
			golden.Check(t, strings.TrimSuffix(file, ".yaml")+".golden", []byte(got))
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				// The notes after the errors (the known names, said once)
				// name no place.
				if strings.HasPrefix(line, "known ") {
					continue
				}
				if !regexp.MustCompile(`^testdata/invalid/[a-z_]+\.yaml:\d+:\d+: `).MatchString(line) {
					t.Errorf("every error names file:line:col: line = %q, want a match for %s", line, `^testdata/invalid/[a-z_]+\.yaml:\d+:\d+: `)
				}
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := LoadFile("testdata/nope.yaml")
	if err == nil || err.Error() != "testdata/nope.yaml: schema file not found" {
		t.Fatalf("error %v, want %q", err, "testdata/nope.yaml: schema file not found")
	}
}

// recordOfSize0 is the real schema with ProfileRecord declared 0 bytes: the
// size is an error, and deriving MaxRecordsPerCore must not divide by it.
func recordOfSize0(t *testing.T) string {
	data, err := os.ReadFile(realSchema)
	if err != nil {
		t.Fatal(err)
	}
	// The record's size line, whatever size the schema gives it.
	from := regexp.MustCompile(`(?m)^    size: [0-9]+\n    fields:\n      - name: start_cycle\n`)
	if !from.MatchString(string(data)) {
		t.Fatalf("string(data) = %q, want a match for %s", string(data), from)
	}
	return from.ReplaceAllLiteralString(string(data), "    size: 0\n    fields:\n      - name: start_cycle\n")
}

func TestLoadNeverPanics(t *testing.T) {
	for _, text := range []string{"", "~", "[]", "version: x", "structs: {a: 1}", "structs: [{fields: [{}]}]",
		"layout: {regions: [{}]}", "descriptors: {namespaces: [{names: [{}]}]}", "a: &x [*x]", "socs: [{mhz: -1}]",
		recordOfSize0(t)} {
		_, err := Load("x.yaml", []byte(text))
		if err == nil {
			t.Errorf("%s: got no error, want one", text)
		}
	}
}

// TestLoadMutations loads every single-node mutant of the real schema
// (yamltest.Mutants: each entry and list item deleted, each node made
// null, [] or {}). Each must load to a schema or to problems that all
// carry a line, never panic. A fuzzer found a missing layout.regions key
// dereferencing a nil node; this walks every such hole deterministically.
func TestLoadMutations(t *testing.T) {
	data, err := os.ReadFile(realSchema)
	if err != nil {
		t.Fatal(err)
	}
	n := yamltest.Mutants(t, data, func(what string, mutant []byte) {
		var err error
		panicked := true
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: Load panicked: %v\n%s", what, r, debug.Stack())
				}
			}()
			_, err = Load("mutant.yaml", mutant)
			panicked = false
		}()
		if panicked {
			return
		}
		yamltest.Positioned(t, what, "mutant.yaml", err)
	})
	if n <= 1000 {
		t.Errorf("n = %v, want > %v", n, 1000)
	}
}

// The schema is read by the one YAML reader, under its cap.
func TestLoadYAMLCap(t *testing.T) {
	data, err := os.ReadFile("testdata/valid_minimal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(yamlpos.MaxYAMLBytesEnv, "64")
	_, err = Load("s.yaml", data)
	var le *yamlpos.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T), want one that is a %T", err, err, le)
	}
	if got := err.Error(); !strings.Contains(got, "more than the cap of 64 bytes on text read as YAML; set CYCLEABI_MAX_YAML_BYTES to raise it") {
		t.Errorf("err.Error() = %q, want it to contain %q", got, "more than the cap of 64 bytes on text read as YAML; set CYCLEABI_MAX_YAML_BYTES to raise it")
	}
}

// TestBanner: every generated file opens with abigen's version, when it
// stamped one, and the schema it came from, then the licence.
func TestBanner(t *testing.T) {
	s := &Schema{File: "abi/schema.yaml"}
	if got, want := s.Banner(), [2]string{"Code generated by abigen from abi/schema.yaml; DO NOT EDIT.", "SPDX-License-Identifier: Apache-2.0"}; got != want {
		t.Errorf("Banner() = %q, want %q", got, want)
	}
	s.Release = "0.5.0"
	if got, want := s.Banner()[0], "Code generated by abigen 0.5.0 from abi/schema.yaml; DO NOT EDIT."; got != want {
		t.Errorf("Banner()[0] = %q, want %q", got, want)
	}
}
