package agreement_test

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cxxNamespace is the namespace the header declares everything in.
const cxxNamespace = "cycleabi"

// dwarfVariants are the ways the DWARF check compiles the header: the
// oldest standard with DWARF 4 unoptimised, the newest with DWARF 5
// optimised (debug info of types must not depend on either).
var dwarfVariants = []struct {
	std, name string
	flags     []string
}{
	{"c++11", "dwarf4-O0", []string{"-gdwarf-4", "-O0"}},
	{"c++20", "dwarf5-O2", []string{"-gdwarf-5", "-O2"}},
}

// TestDWARFMatchesSchema compiles the committed header with -g into an
// object file with every compiler on PATH, reads its debug info with
// debug/elf and debug/dwarf, and requires every struct the schema declares
// to have the schema's size, and exactly the schema's fields, in order, at
// the schema's offsets, with the schema's sizes and kinds; and every enum
// the schema declares to be 4 bytes, of an unsigned 32-bit underlying type,
// with exactly the schema's enumerators. This is what the compiler actually
// laid out, checked against abi/schema.yaml as it is now: it catches a
// header that static_asserts the wrong numbers, or a build that picked up a
// stale header.
func TestDWARFMatchesSchema(t *testing.T) {
	s, err := schema.LoadFile(schemaFile)
	require.NoError(t, err)
	for _, cxx := range cxxtest.Compilers(t) {
		for _, v := range dwarfVariants {
			t.Run(cxx.Name+"/"+v.std+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				obj := compileDWARFProbe(t, cxx, v.std, v.flags, genCpp, s)
				for _, problem := range checkDWARF(t, obj, s) {
					assert.Fail(t, problem)
				}
			})
		}
	}
}

// TestDWARFCatchesDrift compiles a copy of the header whose layout was
// changed behind the schema's back (two fields swapped, the padding
// shortened, an enumerator renumbered; the static_asserts that would stop
// the compile removed) and requires the DWARF check to report each change.
func TestDWARFCatchesDrift(t *testing.T) {
	s, err := schema.LoadFile(schemaFile)
	require.NoError(t, err)
	header, err := os.ReadFile(filepath.Join(genCpp, "cycleabi_abi.h"))
	require.NoError(t, err)
	drifted := string(header)
	for _, e := range []struct{ old, new string }{
		{"  uint32_t record_count;\n", "  uint32_t dropped_count_tmp;\n"},
		{"  uint32_t dropped_count;\n", "  uint32_t record_count;\n"},
		{"  uint32_t dropped_count_tmp;\n", "  uint32_t dropped_count;\n"},
		{"  uint8_t padding[32];\n", "  uint8_t padding[24];\n"},
		{"  MatMul = 103,\n", "  MatMul = 199,\n"},
	} {
		require.Contains(t, drifted, e.old, "the header has no")
		drifted = strings.Replace(drifted, e.old, e.new, 1)
	}
	drifted = regexp.MustCompile(`(?s)static_assert\(.*?\);\n`).ReplaceAllString(drifted, "")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cycleabi_abi.h"), []byte(drifted), 0o644))
	for _, cxx := range cxxtest.Compilers(t) {
		t.Run(cxx.Name, func(t *testing.T) {
			obj := compileDWARFProbe(t, cxx, "c++17", []string{"-g"}, dir, s)
			problems := strings.Join(checkDWARF(t, obj, s), "\n")
			for _, want := range []string{
				"CoreHeader.record_count: offset 12 in the object, 8 in the schema",
				"CoreHeader.dropped_count: offset 8 in the object, 12 in the schema",
				"CoreHeader.padding: 24 bytes in the object, 32 in the schema",
				"CoreHeader: 56 bytes in the object, 64 in the schema",
				"TaskType.MatMul: 199 in the object, 103 in the schema",
			} {
				assert.Contains(t, problems, want, "the DWARF check did not report")
			}
		})
	}
}

// compileDWARFProbe compiles, with the header in includeDir, a file that
// defines one variable of every struct and enum of s (so every compiler
// emits their complete debug info) and returns the object file.
func compileDWARFProbe(t *testing.T, cxx cxxtest.Compiler, std string, flags []string, includeDir string, s *schema.Schema) string {
	t.Helper()
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("// Defines one object of every type abi/schema.yaml declares, for the DWARF check.\n")
	src.WriteString("#include \"cycleabi_abi.h\"\n\n")
	for _, st := range s.Structs {
		fmt.Fprintf(&src, "%s::%s dwarf_probe_%s;\n", cxxNamespace, st.Name, st.Name)
	}
	for _, e := range s.Enums {
		fmt.Fprintf(&src, "%s::%s dwarf_probe_%s = %s::%s::%s;\n", cxxNamespace, e.Name, e.Name, cxxNamespace, e.Name, e.Values[0].Name)
	}
	path := filepath.Join(dir, "dwarf_probe.cpp")
	require.NoError(t, os.WriteFile(path, []byte(src.String()), 0o644))
	obj := filepath.Join(dir, "dwarf_probe.o")
	args := append(append([]string{}, flags...), "-c", "-I", includeDir, "-o", obj, path)
	cxx.Compile(t, std, args...)
	return obj
}

// debugTypes are the structs and enums an object's DWARF declares in the
// header's namespace, by name.
type debugTypes struct {
	structs map[string]*dwarf.StructType
	enums   map[string]*dwarf.EnumType
	// enumBase is the underlying type of each enum, when the DWARF says it.
	enumBase map[string]dwarf.Type
}

