package abidiff

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/stretchr/testify/require"
)

// The properties run on copies of the real abi/schema.yaml, mutated through
// its YAML tree and kept loadable.
const realSchema = "../../../abi/schema.yaml"

// real is abi/schema.yaml and its model, read once: every property
// iteration mutates a fresh parse of the bytes and compares with the model.
var real = sync.OnceValues(func() ([]byte, error) { return os.ReadFile(realSchema) })

var realModel = sync.OnceValues(func() (*schema.Schema, error) {
	data, err := real()
	if err != nil {
		return nil, err
	}
	return schema.Load("old.yaml", data)
})

func readReal(t tb) ([]byte, *schema.Schema) {
	t.Helper()
	data, err := real()
	require.NoError(t, err)
	old, err := realModel()
	require.NoError(t, err)
	return data, old
}

func TestSelfDiffIsEmpty(t *testing.T) {
	data, _ := readReal(t)
	a, err := schema.Load("a.yaml", data)
	require.NoError(t, err)
	b, err := schema.Load("b.yaml", data)
	require.NoError(t, err)
	require.Empty(t, Compare(a, b), "a schema compared with a fresh load of itself")
}

// wireRules are the rules that say which bytes moved.
var wireRules = []Rule{StructSize, FieldOffset, FieldType, FieldWidth, FieldRemoved, FieldAdded, PaddingReused}

// propWireMutation: any single mutation of a field's offset or width
// (swapping two adjacent same-width fields, resizing a pad field and
// shifting what follows, inserting padding) is breaking-wire, names the
// moved bytes, and changes the fingerprint; and each side compared with
// itself is empty.
func propWireMutation(t *rapid.T) {
	data, old := readReal(t)
	doc := parseTree(t, data)
	what := rapid.SampledFrom([]string{"swap", "resize-pad", "insert-pad"}).Draw(t, "mutation")
	structs := structNodes(doc)
	st := structs[rapid.IntRange(0, len(structs)-1).Draw(t, "struct")]
	fields := get(st, "fields").Content
	switch what {
	case "swap":
		var pairs []int
		for i := 0; i+1 < len(fields); i++ {
			a, b := get(fields[i], "type").Value, get(fields[i+1], "type").Value
			if a == b && a != "pad" {
				pairs = append(pairs, i)
			}
		}
		if len(pairs) == 0 {
			t.Skip("no adjacent same-width fields")
		}
		i := rapid.SampledFrom(pairs).Draw(t, "field")
		a, b := fields[i], fields[i+1]
		offA, offB := get(a, "offset").Value, get(b, "offset").Value
		get(a, "offset").Value, get(b, "offset").Value = offB, offA
		fields[i], fields[i+1] = b, a
	case "resize-pad":
		var pads []int
		for i, f := range fields {
			if get(f, "type").Value == "pad" {
				pads = append(pads, i)
			}
		}
		if len(pads) == 0 {
			t.Skip("no pad field")
		}
		i := rapid.SampledFrom(pads).Draw(t, "field")
		size := intOf(t, get(fields[i], "size"))
		// Multiples of 8 keep every later field aligned.
		delta := 8 * rapid.IntRange(-(size-1)/8, 4).Filter(func(k int) bool { return k != 0 }).Draw(t, "delta/8")
		setInt(get(fields[i], "size"), size+delta)
		shift(t, st, fields[i+1:], delta)
	case "insert-pad":
		i := rapid.IntRange(0, len(fields)).Draw(t, "before")
		size := 8 * rapid.IntRange(1, 4).Draw(t, "size/8")
		off := intOf(t, get(st, "size"))
		if i < len(fields) {
			off = intOf(t, get(fields[i], "offset"))
		}
		pad := mapping("name", "mutation_pad", "type", "pad", "offset", strconv.Itoa(off), "size", strconv.Itoa(size), "doc", "Inserted by the property test.")
		fields = slices.Insert(fields, i, pad)
		get(st, "fields").Content = fields
		shift(t, st, fields[i+1:], size)
	}
	text := render(t, doc)
	new := mustLoad(t, "new.yaml", text)

	changes := Compare(old, new)
	require.Truef(t, slices.ContainsFunc(changes, func(c Change) bool { return slices.Contains(wireRules, c.Rule) }), "%s: no change names the moved bytes:\n%v", what, changes)
	require.NotEqualf(t, new.Fingerprint, old.Fingerprint, "%s: the fingerprint did not change", what)
	checkInvariants(t, old, new)
	checkInvariants(t, new, old)
	require.Empty(t, Compare(new, mustLoad(t, "again.yaml", text)), "the mutated schema compared with itself")
}

