// Package gogen is the Go emitter of abigen: it turns the validated schema
// model into the source of the generated package gen/go/abi.
//
// Generate is pure: model in, files out. It never reads or writes the file
// system; cmd/abigen decides where the files go. Each kind of declaration has
// one function (genConstants, genEnum, genStruct, genLayout, ...), and above
// each jennifer chain a short comment shows the Go it emits.
package gogen

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// PackageName is the name of the generated Go package; its files live under
// PackageDir relative to the Go output root (gen/go).
const (
	PackageName = "abi"
	PackageDir  = "abi"
)

// Generate renders the Go package for s. The keys of the result are slash
// paths relative to the Go output root ("abi/constants_gen.go"); every file is
// gofmt'd and starts with the generated-code line naming s.File. The output
// depends only on s, so two calls give identical bytes.
//
// An error means the schema cannot be expressed in Go, e.g. two schema names
// that map to the same Go identifier.
func Generate(s *schema.Schema) (map[string][]byte, error) {
	if s == nil || s.Layout == nil || s.Descriptors == nil {
		return nil, fmt.Errorf("gogen: incomplete schema model (load it with schema.Load)")
	}
	g := &generator{s: s, declared: map[string]string{}}
	// The emitter's own names come first, so a schema name that takes one
	// is the error, with its position.
	for _, name := range fixedNames {
		g.declared[name] = "a declaration abigen always emits"
	}
	// Each file holds what depends on the schema; the logic over it is
	// hand-written Go beside them in the same package.
	files := []struct {
		name string
		gen  func(*jen.File)
	}{
		{"constants_gen.go", g.genConstants},
		{"enums_gen.go", g.genEnums},
		{"structs_gen.go", g.genStructs},
		{"layout_gen.go", g.genLayout},
		{"descriptors_gen.go", g.genDescriptors},
		{"soc_gen.go", g.genSoCs},
		{"families_gen.go", g.genFamilies},
	}
	out := make(map[string][]byte, len(files))
	for _, file := range files {
		f := jen.NewFile(PackageName)
		for _, line := range s.Banner() {
			f.HeaderComment(line)
		}
		file.gen(f)
		var buf bytes.Buffer
		if err := f.Render(&buf); err != nil {
			return nil, fmt.Errorf("gogen: rendering %s: %w", file.name, err)
		}
		out[path.Join(PackageDir, file.name)] = buf.Bytes()
	}
	if len(g.errs) > 0 {
		// Report in file order, like the schema loader; problems without
		// a position come first.
		sort.SliceStable(g.errs, func(i, j int) bool {
			a, b := g.errs[i].pos, g.errs[j].pos
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
		errs := make(Errors, len(g.errs))
		for i, e := range g.errs {
			errs[i] = e.err
		}
		return nil, errs
	}
	return out, nil
}

// Errors is every problem Generate found, in schema file order.
type Errors []error

func (e Errors) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "\n")
}

type generator struct {
	s *schema.Schema
	// declared maps each package-level Go identifier to what declared it,
	// so two schema names that collide in Go are an error, not a compile
	// failure in the generated package.
	declared map[string]string
	errs     []posError
}

// posError is a problem found while generating, with its schema position.
type posError struct {
	pos schema.Pos
	err error
}

// declare reserves a package-level identifier for what, declared in the
// schema at pos (zero for the emitter's own names), and returns it.
func (g *generator) declare(name, what string, pos schema.Pos) string {
	if prev, dup := g.declared[name]; dup {
		g.errorAt(pos, "Go identifier %s of %s is already used by %s", name, what, prev)
	} else {
		g.declared[name] = what
	}
	return name
}

// fixedNames are the package-level identifiers the package declares whatever
// the schema says: the hand-written files' exported names (a test holds
// this list to them) and the generated ones that do not come from a schema
// name.
var fixedNames = []string{
	"BufferSize", "Capacities", "CapacityError", "CheckCapacity", "DescName", "DescSchemaName",
	"Families", "Family", "FamilyByName", "FamilyForKernel", "FamilyNone", "FamilyStage",
	"FieldInfo", "Fingerprint", "FingerprintHex", "FormatDisplay", "FormatFallback", "InitSlot",
	"KernelKey", "Layout", "LayoutError", "LookupDesc", "Namespace", "NamespaceNone", "Namespaces", "NewLayout",
	"NormalizeSoCName", "Region", "Regions", "RoundUpCapacity", "SameCapacities", "ShortBufferError", "Slot",
	"SlotStride", "SoC", "SoCs", "StageClass", "StageCompute", "StageTrigger", "StageWait", "SystemCounterMHz", "TaskStagePrefixed", "UnsupportedSoCError",
	"Version", "WriteRecord",
}

// fixed returns one of fixedNames.
func (g *generator) fixed(name string) string {
	if !slices.Contains(fixedNames, name) {
		panic("gogen: " + name + " is missing from fixedNames")
	}
	return name
}

