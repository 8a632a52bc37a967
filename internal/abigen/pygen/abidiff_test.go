package pygen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/megakernel/cycleabi/internal/abigen/abidiff"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/testkit/pytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// abidiff's cases: testdata/base.yaml and one edit per rule (and a few
// mixed ones), each a txtar of "old.replace"/"old.with" and
// "new.replace"/"new.with" pairs, as internal/abigen/abidiff's golden test reads
// them.
const (
	diffBase  = "../abidiff/testdata/base.yaml"
	diffCases = "../abidiff/testdata/diff/*.txtar"
)

// diffCase is one of abidiff's cases: the two schemas it compares.
type diffCase struct {
	name     string
	old, new []byte
}

func loadDiffCases(t *testing.T) []diffCase {
	t.Helper()
	base, err := os.ReadFile(diffBase)
	require.NoError(t, err)
	paths, err := filepath.Glob(diffCases)
	require.NoErrorf(t, err, "no abidiff cases at %s", diffCases)
	require.NotEmptyf(t, paths, "no abidiff cases at %s", diffCases)
	var cases []diffCase
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		require.NoError(t, err)
		c := diffCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), old: base, new: base}
		for i := 0; i < len(ar.Files); i++ {
			f := ar.Files[i]
			side, kind, _ := strings.Cut(f.Name, ".")
			if f.Name == "want" {
				continue
			}
			require.Equalf(t, "replace", kind, "%s: section %q is not a SIDE.replace, SIDE.with pair", p, f.Name)
			require.NotEqualf(t, len(ar.Files), i+1, "%s: section %q is not a SIDE.replace, SIDE.with pair", p, f.Name)
			require.Equalf(t, side+".with", ar.Files[i+1].Name, "%s: section %q is not a SIDE.replace, SIDE.with pair", p, f.Name)
			dst := &c.old
			if side == "new" {
				dst = &c.new
			}
			replace := bytes.TrimSuffix(f.Data, []byte("\n"))
			require.Equalf(t, 1, bytes.Count(*dst, replace), "%s: %s.replace does not occur exactly once", p, side)
			*dst = bytes.Replace(*dst, replace, bytes.TrimSuffix(ar.Files[i+1].Data, []byte("\n")), 1)
			i++
		}
		cases = append(cases, c)
	}
	return cases
}

// pySummary is what moduleSummary's Python reports of one module: its wire
// facts (dtypes' formats and offsets, regions, constants, namespace
// ranges, enum numbers) and its display facts (field and member names,
// namespace formats, the names desc_name gives, SoC frequencies).
type pySummary struct {
	Dtypes map[string]struct {
		Itemsize int      `json:"itemsize"`
		Fields   [][3]any `json:"fields"` // name, dtype.str+shape, offset
	} `json:"dtypes"`
	Constants  map[string]*uint64           `json:"constants"`
	Enums      map[string]map[string]uint64 `json:"enums"`
	Regions    [][3]any                     `json:"regions"` // value, name, slots per cube slot
	Namespaces [][8]any                     `json:"namespaces"`
	Names      map[string]string            `json:"names"`
	SoCs       map[string]*float64          `json:"socs"`
}

const moduleSummary = `
import enum, importlib.util, json, sys
jobs = json.load(open(sys.argv[1]))
for i, job in enumerate(jobs):
    spec = importlib.util.spec_from_file_location("cycleabi_abi_%d" % i, job["path"])
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    dtypes = {}
    for name in job["dtypes"]:
        d = getattr(m, name, None)
        if d is not None:
            dtypes[name] = {"itemsize": d.itemsize, "fields": [
                [f, d.fields[f][0].str + str(d.fields[f][0].shape), d.fields[f][1]] for f in d.names]}
    enums = {}
    for name, v in vars(m).items():
        if isinstance(v, type) and issubclass(v, enum.IntEnum) and v is not enum.IntEnum:
            enums[name] = {e.name: int(e.value) for e in v}
    socs = {}
    for p in job["socs"]:
        try:
            socs[p] = m.system_counter_mhz(p)
        except ValueError:
            socs[p] = None
    print(json.dumps({
        "dtypes": dtypes,
        "constants": {c: getattr(m, c, None) for c in job["constants"]},
        "enums": enums,
        "regions": [[int(r.core_type), r.core_type.name, r.slots_per_cube_slot] for r in m.REGIONS],
        "namespaces": [[ns.name, ns.base, ns.count, ns.display, ns.fallback, ns.arg,
                        ns.enum.__name__ if ns.enum else None, sorted(ns.task_stage_prefix)] for ns in m.NAMESPACES],
        "names": {str(d): m.desc_name(d) for d in job["desc_ids"]},
        "socs": socs,
    }))
`

