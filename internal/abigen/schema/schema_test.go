package schema

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/internal/testkit/yamltest"
	"github.com/megakernel/cycleabi/internal/yamlpos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const realSchema = "../../../abi/schema.yaml"

func load(t *testing.T) *Schema {
	t.Helper()
	s, err := LoadFile(realSchema)
	require.NoError(t, err)
	return s
}

// TestSchema checks the model's own rules on the real schema, the way
// Go's tracer checks its spec tables.
func TestSchema(t *testing.T) {
	s := load(t)

	t.Run("top-level names are unique", func(t *testing.T) {
		seen := map[string]bool{}
		for _, n := range topNames(s) {
			assert.Falsef(t, seen[n], "duplicate %s: seen[n] = true, want false", n)
			seen[n] = true
		}
	})
	t.Run("fields and padding cover every struct byte exactly once", func(t *testing.T) {
		for _, st := range s.Structs {
			next := 0
			for _, f := range st.Fields {
				assert.Equal(t, next, f.Offset, "%s.%s: f.Offset", st.Name, f.Name)
				if w := f.Type.Width(); w > 0 {
					assert.Zero(t, f.Offset%w, "%s.%s is not naturally aligned: f.Offset%%w", st.Name, f.Name)
					assert.Equal(t, w, f.Size, "f.Size")
				}
				next = f.End()
			}
			assert.Equal(t, st.Size, next, "%s: the end of its last field", st.Name)
		}
	})
	t.Run("enum values are unique", func(t *testing.T) {
		for _, e := range s.Enums {
			names, values := map[string]bool{}, map[uint32]bool{}
			for _, v := range e.Values {
				assert.False(t, names[v.Name], "%s.%s: a name seen before", e.Name, v.Name)
				assert.False(t, values[v.Value], "%s.%s: a value seen before", e.Name, v.Name)
				names[v.Name], values[v.Value] = true, true
			}
		}
	})
	t.Run("descriptor namespaces are disjoint and their names inside them", func(t *testing.T) {
		ns := s.Descriptors.Namespaces
		for i, a := range ns {
			for _, b := range ns[i+1:] {
				assert.True(t, a.End() <= uint64(b.Base) || b.End() <= uint64(a.Base), "%s overlaps %s", a.Name, b.Name)
			}
			for _, d := range a.Names {
				assert.Less(t, d.Index, a.Count, "%s.%s: d.Index", a.Name, d.Name)
			}
		}
	})
	t.Run("the wire is what gen/doc/ABI.md says", func(t *testing.T) {
		assert.Equal(t, 64, s.Struct("CoreHeader").Size, "s.Struct(\"CoreHeader\").Size")
		assert.Equal(t, 32, s.Struct("ProfileRecord").Size, "s.Struct(\"ProfileRecord\").Size")
		assert.Equal(t, uint64(134_217_712), s.Constant("MaxRecordsPerCore").Value, "s.Constant(\"MaxRecordsPerCore\").Value")
		assert.Equal(t, uint64(16), s.Constant("RecordCapacityAlignment").Value, "s.Constant(\"RecordCapacityAlignment\").Value")
		assert.Equal(t, uint64(24), s.Constant("MinCubeSlots").Value, "s.Constant(\"MinCubeSlots\").Value")
		assert.Equal(t, uint64(0xFFFFFFFF), s.Constant("InvalidOwnerID").Value, "s.Constant(\"InvalidOwnerID\").Value")
		lay := s.Layout
		require.Len(t, lay.Regions, 2, "len(lay.Regions)")
		assert.Equal(t, "AIC", lay.Regions[0].CoreType.Name, "lay.Regions[0].CoreType.Name")
		assert.Equal(t, 1, lay.Regions[0].SlotsPerCubeSlot, "lay.Regions[0].SlotsPerCubeSlot")
		assert.Equal(t, "AIV", lay.Regions[1].CoreType.Name, "lay.Regions[1].CoreType.Name")
		assert.Equal(t, 2, lay.Regions[1].SlotsPerCubeSlot, "lay.Regions[1].SlotsPerCubeSlot")
		// The largest slot's stride fits in a u32; one more aligned step does not.
		stride := func(records uint64) uint64 { return uint64(lay.Header.Size) + records*uint64(lay.Record.Size) }
		maxRecords := s.Constant("MaxRecordsPerCore").Value
		assert.LessOrEqual(t, stride(maxRecords), uint64(0xFFFFFFFF), "stride(maxRecords)")
		assert.Greater(t, stride(maxRecords+16), uint64(0xFFFFFFFF), "stride(maxRecords+16)")
	})
	t.Run("every docstring is present", func(t *testing.T) {
		for _, st := range s.Structs {
			assert.NotEmpty(t, st.Doc, "%s: st.Doc", st.Name)
			for _, f := range st.Fields {
				assert.NotEmpty(t, f.Doc, "%s.%s: f.Doc", st.Name, f.Name)
			}
		}
		for _, e := range s.Enums {
			for _, v := range e.Values {
				assert.NotEmpty(t, v.Doc, "%s.%s: v.Doc", e.Name, v.Name)
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
	require.NoError(t, err)
	text := string(data)

	t.Run("docs do not change it", func(t *testing.T) {
		changed := strings.Replace(text, "doc: Must be 0.", "doc: Must be zero on every core.", 1)
		require.NotEqual(t, text, changed, "the edit left the schema unchanged")
		s2, err := Load("x.yaml", []byte(changed))
		require.NoError(t, err)
		assert.Equal(t, s.Fingerprint, s2.Fingerprint, "s2.Fingerprint")
	})
	t.Run("an offset changes it", func(t *testing.T) {
		// Swap two u32 fields of ProfileRecord: same size, different meaning of bytes.
		changed := strings.Replace(text, "      - name: task_id\n        type: u32\n        offset: 20", "      - name: task_id\n        type: u32\n        offset: 24", 1)
		changed = strings.Replace(changed, "      - name: stage_task_index\n        type: u32\n        offset: 24", "      - name: stage_task_index\n        type: u32\n        offset: 20", 1)
		require.NotEqual(t, text, changed, "the edit left the schema unchanged")
		_, err := Load("x.yaml", []byte(changed))
		require.Error(t, err, "fields must be listed in offset order: got no error, want one")
	})
	same := func(t *testing.T, from, to string) bool {
		t.Helper()
		require.Contains(t, text, from, "the schema does not contain")
		s2, err := Load("x.yaml", []byte(strings.Replace(text, from, to, 1)))
		require.NoError(t, err)
		return s.Fingerprint == s2.Fingerprint
	}
	t.Run("a wire enum value changes it", func(t *testing.T) {
		// A value no core type has, whatever the schema adds.
		assert.False(t, same(t, "{name: AIV, value: 2,", "{name: AIV, value: 200,"), "the fingerprint is unchanged, want a new one")
	})
	t.Run("a layout constant changes it", func(t *testing.T) {
		assert.False(t, same(t, "value: 16\n    doc: Every per-core", "value: 32\n    doc: Every per-core"), "the fingerprint is unchanged, want a new one")
		assert.False(t, same(t, "value: 24\n    doc: >-\n      The smallest", "value: 32\n    doc: >-\n      The smallest"), "the fingerprint is unchanged, want a new one")
	})
	t.Run("region order changes it", func(t *testing.T) {
		assert.False(t, same(t, "core_type: AIC, slots_per_cube_slot: 1", "core_type: AIC, slots_per_cube_slot: 2"), "the fingerprint is unchanged, want a new one")
	})
	// What abigen diff calls compatible leaves it alone.
	t.Run("a new task type does not change it", func(t *testing.T) {
		assert.True(t, same(t, "      - {name: ShmemGetMem, value: 141, doc: Remote get.}",
			"      - {name: ShmemGetMem, value: 141, doc: Remote get.}\n      - {name: Softmax, value: 142, doc: New.}"), "the fingerprint changed, want it unchanged")
	})
	t.Run("a new SoC or namespace name does not change it", func(t *testing.T) {
		assert.True(t, same(t, "socs:\n", "socs:\n  - {prefix: ascend960, mhz: 1000, doc: Next.}\n"), "the fingerprint changed, want it unchanged")
		assert.True(t, same(t, "display: '{name}'\n      fallback: GraphStage_{index}", "display: 'Stage_{name}'\n      fallback: GraphStage_{index}"), "the fingerprint changed, want it unchanged")
	})
	t.Run("reordering constants does not change it", func(t *testing.T) {
		block := "  - name: InvalidOwnerID\n    value: 0xFFFFFFFF\n    doc: ProfileRecord.owner_id value meaning the record has no owner.\n"
		require.Contains(t, text, block, "text")
		moved := strings.Replace(text, block, "", 1)
		moved = strings.Replace(moved, "constants:\n", "constants:\n"+block, 1)
		s2, err := Load("x.yaml", []byte(moved))
		require.NoError(t, err)
		assert.Equal(t, s.Fingerprint, s2.Fingerprint, "s2.Fingerprint")
	})
	assert.Equal(t, 16, len(s.FingerprintHex()), "len(s.FingerprintHex())")
}

// TestInvalidSchemas loads each testdata/invalid/*.yaml and compares the
// exact error text (every problem, with line:col and path) with its
// .golden file. Refresh with -update, then review the diff.
func TestInvalidSchemas(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files, "files is empty, want something")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			_, err := LoadFile(file)
			require.Error(t, err, "got no error, want one")
			got := err.Error() + "\n"
			golden.Check(t, strings.TrimSuffix(file, ".yaml")+".golden", []byte(got))
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				// The notes after the errors (the known names, said once)
				// name no place.
				if strings.HasPrefix(line, "known ") {
					continue
				}
				assert.Regexpf(t, regexp.MustCompile(`^testdata/invalid/[a-z_]+\.yaml:\d+:\d+: `), line, "every error names file:line:col: line, want a match for %s", `^testdata/invalid/[a-z_]+\.yaml:\d+:\d+: `)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := LoadFile("testdata/nope.yaml")
	require.EqualErrorf(t, err, "testdata/nope.yaml: schema file not found", "error %v, want %q", err, "testdata/nope.yaml: schema file not found")
}

// recordOfSize0 is the real schema with ProfileRecord declared 0 bytes: the
// size is an error, and deriving MaxRecordsPerCore must not divide by it.
func recordOfSize0(t *testing.T) string {
	data, err := os.ReadFile(realSchema)
	require.NoError(t, err)
	// The record's size line, whatever size the schema gives it.
	from := regexp.MustCompile(`(?m)^    size: [0-9]+\n    fields:\n      - name: start_cycle\n`)
	require.Regexp(t, from, string(data), "string(data)")
	return from.ReplaceAllLiteralString(string(data), "    size: 0\n    fields:\n      - name: start_cycle\n")
}

func TestLoadNeverPanics(t *testing.T) {
	for _, text := range []string{"", "~", "[]", "version: x", "structs: {a: 1}", "structs: [{fields: [{}]}]",
		"layout: {regions: [{}]}", "descriptors: {namespaces: [{names: [{}]}]}", "a: &x [*x]", "socs: [{mhz: -1}]",
		recordOfSize0(t)} {
		_, err := Load("x.yaml", []byte(text))
		assert.Errorf(t, err, "%s: got no error, want one", text)
	}
}

// TestLoadMutations loads every single-node mutant of the real schema
// (yamltest.Mutants: each entry and list item deleted, each node made
// null, [] or {}). Each must load to a schema or to problems that all
// carry a line, never panic. A fuzzer found a missing layout.regions key
// dereferencing a nil node; this walks every such hole deterministically.
func TestLoadMutations(t *testing.T) {
	data, err := os.ReadFile(realSchema)
	require.NoError(t, err)
	n := yamltest.Mutants(t, data, func(what string, mutant []byte) {
		var err error
		panicked := true
		func() {
			defer func() {
				if r := recover(); !assert.Nil(t, r, "%s: Load panicked", what) {
					t.Logf("%s", debug.Stack())
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
	assert.Greater(t, n, 1000, "n")
}

// The schema is read by the one YAML reader, under its cap.
func TestLoadYAMLCap(t *testing.T) {
	data, err := os.ReadFile("testdata/valid_minimal.yaml")
	require.NoError(t, err)
	t.Setenv(yamlpos.MaxYAMLBytesEnv, "64")
	_, err = Load("s.yaml", data)
	var le *yamlpos.LimitError
	require.ErrorAsf(t, err, &le, "error %v (%T), want one that is a %T", err, err, le)
	assert.Contains(t, err.Error(), "more than the cap of 64 bytes on text read as YAML; set CYCLEABI_MAX_YAML_BYTES to raise it", "err.Error()")
}

// TestBanner: every generated file opens with abigen's version, when it
// stamped one, and the schema it came from, then the licence.
func TestBanner(t *testing.T) {
	s := &Schema{File: "abi/schema.yaml"}
	assert.Equal(t, [2]string{"Code generated by abigen from abi/schema.yaml; DO NOT EDIT.", "SPDX-License-Identifier: Apache-2.0"}, s.Banner(), "Banner()")
	s.Release = "0.5.0"
	assert.Equal(t, "Code generated by abigen 0.5.0 from abi/schema.yaml; DO NOT EDIT.", s.Banner()[0], "Banner()[0]")
}