func TestWireMutation(t *testing.T) { rapid.Check(t, propWireMutation) }

func FuzzWireMutation(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propWireMutation)) }

// propAnyMutation: for changes anywhere in the schema (wire, display or
// documentation), the fingerprint changed exactly when fingerprint-changed
// is reported, a changed fingerprint is always breaking-wire and never the
// only change, and documentation alone is never breaking.
func propAnyMutation(t *rapid.T) {
	data, old := readReal(t)
	doc := parseTree(t, data)
	root := doc.Content[0]
	taskTypes := get(findByName(t, get(root, "enums"), "TaskType"), "values")
	socs := get(root, "socs")
	namespaces := get(get(root, "descriptors"), "namespaces")
	what := rapid.SampledFrom([]string{
		"rename-task-type", "add-task-type", "renumber-task-type", "doc", "add-soc", "soc-mhz",
		"rename-stage", "move-namespace", "constant", "version",
		"rename-family-stage", "reclassify-family-stage", "add-family-task-type", "drop-family-kernel",
	}).Draw(t, "mutation")
	var familyStages []*yaml.Node
	for _, f := range get(root, "families").Content {
		if st := get(f, "stages"); st != nil {
			familyStages = append(familyStages, st.Content...)
		}
	}
	docOnly := false
	switch what {
	case "rename-task-type":
		v := rapid.SampledFrom(taskTypes.Content).Draw(t, "value")
		get(v, "name").Value = "Renamed" + get(v, "name").Value
	case "add-task-type":
		taskTypes.Content = append(taskTypes.Content, mapping("name", "AddedType", "value", strconv.Itoa(rapid.IntRange(200, 0xFFFF).Draw(t, "number")), "doc", "Added."))
	case "renumber-task-type":
		v := rapid.SampledFrom(taskTypes.Content).Draw(t, "value")
		get(v, "value").Value = strconv.Itoa(rapid.IntRange(200, 0xFFFF).Draw(t, "number"))
	case "doc":
		var docs []*yaml.Node
		walk(root, func(m *yaml.Node) {
			if d := get(m, "doc"); d != nil {
				docs = append(docs, d)
			}
		})
		d := rapid.SampledFrom(docs).Draw(t, "doc")
		d.Value += " (edited)"
		docOnly = true
	case "add-soc":
		socs.Content = append(socs.Content, mapping("prefix", "ascendz"+strconv.Itoa(rapid.IntRange(0, 99).Draw(t, "n")), "mhz", "25", "doc", "Added."))
	case "soc-mhz":
		s := rapid.SampledFrom(socs.Content).Draw(t, "soc")
		get(s, "mhz").Value = strconv.Itoa(rapid.IntRange(1, 5000).Filter(func(v int) bool { return strconv.Itoa(v) != get(s, "mhz").Value }).Draw(t, "mhz"))
	case "rename-stage":
		names := get(findByName(t, namespaces, "RuntimeStage"), "names")
		n := rapid.SampledFrom(names.Content).Draw(t, "stage")
		get(n, "name").Value += "Renamed"
	case "move-namespace":
		// The families' stage ids in it move with it, so that they stay in
		// a namespace.
		ns := findByName(t, namespaces, "GraphStage")
		oldBase := intOf(t, get(ns, "base"))
		newBase := rapid.IntRange(4, 0xFF).Draw(t, "base/0x10000") * 0x10000
		get(ns, "base").Value = fmt.Sprintf("0x%x", newBase)
		for _, st := range familyStages {
			if id := intOf(t, get(st, "desc_id")); id >= oldBase && id < oldBase+0x10000 {
				get(st, "desc_id").Value = fmt.Sprintf("0x%x", id-oldBase+newBase)
			}
		}
	case "rename-family-stage":
		st := rapid.SampledFrom(familyStages).Draw(t, "family stage")
		get(st, "name").Value += "Renamed"
	case "reclassify-family-stage":
		st := rapid.SampledFrom(familyStages).Draw(t, "family stage")
		c := get(st, "class")
		c.Value = rapid.SampledFrom([]string{"wait", "trigger"}).Draw(t, "class")
	case "add-family-task-type":
		f := rapid.SampledFrom(get(root, "families").Content).Draw(t, "family")
		tts := get(f, "task_types")
		tts.Content = append(tts.Content, mapping("value", strconv.Itoa(rapid.IntRange(200, 0xFFFF).Draw(t, "number")), "name", "AddedFamilyType"))
	case "drop-family-kernel":
		var withKernels []*yaml.Node
		for _, f := range get(root, "families").Content {
			if k := get(f, "kernel_names"); k != nil && len(k.Content) > 0 {
				withKernels = append(withKernels, k)
			}
		}
		k := rapid.SampledFrom(withKernels).Draw(t, "kernel names")
		k.Content = k.Content[1:]
	case "constant":
		c := findByName(t, get(root, "constants"), "InvalidOwnerID")
		get(c, "value").Value = strconv.Itoa(rapid.IntRange(0, 0xFFFFFFFE).Draw(t, "value"))
	case "version":
		// A raise from the schema's version, whatever it is.
		get(root, "version").Value = strconv.Itoa(int(old.Version) + rapid.IntRange(1, 99).Draw(t, "raise"))
	}
	new := mustLoad(t, "new.yaml", render(t, doc))
	changes := Compare(old, new)
	require.NotEmptyf(t, changes, "%s: no change reported", what)
	require.Falsef(t, docOnly && Breaking(changes), "a doc change is breaking: %v", changes)
	checkInvariants(t, old, new)
	checkInvariants(t, new, old)
}