// errorAt records a problem that makes the schema inexpressible in Go, at a
// position in the schema file when there is one.
func (g *generator) errorAt(pos schema.Pos, format string, args ...any) {
	where := g.s.File
	if pos.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", where, pos.Line, pos.Col)
	}
	g.errs = append(g.errs, posError{pos, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...))})
}

// errorf records a problem that has no single position in the schema.
func (g *generator) errorf(format string, args ...any) { g.errorAt(schema.Pos{}, format, args...) }

// initialisms are the snake_case words written in capitals in Go names
// (block_id → BlockID), after the Go review comments' list.
var initialisms = map[string]bool{
	"acl": true, "api": true, "ascii": true, "cpu": true, "dma": true, "eof": true, "guid": true,
	"html": true, "http": true, "id": true, "ip": true, "json": true, "npu": true,
	"rpc": true, "sql": true, "tcp": true, "ttl": true, "udp": true, "ui": true,
	"uid": true, "uri": true, "url": true, "utf8": true, "uuid": true, "xml": true,
}

// goFieldName maps a snake_case schema field name to an exported Go name.
func goFieldName(snake string) string {
	var b strings.Builder
	for _, part := range strings.Split(snake, "_") {
		switch {
		case part == "":
		case part == "mhz":
			b.WriteString("MHz")
		case part == "soc":
			b.WriteString("SoC")
		case initialisms[part]:
			b.WriteString(strings.ToUpper(part))
		default:
			b.WriteString(exported(part))
		}
	}
	return b.String()
}

// exported upper-cases the first letter of a schema name (enum values and
// descriptor names may start in lower case).
func exported(name string) string {
	r, n := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[n:]
}

// receiver is the receiver name of a struct's methods: the first letter of
// the last word of its name (CoreHeader → h, ProfileRecord → r).
func receiver(typeName string) string {
	last := 0
	for i, r := range typeName {
		if unicode.IsUpper(r) {
			last = i
		}
	}
	r, _ := utf8.DecodeRuneInString(typeName[last:])
	return string(unicode.ToLower(r))
}

// plural names the function listing an enum's values (CoreType → CoreTypes).
func plural(name string) string {
	switch {
	case strings.HasSuffix(name, "s"), strings.HasSuffix(name, "x"), strings.HasSuffix(name, "sh"), strings.HasSuffix(name, "ch"):
		return name + "es"
	case strings.HasSuffix(name, "y") && len(name) > 1 && !strings.ContainsRune("aeiou", rune(name[len(name)-2])):
		return name[:len(name)-1] + "ies"
	}
	return name + "s"
}

// hex renders an unsigned literal in hexadecimal: desc_ids, bases and
// bit patterns read better that way.
func hex(v uint64) *jen.Statement { return jen.Id(fmt.Sprintf("0x%X", v)) }

// number renders a schema constant: hexadecimal for masks (2^n-1) and round
// 64 KiB multiples, decimal otherwise (MaxRecordsPerCore = 134217712).
func number(v uint64) *jen.Statement {
	if v > 0xFFFF && (v&(v+1) == 0 || v&0xFFFF == 0) {
		return hex(v)
	}
	// An untyped decimal literal: jen.Lit(int(v)) would turn a value past
	// MaxInt64 negative, and jen.Lit(v) would type the constant uint64.
	return jen.Id(strconv.FormatUint(v, 10))
}

// comment renders text as a // comment wrapped at 77 columns; an empty text
// renders nothing.
func comment(text string) *jen.Statement {
	return commentWidth(text, 77)
}

func commentWidth(text string, width int) *jen.Statement {
	text = strings.TrimSpace(text)
	if text == "" {
		return jen.Null()
	}
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len(line)+1+len(word) > width {
				lines = append(lines, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		lines = append(lines, line)
	}
	return jen.Comment(rawComment(lines))
}

// sentence makes a schema doc end like a sentence.
func sentence(doc string) string {
	doc = strings.TrimSpace(doc)
	if doc == "" || strings.HasSuffix(doc, ".") {
		return doc
	}
	return doc + "."
}

// goType is the Go type of a non-pad field: its enum type or a fixed-width
// unsigned integer.
func goType(f *schema.Field) *jen.Statement {
	if f.Enum != nil {
		return jen.Id(f.Enum.Name)
	}
	return uintType(f.Type)
}

func uintType(t schema.FieldType) *jen.Statement {
	switch t {
	case schema.U8:
		return jen.Uint8()
	case schema.U16:
		return jen.Uint16()
	case schema.U32:
		return jen.Uint32()
	}
	return jen.Uint64()
}

// bits is the width in bits of an integer field type.
func bits(t schema.FieldType) int { return t.Width() * 8 }

// rawComment renders lines as // comment lines, blank lines as a bare //.
func rawComment(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("//")
		if l != "" {
			b.WriteString(" " + l)
		}
	}
	return b.String()
}
