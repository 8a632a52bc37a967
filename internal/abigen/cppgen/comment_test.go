package cppgen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hazards are doc words a C++ // comment must not end a line with (a
// backslash, the trigraph ??/) or that other comment forms trip over.
var hazards = []string{`back\`, `path\to\dir\`, `??/`, `what??/`, `*/`, `/*`, `"""`, `<!--`, `\n`}

// TestCommentNeverSplices wraps docs that put every hazard at every column
// and checks no // line ends in a line splice, and no word is lost.
func TestCommentNeverSplices(t *testing.T) {
	for _, h := range hazards {
		for fill := 0; fill < 90; fill++ {
			text := strings.Repeat("x", fill) + " " + h + " tail " + h + " end"
			g := &gen{}
			g.comment("  ", text)
			out := g.Buf.String()
			var words []string
			for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				rest, ok := strings.CutPrefix(line, "  //")
				require.Truef(t, ok, "%q: line %q is not a comment", text, line)
				require.Falsef(t, strings.HasSuffix(line, `\`), "%q: line %q ends in a line splice", text, line)
				assert.Falsef(t, strings.HasSuffix(line, "??/"), "%q: line %q ends in a line splice", text, line)
				words = append(words, strings.Fields(rest)...)
			}
			assert.Equalf(t, strings.Join(strings.Fields(text), " "), strings.Join(words, " "), "comment(%q) reads back as", text)
		}
	}
}

// TestHazardousDocsCompile puts the hazards into the doc of the enum value
// just before ShmemGetMem (where a trailing backslash once made the C++
// enum lose ShmemGetMem = 141) and into a struct field's, at several fill
// lengths so wrapping puts them at line ends, compiles the header at every
// standard with -Werror (trigraphs are on at -std=c++11), and checks that
// the enum and the struct are intact.
func TestHazardousDocsCompile(t *testing.T) {
	compilers := cxxtest.Compilers(t)
	_, real := loadReal(t)
	var doc strings.Builder
	for fill := 60; fill < 80; fill++ {
		for _, h := range hazards {
			fmt.Fprintf(&doc, "%s %s ", strings.Repeat("y", fill), h)
		}
	}
	yamlDoc := "'" + strings.TrimSpace(doc.String()) + " done.'"
	data := edit(t, real, "doc: MHC gradient of previous A and mapping.}", "doc: "+yamlDoc+"}")
	data = edit(t, data, "doc: The task the record belongs to (index into the task table).", "doc: "+yamlDoc)
	header := mustHeader(t, realSchemaName, data)
	dir := writeHeader(t, header)
	src := writeSource(t, dir, "intact.cpp", `#include "`+HeaderFile+`"
static_assert(static_cast<uint32_t>(cycleabi::TaskType::MhcGradPrevAAndMapping) == 119, "enum value before the doc");
static_assert(static_cast<uint32_t>(cycleabi::TaskType::ShmemGetMem) == 141, "enum value after the doc");
static_assert(offsetof(cycleabi::ProfileRecord, task_id) == 20, "field the doc describes");
static_assert(offsetof(cycleabi::ProfileRecord, stage_task_index) == 24, "field after the doc");
`)
	for _, cxx := range compilers {
		for _, std := range cxxtest.Standards {
			t.Run(cxx.Name+"/"+std, func(t *testing.T) {
				t.Parallel()
				cxx.Compile(t, std, "-I", dir, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", src)
			})
		}
	}
}

// TestLoaderRefusesSplicingDocs: a doc the emitters cannot make safe is the
// loader's error at the doc's line and column.
func TestLoaderRefusesSplicingDocs(t *testing.T) {
	_, real := loadReal(t)
	for _, bad := range []string{`'Ends in a backslash\'`, `'Ends in a trigraph ??/'`, `"A bell \a in it."`, `"A carriage\rreturn."`, `"Line\u2028separator."`, `"Two\\\nlines."`} {
		data := edit(t, real, "doc: Remote get.}", "doc: "+bad+"}")
		_, err := schema.Load(realSchemaName, data)
		if !assert.Errorf(t, err, "doc %s loads", bad) {
			continue
		}
		line := strings.Count(string(data[:strings.Index(string(data), "doc: "+bad)]), "\n") + 1
		require.Containsf(t, err.Error(), fmt.Sprintf("abi/schema.yaml:%d:", line), "doc %s: error %q does not name", bad, err)
		assert.Containsf(t, err.Error(), ".doc: ", "doc %s: error %q does not name", bad, err)
	}
}