// namedIDs are the desc_ids s names itself (a named descriptor or a member
// of the namespace's enum); every other id displays with a fallback.
func namedIDs(s *schema.Schema) map[uint32]bool {
	ids := map[uint32]bool{}
	for _, ns := range s.Descriptors.Namespaces {
		for _, n := range ns.Names {
			ids[ns.Base+n.Index] = true
		}
		if ns.Enum != nil {
			for _, v := range ns.Enum.Values {
				if uint64(v.Value) < uint64(ns.Count) {
					ids[ns.Base+uint32(v.Value)] = true
				}
			}
		}
	}
	return ids
}

// sampleIDs are the desc_ids whose names the test compares: every named
// id of either schema and each namespace's edges, inside and just outside.
func sampleIDs(schemas ...*schema.Schema) []uint32 {
	set := map[uint32]bool{0: true, 0xFFFFFFFF: true}
	for _, s := range schemas {
		for id := range namedIDs(s) {
			set[id] = true
		}
		for _, ns := range s.Descriptors.Namespaces {
			set[ns.Base], set[ns.Base+ns.Count-1], set[ns.Base+ns.Count] = true, true, true
			if ns.Base > 0 {
				set[ns.Base-1] = true
			}
		}
	}
	var ids []uint32
	for id := range set {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// wireDiffs lists what the new module reads differently from the old one
// (a dtype's formats or offsets, a region, a constant, a namespace's
// range, an enum number gone): what abidiff must call breaking-wire.
func wireDiffs(old, new *pySummary) []string {
	var d []string
	for name, od := range old.Dtypes {
		nd, ok := new.Dtypes[name]
		if !ok {
			d = append(d, name+" is gone")
			continue
		}
		// A field keeps its format and offset: found by name, or (renamed,
		// a display change) at its offset.
		byName, byOffset := map[string][3]any{}, map[string][3]any{}
		for _, f := range nd.Fields {
			byName[fmt.Sprint(f[0])], byOffset[fmt.Sprint(f[2])] = f, f
		}
		if od.Itemsize != nd.Itemsize {
			d = append(d, fmt.Sprintf("%s: %d bytes, now %d", name, od.Itemsize, nd.Itemsize))
		}
		for _, f := range od.Fields {
			now, ok := byName[fmt.Sprint(f[0])]
			if !ok {
				now, ok = byOffset[fmt.Sprint(f[2])]
			}
			if !ok || now[1] != f[1] || fmt.Sprint(now[2]) != fmt.Sprint(f[2]) {
				d = append(d, fmt.Sprintf("%s: field %v (%v at %v) is %v now", name, f[0], f[1], f[2], now))
			}
		}
	}
	regions := func(rs [][3]any) string {
		var l []string
		for _, r := range rs {
			l = append(l, fmt.Sprintf("%v*%v", r[0], r[2]))
		}
		return strings.Join(l, " ")
	}
	if regions(old.Regions) != regions(new.Regions) {
		d = append(d, fmt.Sprintf("regions %s, now %s", regions(old.Regions), regions(new.Regions)))
	}
	for name, v := range old.Constants {
		if nv := new.Constants[name]; v != nil && (nv == nil || *nv != *v) {
			d = append(d, fmt.Sprintf("constant %s changed or is gone", name))
		}
	}
	ranges := map[string]bool{}
	for _, ns := range new.Namespaces {
		ranges[fmt.Sprint(ns[1], ns[2])] = true
	}
	for _, ns := range old.Namespaces {
		if !ranges[fmt.Sprint(ns[1], ns[2])] {
			d = append(d, fmt.Sprintf("namespace %v's range [%v, +%v) is gone", ns[0], ns[1], ns[2]))
		}
	}
	for name, members := range old.Enums {
		values := map[uint64]bool{}
		for _, v := range new.Enums[name] {
			values[v] = true
		}
		for m, v := range members {
			if !values[v] {
				d = append(d, fmt.Sprintf("enum %s has no value %d (%s) now", name, v, m))
			}
		}
	}
	sort.Strings(d)
	return d
}

// displayDiffs lists what the new module names differently from the old
// one: a field, enum member or core type renamed, a namespace's name or
// formats, a desc_id the old schema named (or an id of an old namespace
// both leave to a fallback) with another name, a SoC's frequency: what abidiff must call breaking
// (display, or wire).
func displayDiffs(old, new *pySummary, oldSchema *schema.Schema, newNamed map[uint32]bool) []string {
	oldNamed := namedIDs(oldSchema)
	var d []string
	for name, od := range old.Dtypes {
		byOffset := func(fields [][3]any) map[string]string {
			m := map[string]string{}
			for _, f := range fields {
				m[fmt.Sprint(f[2])] = fmt.Sprint(f[0])
			}
			return m
		}
		nb := byOffset(new.Dtypes[name].Fields)
		for off, f := range byOffset(od.Fields) {
			if nb[off] != f {
				d = append(d, fmt.Sprintf("%s: the field at %s is %q, was %q", name, off, nb[off], f))
			}
		}
	}
	for name, members := range old.Enums {
		byValue := map[uint64]string{}
		for m, v := range new.Enums[name] {
			byValue[v] = m
		}
		for m, v := range members {
			if byValue[v] != m {
				d = append(d, fmt.Sprintf("enum %s value %d is %q, was %q", name, v, byValue[v], m))
			}
		}
	}
	for i, r := range old.Regions {
		if i < len(new.Regions) && new.Regions[i][1] != r[1] {
			d = append(d, fmt.Sprintf("region %d is %v, was %v", i, new.Regions[i][1], r[1]))
		}
	}
	byBase := map[string]string{}
	for _, ns := range new.Namespaces {
		byBase[fmt.Sprint(ns[1])] = fmt.Sprint(ns)
	}
	for _, ns := range old.Namespaces {
		if now := byBase[fmt.Sprint(ns[1])]; now != fmt.Sprint(ns) {
			d = append(d, fmt.Sprintf("namespace %v, now %s", ns, now))
		}
	}
	for id, name := range old.Names {
		var n uint32
		fmt.Sscan(id, &n)
		inOld := false
		for _, ns := range oldSchema.Descriptors.Namespaces {
			inOld = inOld || uint64(n) >= uint64(ns.Base) && uint64(n) < uint64(ns.Base)+uint64(ns.Count)
		}
		if (oldNamed[n] || inOld && !newNamed[n]) && new.Names[id] != name {
			d = append(d, fmt.Sprintf("desc_name(%s) = %q, was %q", id, new.Names[id], name))
		}
	}
	for soc, mhz := range old.SoCs {
		if nm := new.SoCs[soc]; mhz != nil && (nm == nil || *nm != *mhz) {
			d = append(d, fmt.Sprintf("SoC %s's frequency changed or is gone", soc))
		}
	}
	sort.Strings(d)
	return d
}

// TestAbidiffCoversModule holds the module to abigen diff's rules on
// every case of abidiff's golden tests: the module changes only when
// abidiff reports a change; where abidiff reports nothing breaking-wire,
// the new module reads every old struct, region, constant, namespace and
// enum number as the old module does; where it reports nothing breaking,
// it also names every field, member, namespace, descriptor and SoC as the
// old one does. The cases that change those facts on purpose must show up
// in the comparisons, so the comparisons can see a change.
func TestAbidiffCoversModule(t *testing.T) {
	cases := loadDiffCases(t)
	type loaded struct {
		c                diffCase
		old, new         *schema.Schema
		oldText, newText []byte
		changes          []abidiff.Change
		newNamed         map[uint32]bool
	}
	var all []loaded
	dir := t.TempDir()
	type job struct {
		Path      string   `json:"path"`
		Dtypes    []string `json:"dtypes"`
		Constants []string `json:"constants"`
		DescIDs   []uint32 `json:"desc_ids"`
		SoCs      []string `json:"socs"`
	}
	var jobs []job
	for _, c := range cases {
		l := loaded{c: c}
		var err error
		l.old, err = schema.Load("schema.yaml", c.old)
		require.NoErrorf(t, err, "%s: old", c.name)
		l.new, err = schema.Load("schema.yaml", c.new)
		require.NoErrorf(t, err, "%s: new", c.name)
		l.changes = abidiff.Compare(l.old, l.new)
		l.newNamed = namedIDs(l.new)
		module := func(s *schema.Schema) []byte {
			files, err := Generate(s)
			require.NoErrorf(t, err, "%s", c.name)
			return files[ModuleFile]
		}
		l.oldText, l.newText = module(l.old), module(l.new)
		for side, text := range map[string][]byte{"old": l.oldText, "new": l.newText} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, c.name+"."+side+".py"), text, 0o644))
		}
		all = append(all, l)
	}
	// Both modules of a case, old then new, are asked about the old
	// schema's structs, constants and SoCs.
	for _, l := range all {
		j := job{DescIDs: sampleIDs(l.old, l.new)}
		for _, st := range l.old.Structs {
			j.Dtypes = append(j.Dtypes, upperSnake(st.Name)+"_DTYPE")
		}
		for _, k := range l.old.Constants {
			j.Constants = append(j.Constants, upperSnake(k.Name))
		}
		for _, soc := range l.old.SoCs {
			j.SoCs = append(j.SoCs, soc.Prefix)
		}
		for _, side := range []string{"old", "new"} {
			j.Path = filepath.Join(dir, l.c.name+"."+side+".py")
			jobs = append(jobs, j)
		}
	}
	list, err := json.Marshal(jobs)
	require.NoError(t, err)
	jobsFile := filepath.Join(dir, "jobs.json")
	require.NoError(t, os.WriteFile(jobsFile, list, 0o644))
	out := bytes.Split(bytes.TrimSpace(pytest.Run(t, dir, moduleSummary, jobsFile)), []byte("\n"))
	require.Len(t, out, len(jobs), "Python summarised")
	seen := map[string]bool{}
	for i, l := range all {
		var old, new pySummary
		require.NoError(t, json.Unmarshal(out[2*i], &old))
		require.NoError(t, json.Unmarshal(out[2*i+1], &new))
		wire := false
		for _, ch := range l.changes {
			wire = wire || ch.Category == abidiff.BreakingWire
		}
		name := l.c.name
		assert.Falsef(t, !bytes.Equal(l.oldText, l.newText) && len(l.changes) == 0, "%s: the module changed and abigen diff reports nothing", name)
		wd, dd := wireDiffs(&old, &new), displayDiffs(&old, &new, l.old, l.newNamed)
		if !wire {
			assert.Empty(t, wd, "%s: abigen diff reports nothing breaking-wire (%v), but the module reads differently:\n  %s", name, l.changes, strings.Join(wd, "\n  "))
		}
		if !abidiff.Breaking(l.changes) {
			assert.Empty(t, dd, "%s: abigen diff reports nothing breaking (%v), but the module names differently:\n  %s", name, l.changes, strings.Join(dd, "\n  "))
		}
		if len(wd) > 0 {
			seen["wire:"+name] = true
		}
		if len(dd) > 0 {
			seen["display:"+name] = true
		}
	}
	// Cases that change what the comparisons look at; each must be seen.
	for _, want := range []string{
		"wire:field-offset", "wire:struct-size", "wire:field-type", "wire:region-changed", "wire:namespace-moved",
		"wire:namespace-resized", "wire:constant-changed", "wire:enum-value-renumbered", "wire:enum-value-removed",
		"wire:layout-constant-changed",
		"display:field-renamed", "display:enum-value-renamed", "display:task-type-renamed", "display:stage-renamed",
		"display:stage-removed", "display:namespace-renamed", "display:namespace-format-changed",
		"display:stage-prefix-changed", "display:soc-changed", "display:soc-removed", "display:core-type-renamed",
	} {
		assert.Truef(t, seen[want], "%s: the comparison sees no difference; it could not catch one", want)
	}
	t.Logf("%d abidiff cases, %d modules", len(all), len(jobs))
}