// readDebugTypes collects the complete struct and enum types declared
// directly in namespace cycleabi.
func readDebugTypes(path string) (*debugTypes, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	out := &debugTypes{structs: map[string]*dwarf.StructType{}, enums: map[string]*dwarf.EnumType{}, enumBase: map[string]dwarf.Type{}}
	// scope is the chain of entries enclosing the current one, each named
	// "namespace:<name>" or by its tag; the compile unit is left out.
	var scope []string
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			if len(scope) > 0 {
				scope = scope[:len(scope)-1]
			}
			continue
		}
		inNamespace := len(scope) == 2 && scope[1] == "namespace:"+cxxNamespace
		name, _ := e.Val(dwarf.AttrName).(string)
		switch {
		case inNamespace && e.Tag == dwarf.TagStructType:
			typ, err := d.Type(e.Offset)
			if err != nil {
				return nil, fmt.Errorf("%s: struct %s: %v", path, name, err)
			}
			if st, ok := typ.(*dwarf.StructType); ok && !st.Incomplete {
				out.structs[name] = st
			}
		case inNamespace && e.Tag == dwarf.TagEnumerationType:
			typ, err := d.Type(e.Offset)
			if err != nil {
				return nil, fmt.Errorf("%s: enum %s: %v", path, name, err)
			}
			if et, ok := typ.(*dwarf.EnumType); ok {
				out.enums[name] = et
			}
			if off, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
				if base, err := d.Type(off); err == nil {
					out.enumBase[name] = base
				}
			}
		}
		if e.Children {
			if e.Tag == dwarf.TagNamespace {
				scope = append(scope, "namespace:"+name)
			} else {
				scope = append(scope, e.Tag.String())
			}
		}
	}
	return out, nil
}

// resolve strips typedefs and qualifiers (uint32_t -> unsigned int).
func resolve(t dwarf.Type) dwarf.Type {
	for {
		switch tt := t.(type) {
		case *dwarf.TypedefType:
			t = tt.Type
		case *dwarf.QualType:
			t = tt.Type
		default:
			return t
		}
	}
}

// isUnsigned reports whether t is an unsigned integer of size bytes.
func isUnsigned(t dwarf.Type, size int64) bool {
	switch tt := resolve(t).(type) {
	case *dwarf.UintType:
		return tt.ByteSize == size
	case *dwarf.UcharType:
		return tt.ByteSize == size
	}
	return false
}

// checkDWARF compares the debug types of the object file at path with the
// schema and returns every difference, each naming the struct or enum,
// the member and both values.
func checkDWARF(t *testing.T, path string, s *schema.Schema) []string {
	t.Helper()
	dt, err := readDebugTypes(path)
	require.NoError(t, err)
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for _, st := range s.Structs {
		ds := dt.structs[st.Name]
		if ds == nil {
			add("struct %s::%s: not in the object's debug info", cxxNamespace, st.Name)
			continue
		}
		if ds.ByteSize != int64(st.Size) {
			add("%s: %d bytes in the object, %d in the schema", st.Name, ds.ByteSize, st.Size)
		}
		fieldsByName := map[string]*dwarf.StructField{}
		var names []string
		for _, f := range ds.Field {
			fieldsByName[f.Name] = f
			names = append(names, f.Name)
		}
		var want []string
		for _, f := range st.Fields {
			want = append(want, f.Name)
			df := fieldsByName[f.Name]
			if df == nil {
				add("%s.%s: not a member in the object", st.Name, f.Name)
				continue
			}
			if df.BitSize != 0 {
				add("%s.%s: a bit-field in the object", st.Name, f.Name)
			}
			if df.ByteOffset != int64(f.Offset) {
				add("%s.%s: offset %d in the object, %d in the schema", st.Name, f.Name, df.ByteOffset, f.Offset)
			}
			if size := df.Type.Size(); size != int64(f.Size) {
				add("%s.%s: %d bytes in the object, %d in the schema", st.Name, f.Name, size, f.Size)
			}
			if f.Type == schema.Pad {
				arr, ok := resolve(df.Type).(*dwarf.ArrayType)
				if !ok || !isUnsigned(arr.Type, 1) {
					add("%s.%s: %s in the object, the schema's padding is an array of bytes", st.Name, f.Name, df.Type)
				}
			} else if !isUnsigned(df.Type, int64(f.Type.Width())) {
				add("%s.%s: %s in the object, the schema's %s is an unsigned %d-byte integer", st.Name, f.Name, df.Type, f.Type, f.Type.Width())
			}
		}
		if strings.Join(names, " ") != strings.Join(want, " ") {
			add("%s: members %v in the object, fields %v in the schema", st.Name, names, want)
		}
	}
	for _, e := range s.Enums {
		de := dt.enums[e.Name]
		if de == nil {
			add("enum %s::%s: not in the object's debug info", cxxNamespace, e.Name)
			continue
		}
		if de.ByteSize != 4 {
			add("%s: %d bytes in the object, the schema's enums are u32", e.Name, de.ByteSize)
		}
		if base, ok := dt.enumBase[e.Name]; ok && !isUnsigned(base, 4) {
			add("%s: underlying type %s in the object, the schema's enums are u32", e.Name, base)
		}
		values := map[string]int64{}
		var names []string
		for _, v := range de.Val {
			values[v.Name] = v.Val
			names = append(names, v.Name)
		}
		var want []string
		for _, v := range e.Values {
			want = append(want, v.Name)
			got, ok := values[v.Name]
			if !ok {
				add("%s.%s: not an enumerator in the object", e.Name, v.Name)
			} else if got != int64(v.Value) {
				add("%s.%s: %d in the object, %d in the schema", e.Name, v.Name, got, v.Value)
			}
		}
		if strings.Join(names, " ") != strings.Join(want, " ") {
			add("%s: enumerators %v in the object, %v in the schema", e.Name, names, want)
		}
	}
	return problems
}
