package abidiff

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// diffCase is one testdata/diff/*.txtar: the comment says what the case
// covers; old.yaml and new.yaml are testdata/base.yaml with the case's
// edits applied, each edit a pair of sections "SIDE.replace" (text that must
// occur exactly once) and "SIDE.with" (what replaces it), SIDE being old or
// new, each without the newline txtar ends a section with; "want" is the
// text report. A case named after a rule id must report
// that rule.
type diffCase struct {
	name     string
	archive  *txtar.Archive
	old, new []byte
}

func loadCase(t *testing.T, base []byte, path string) diffCase {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	require.NoError(t, err)
	c := diffCase{name: strings.TrimSuffix(filepath.Base(path), ".txtar"), archive: ar, old: base, new: base}
	files := ar.Files
	for i := 0; i < len(files); i++ {
		f := files[i]
		side, kind, _ := strings.Cut(f.Name, ".")
		if f.Name == "want" {
			continue
		}
		require.Equalf(t, "replace", kind, "%s: section %q: want pairs of SIDE.replace and SIDE.with sections (SIDE old or new), then want", path, f.Name)
		require.Falsef(t, side != "old" && side != "new", "%s: section %q: want pairs of SIDE.replace and SIDE.with sections (SIDE old or new), then want", path, f.Name)
		require.NotEqualf(t, len(files), i+1, "%s: section %q: want pairs of SIDE.replace and SIDE.with sections (SIDE old or new), then want", path, f.Name)
		require.Equalf(t, side+".with", files[i+1].Name, "%s: section %q: want pairs of SIDE.replace and SIDE.with sections (SIDE old or new), then want", path, f.Name)
		replace := bytes.TrimSuffix(f.Data, []byte("\n"))
		with := bytes.TrimSuffix(files[i+1].Data, []byte("\n"))
		i++
		dst := &c.old
		if side == "new" {
			dst = &c.new
		}
		n := bytes.Count(*dst, replace)
		require.Equalf(t, 1, n, "%s: %s.replace occurs times in the %s schema, want exactly once:\n%s", path, side, side, replace)
		*dst = bytes.Replace(*dst, replace, with, 1)
	}
	return c
}

func (c diffCase) schemas(t *testing.T) (old, new *schema.Schema) {
	t.Helper()
	old, err := schema.Load("old.yaml", c.old)
	require.NoError(t, err, "old schema does not load")
	new, err = schema.Load("new.yaml", c.new)
	require.NoError(t, err, "new schema does not load")
	return old, new
}

func TestGolden(t *testing.T) {
	base, err := os.ReadFile("testdata/base.yaml")
	require.NoError(t, err)
	paths, err := filepath.Glob("testdata/diff/*.txtar")
	require.NoError(t, err, "no cases in testdata/diff")
	require.NotEmpty(t, paths, "no cases in testdata/diff")
	reported := map[Rule]bool{}
	for _, path := range paths {
		c := loadCase(t, base, path)
		t.Run(c.name, func(t *testing.T) {
			old, new := c.schemas(t)
			r := NewReport(old, new)
			for _, ch := range r.Changes {
				reported[ch.Rule] = true
			}
			rule := Rule(c.name)
			assert.Falsef(t, rule.known() && !hasRule(r.Changes, rule), "case %s does not report rule %s", c.name, rule)
			var got bytes.Buffer
			require.NoError(t, r.WriteText(&got))
			golden.CheckSection(t, path, c.archive, "want", got.Bytes())
		})
	}
	for _, info := range Rules {
		assert.Truef(t, reported[info.Rule], "no case in testdata/diff reports rule %s", info.Rule)
	}
}

func hasRule(changes []Change, rule Rule) bool {
	for _, c := range changes {
		if c.Rule == rule {
			return true
		}
	}
	return false
}

func (r Rule) known() bool {
	_, ok := categoryOf[r]
	return ok
}

// TestCaseInvariants checks, over every golden case and in both directions,
// what must hold whatever the change: the fingerprint changed exactly when
// fingerprint-changed is reported, which always makes the report breaking;
// no other rule explains nothing (a changed fingerprint comes with the
// specific change that moved it); changes are grouped by category; and the
// JSON report says the same as the text one.
func TestCaseInvariants(t *testing.T) {
	base, err := os.ReadFile("testdata/base.yaml")
	require.NoError(t, err)
	paths, _ := filepath.Glob("testdata/diff/*.txtar")
	for _, path := range paths {
		c := loadCase(t, base, path)
		old, new := c.schemas(t)
		for _, dir := range []struct {
			name     string
			old, new *schema.Schema
		}{{"forward", old, new}, {"backward", new, old}} {
			t.Run(c.name+"/"+dir.name, func(t *testing.T) {
				checkInvariants(t, dir.old, dir.new)
			})
		}
	}
}

func checkInvariants(t tb, old, new *schema.Schema) {
	t.Helper()
	changes := Compare(old, new)
	fpChanged := old.Fingerprint != new.Fingerprint
	assert.Equal(t, fpChanged, hasRule(changes, FingerprintChanged), "fingerprint %s -> %s: fingerprint-changed reported", old.FingerprintHex(), new.FingerprintHex())
	if fpChanged {
		var wire, other bool
		for _, c := range changes {
			wire = wire || c.Category == BreakingWire
			other = other || c.Rule != FingerprintChanged
		}
		assert.True(t, wire, "fingerprint changed but no breaking-wire change: %v", changes)
		assert.True(t, other, "fingerprint changed and nothing says why: %v", changes)
	}
	for i := 1; i < len(changes); i++ {
		assert.GreaterOrEqual(t, changes[i].Category, changes[i-1].Category, "change %d (%s) sorts before change %d (%s)", i, changes[i], i-1, changes[i-1])
	}
	for _, c := range changes {
		assert.Equal(t, c.Rule.Category(), c.Category, "%s: the category its rule says", c)
		assert.False(t, c.Old.Line == 0 && c.New.Line == 0, "%s: no location on either side", c)
	}
	var buf bytes.Buffer
	r := &Report{Old: old, New: new, Changes: changes}
	require.NoError(t, r.WriteJSON(&buf))
	var j struct {
		Changes      []struct{ Rule, Category, Path, Message, Old, New string }
		Breaking, OK bool
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &j), "JSON report does not parse:\n%s", buf.Bytes())
	require.Len(t, j.Changes, len(changes), "JSON report disagrees with the changes:\n%s", buf.Bytes())
	require.Equal(t, r.Breaking(), j.Breaking, "JSON report disagrees with the changes:\n%s", buf.Bytes())
	require.Equal(t, r.OK(), j.OK, "JSON report disagrees with the changes:\n%s", buf.Bytes())
	for i, c := range changes {
		got := j.Changes[i]
		want := []string{string(c.Rule), c.Category.String(), c.Path, c.Message, c.Old.String(), c.New.String()}
		assert.Equal(t, want, []string{got.Rule, got.Category, got.Path, got.Message, got.Old, got.New}, "JSON change %d", i)
	}
}
