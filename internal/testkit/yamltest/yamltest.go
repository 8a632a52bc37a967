// Package yamltest holds test helpers for cycleabi's YAML readers (the
// ABI schema, schedules, names files).
package yamltest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/megakernel/cycleabi/internal/yamlpos"
)

// Mutants calls try with each single mutation of the YAML document data:
// every mapping entry and list item deleted in turn, and every node
// replaced in turn by null, an empty list and an empty mapping. what names
// the mutation ("delete layout.regions"). It returns how many mutants it
// made.
//
// A reader fed these meets every missing key and every wrong kind of node
// its input can have, the holes a fuzzer finds only by luck.
//
// Under -short (make test) try sees every ShortStride-th mutant, each kind
// of mutation still among them; make ci tries them all (the schema's 1,139
// take about a minute, several under the race detector).
func Mutants(t testing.TB, data []byte, try func(what string, mutant []byte)) int {
	t.Helper()
	var root yaml.Node
	require.NoError(t, yaml.Unmarshal(data, &root), "yamltest: the document to mutate does not parse")
	made := 0
	emit := func(what string) {
		made++
		if testing.Short() && made%ShortStride != 1 {
			return
		}
		out, err := yaml.Marshal(&root)
		require.NoError(t, err, "yamltest: %s", what)
		try(what, out)
	}
	replacements := []yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!null", Value: "~"},
		{Kind: yaml.SequenceNode, Tag: "!!seq"},
		{Kind: yaml.MappingNode, Tag: "!!map"},
	}
	count := 0
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			walk(n.Content[0], path)
			return
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				kpath := n.Content[i].Value
				if path != "" {
					kpath = path + "." + kpath
				}
				saved := n.Content
				n.Content = append(append([]*yaml.Node{}, saved[:i]...), saved[i+2:]...)
				emit("delete " + kpath)
				n.Content = saved
				count++
				walk(n.Content[i+1], kpath)
			}
		case yaml.SequenceNode:
			for i := range n.Content {
				ipath := fmt.Sprintf("%s[%d]", path, i)
				saved := n.Content
				n.Content = append(append([]*yaml.Node{}, saved[:i]...), saved[i+1:]...)
				emit("delete " + ipath)
				n.Content = saved
				count++
				walk(n.Content[i], ipath)
			}
		}
		orig := *n
		name := path
		if name == "" {
			name = "the document"
		}
		for _, r := range replacements {
			*n = r
			emit(fmt.Sprintf("replace %s with %s", name, r.Tag))
			count++
		}
		*n = orig
	}
	walk(&root, "")
	return count
}

// ShortStride is how many mutants under -short stand for one tried.
const ShortStride = 8

// Positioned fails t unless err is nil or a *yamlpos.List whose every
// problem names file and a line.
func Positioned(t testing.TB, what string, file string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var list *yamlpos.List
	if !assert.ErrorAs(t, err, &list, "%s: error is not a yamlpos.List", what) || !assert.NotZero(t, list.Len(), "%s: the yamlpos.List is empty", what) {
		return
	}
	for _, e := range list.Errs {
		assert.True(t, e.File == file && e.Line >= 1, "%s: problem without file %s and a line: %q", what, file, e.Error())
	}
}
