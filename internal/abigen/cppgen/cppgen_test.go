package cppgen

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	realSchemaPath = "../../../abi/schema.yaml"
	realSchemaName = "abi/schema.yaml" // the name cmd/abigen passes to schema.Load
	committedPath  = "../../../gen/cpp/" + HeaderFile
)

// loadReal loads abi/schema.yaml under the name cmd/abigen gives it.
func loadReal(t *testing.T) (*schema.Schema, []byte) {
	t.Helper()
	data, err := os.ReadFile(realSchemaPath)
	require.NoError(t, err)
	s, err := schema.Load(realSchemaName, data)
	require.NoError(t, err, "the real schema does not load")
	// Stamped with the version, as abigen stamps what it writes into gen/.
	s.Release = buildinfo.Version()
	return s, data
}

// render is schema.Load then Generate; a failure of either renders as its
// error text, so invalid schemas have goldens too.
func render(file string, data []byte) []byte {
	s, err := schema.Load(file, data)
	if err != nil {
		return []byte(err.Error() + "\n")
	}
	files, err := Generate(s)
	if err != nil {
		return []byte(err.Error() + "\n")
	}
	return files[HeaderFile]
}

func mustHeader(t *testing.T, file string, data []byte) string {
	t.Helper()
	s, err := schema.Load(file, data)
	require.NoErrorf(t, err, "%s does not load", file)
	files, err := Generate(s)
	require.NoErrorf(t, err, "Generate(%s)", file)
	require.Len(t, files, 1, "Generate(%s): want only %s", file, HeaderFile)
	require.NotNil(t, files[HeaderFile], "Generate(%s) returned files %v, want only %s", file, keys(files), HeaderFile)
	return string(files[HeaderFile])
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// edit replaces exactly one occurrence of old in data, so a test's edit
// cannot silently stop applying when the schema it edits changes.
func edit(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	require.Equalf(t, 1, strings.Count(string(data), old), "edit: %q occurs", old)
	return []byte(strings.Replace(string(data), old, new, 1))
}

// fileLineCol starts every error line: the schema problem's position.
var fileLineCol = regexp.MustCompile(`^testdata/small\.yaml:\d+:\d+: `)

// invalidCases are edits of testdata/small.yaml that must fail; their
// goldens are the exact error text.
var invalidCases = []struct {
	name, old, new string
}{
	// The emitter's own check: a schema name that becomes a C++ name the
	// header already declares (kHeadSize is Head's size constant).
	{"invalid_name_collision", "{name: Big, value: 0x100000000,", "{name: HeadSize, value: 0x100000000,"},
	// A record field that would shadow a local of AppendRecord.
	{"invalid_record_field_name", "{name: lane, type: u8,", "{name: index, type: u8,"},
	// Rejected by the schema loader before any emitter runs: an enum field
	// must be u32 (the header stores it as uint32_t).
	{"invalid_enum_field_type", "{name: flags, type: u16, offset: 34, doc: Flags.}", "{name: flags, type: u16, offset: 34, enum: Op, doc: Flags.}"},
}

// TestGolden renders the testdata schema and the invalid edits, and
// compares each with its golden file. The real schema's golden is gen/cpp
// itself (TestGeneratedHeaderIsCurrent).
func TestGolden(t *testing.T) {
	small := readTestdata(t, "small.yaml")
	golden.Check(t, filepath.Join("testdata", "small.h.golden"), render("testdata/small.yaml", small))
	for _, c := range invalidCases {
		t.Run(c.name, func(t *testing.T) {
			got := render("testdata/small.yaml", edit(t, small, c.old, c.new))
			require.NotContainsf(t, string(got), "DO NOT EDIT", "an invalid schema must fail, got:\n%s", got)
			for _, line := range strings.Split(strings.TrimSpace(string(got)), "\n") {
				assert.Regexp(t, fileLineCol, line, "error line does not start with testdata/small.yaml:LINE:COL")
			}
			golden.Check(t, filepath.Join("testdata", c.name+".golden"), got)
		})
	}
}

// TestGeneratedHeaderIsCurrent is the drift check: rendering abi/schema.yaml
// in memory gives the committed gen/cpp header byte for byte.
func TestGeneratedHeaderIsCurrent(t *testing.T) {
	s, _ := loadReal(t)
	files, err := Generate(s)
	require.NoError(t, err)
	got := files[HeaderFile]
	want, err := os.ReadFile(committedPath)
	require.NoError(t, err)
	// The first line that differs, not testify's dump of both headers.
	assert.True(t, bytes.Equal(got, want), "gen/cpp/%s is stale (run go run ./cmd/abigen):\n%s", HeaderFile, golden.Diff(got, want))
}

// TestDeterministic: equal models give equal bytes, and Generate does not
// change the model it is given.
func TestDeterministic(t *testing.T) {
	s, _ := loadReal(t)
	canon := s.Canonical()
	a, err := Generate(s)
	require.NoError(t, err)
	b, err := Generate(s)
	require.NoError(t, err)
	assert.Equal(t, []byte(b[HeaderFile]), []byte(a[HeaderFile]), "two renders of one model differ")
	assert.Equal(t, canon, s.Canonical(), "Generate changed the model")
}

func TestGenerateRejectsUnvalidatedModel(t *testing.T) {
	for _, s := range []*schema.Schema{nil, {File: "x.yaml"}} {
		files, err := Generate(s)
		assert.Errorf(t, err, "Generate(%+v) = %d files, want an error", s, len(files))
	}
}