func TestAnyMutation(t *testing.T) { rapid.Check(t, propAnyMutation) }

func FuzzAnyMutation(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propAnyMutation)) }

// shift moves fields by delta bytes and grows their struct by delta.
func shift(t *rapid.T, st *yaml.Node, fields []*yaml.Node, delta int) {
	for _, f := range fields {
		setInt(get(f, "offset"), intOf(t, get(f, "offset"))+delta)
	}
	setInt(get(st, "size"), intOf(t, get(st, "size"))+delta)
}

func parseTree(t tb, data []byte) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(data, &doc))
	return &doc
}

func render(t tb, doc *yaml.Node) []byte {
	t.Helper()
	out, err := yaml.Marshal(doc)
	require.NoError(t, err)
	return out
}

func mustLoad(t tb, file string, data []byte) *schema.Schema {
	t.Helper()
	s, err := schema.Load(file, data)
	require.NoError(t, err, "mutated schema does not load:\n%s", data)
	return s
}

func structNodes(doc *yaml.Node) []*yaml.Node { return get(doc.Content[0], "structs").Content }

// get returns the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func findByName(t tb, seq *yaml.Node, name string) *yaml.Node {
	t.Helper()
	for _, n := range seq.Content {
		if v := get(n, "name"); v != nil && v.Value == name {
			return n
		}
	}
	require.FailNow(t, fmt.Sprintf("no %q in the schema", name))
	return nil
}

// walk calls fn on every mapping under n.
func walk(n *yaml.Node, fn func(*yaml.Node)) {
	if n.Kind == yaml.MappingNode {
		fn(n)
	}
	for _, c := range n.Content {
		walk(c, fn)
	}
}

func intOf(t tb, n *yaml.Node) int {
	t.Helper()
	v, err := strconv.ParseInt(n.Value, 0, 64)
	require.NoError(t, err, "line %d", n.Line)
	return int(v)
}

func setInt(n *yaml.Node, v int) { n.Value, n.Tag, n.Style = strconv.Itoa(v), "!!int", 0 }

// mapping builds a block mapping of scalar key/value pairs.
func mapping(kv ...string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		v := &yaml.Node{Kind: yaml.ScalarNode, Value: kv[i+1]}
		if _, err := strconv.ParseInt(kv[i+1], 0, 64); err == nil {
			v.Tag = "!!int"
		} else {
			v.Tag = "!!str"
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: kv[i]}, v)
	}
	return m
}

// tb is what the helpers need of *testing.T and *rapid.T: testify's
// TestingT, and Helper.
type tb interface {
	require.TestingT
	Helper()
}
