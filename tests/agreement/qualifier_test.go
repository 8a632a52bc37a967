package agreement_test

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// qualifierProbe calls every helper of the header through its macros.
const qualifierProbe = "cxx/qualifier_probe.cpp"

// aicoreTag is the ABI tag the stand-in for __aicore__ puts on every
// function it qualifies: it shows in the function's mangled name, template
// members included (compilers ignore a section attribute there, so the
// tag, not the section, is what the check reads).
const aicoreTag = "cycleabi_aicore"

// A qualifierConfig compiles the probe with the qualifier macros
// predefined the way one device build does, played by stand-ins a host
// compiler has, then checks what came out. Each is chosen so that a
// missing qualifier fails it:
//
//   - ascendc/annotate+address_space (clang): __aicore__ is an annotate
//     attribute and __gm__ clang's address_space(1). A pointer into the
//     buffer without CYCLEABI_GM mixes address spaces, a compile error;
//     and the AST (-ast-dump=json) must show the annotation on every
//     function the header declares and CYCLEABI_GM on every pointer to a
//     wire struct or to buffer bytes, whether or not the probe calls it.
//   - ascendc/abi_tag+volatile (every compiler): __aicore__ gives the
//     function an ABI tag, which its mangled name carries, and keeps it
//     (used); __gm__ is volatile, which no pointer conversion drops
//     silently. Every cycleabi function in the object must carry the tag.
//   - cuda/device (clang's CUDA front end, device side, no CUDA SDK
//     needed): CYCLEABI_FN = __device__ __forceinline__ as the header
//     documents; a helper without it is a host function, and calling it
//     from the __global__ kernel is a compile error. Constexpr functions
//     are not made host+device implicitly (-fno-cuda-host-device-constexpr),
//     so they need the qualifier too.
//   - cuda/host+device: CYCLEABI_FN = __host__ __device__ inline, compiled
//     for the device and for the host, with a host caller.
type qualifierConfig struct {
	name      string
	clangOnly bool
	// catches are the macros whose removal this configuration must catch.
	catches []string
	// check compiles the probe at std against the header in includeDir
	// and returns nil when the configuration is satisfied.
	check func(cxx cxxtest.Compiler, std, includeDir, tmp string) error
}

// The stand-in definitions, as -D arguments.
var (
	ascendcAnnotate = []string{
		`-D__aicore__=__attribute__((annotate("cycleabi_aicore")))`,
		`-D__gm__=__attribute__((address_space(1)))`,
		`-DCYCLEABI_FN=__aicore__ inline`,
		`-DCYCLEABI_GM=__gm__`,
		`-DPROBE_KERNEL=__aicore__`,
	}
	ascendcTag = []string{
		`-D__aicore__=__attribute__((abi_tag("` + aicoreTag + `"), used))`,
		`-D__gm__=volatile`,
		`-DCYCLEABI_FN=__aicore__ inline`,
		`-DCYCLEABI_GM=__gm__`,
	}
	cudaDefines = []string{
		`-D__device__=__attribute__((device))`,
		`-D__host__=__attribute__((host))`,
		`-D__global__=__attribute__((global))`,
		`-D__forceinline__=__inline__ __attribute__((always_inline))`,
		`-DPROBE_KERNEL=__global__`,
		`-D__trap()=__builtin_trap()`,
	}
	// cudaFlags compile CUDA with clang alone: no CUDA installation, one
	// GPU architecture, no implicit host+device constexpr.
	cudaFlags = []string{"-x", "cuda", "--cuda-gpu-arch=sm_70", "-nocudainc", "-nocudalib", "-Xclang", "-fno-cuda-host-device-constexpr"}
)

var qualifierConfigs = []qualifierConfig{
	{
		name: "ascendc/annotate+address_space", clangOnly: true, catches: []string{"CYCLEABI_FN", "CYCLEABI_GM"},
		check: func(cxx cxxtest.Compiler, std, includeDir, tmp string) error {
			args := append(append([]string{"-I", includeDir}, ascendcAnnotate...), "-fsyntax-only", "-Xclang", "-ast-dump=json", qualifierProbe)
			out, err := compileOutput(cxx, std, args)
			if err != nil {
				return err
			}
			return checkAST(out)
		},
	},
	{
		name: "ascendc/abi_tag+volatile", catches: []string{"CYCLEABI_FN", "CYCLEABI_GM"},
		check: func(cxx cxxtest.Compiler, std, includeDir, tmp string) error {
			obj := filepath.Join(tmp, "probe.o")
			args := append(append([]string{"-I", includeDir}, ascendcTag...), "-O0", "-c", "-o", obj, qualifierProbe)
			if out, err := cxx.Try(std, args...); err != nil {
				return fmt.Errorf("compile failed: %v\n%s", err, out)
			}
			return checkTags(obj)
		},
	},
	{
		name: "cuda/device", clangOnly: true, catches: []string{"CYCLEABI_FN"},
		check: func(cxx cxxtest.Compiler, std, includeDir, tmp string) error {
			args := append(append(append([]string{"-I", includeDir}, cudaFlags...), cudaDefines...),
				`-DCYCLEABI_FN=__device__ __forceinline__`, "--cuda-device-only", "-fsyntax-only", qualifierProbe)
			if out, err := cxx.Try(std, args...); err != nil {
				return fmt.Errorf("compile failed: %v\n%s", err, out)
			}
			return nil
		},
	},
	{
		name: "cuda/host+device", clangOnly: true, catches: []string{"CYCLEABI_FN"},
		check: func(cxx cxxtest.Compiler, std, includeDir, tmp string) error {
			for _, side := range []string{"--cuda-device-only", "--cuda-host-only"} {
				args := append(append(append([]string{"-I", includeDir}, cudaFlags...), cudaDefines...),
					`-DCYCLEABI_FN=__host__ __device__ inline`, "-DPROBE_HOST_CALLER", side, "-fsyntax-only", qualifierProbe)
				if out, err := cxx.Try(std, args...); err != nil {
					return fmt.Errorf("compile (%s) failed: %v\n%s", side, err, out)
				}
			}
			return nil
		},
	},
}

// compileOutput runs the compiler with the strict flags and returns its
// standard output (the AST dump); a failed compile is an error with its
// diagnostics.
func compileOutput(cxx cxxtest.Compiler, std string, args []string) ([]byte, error) {
	all := append(append([]string{"-std=" + std}, cxxtest.StrictFlags...), args...)
	var stderr bytes.Buffer
	cmd := exec.Command(cxx.Path, all...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("compile failed: %v\n%s", err, stderr.String())
	}
	return out, nil
}

// astNode is the part of clang's JSON AST the checks read.
type astNode struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	IsImplicit bool   `json:"isImplicit"`
	Type       *struct {
		QualType string `json:"qualType"`
	} `json:"type"`
	Inner []*astNode `json:"inner"`
}

// functionKinds are the AST kinds of declarations with a body that
// CYCLEABI_FN must qualify.
var functionKinds = map[string]bool{
	"FunctionDecl": true, "CXXMethodDecl": true, "CXXConstructorDecl": true,
	"CXXDestructorDecl": true, "CXXConversionDecl": true,
}

// bufferPointer matches the type of a pointer to a wire struct or to
// buffer bytes; group 1 is what qualifies the pointee.
var bufferPointer = regexp.MustCompile(`^(.*?)\b(?:cycleabi::)?(?:CoreHeader|ProfileRecord|uint8_t|unsigned char)\s*\*$`)

// checkAST reads clang's JSON AST of the probe and requires, inside
// namespace cycleabi, the __aicore__ annotation on every function and
// CYCLEABI_GM on the type of every declaration and expression that is a
// pointer to a wire struct or to buffer bytes.
func checkAST(dump []byte) error {
	var root astNode
	if err := json.Unmarshal(dump, &root); err != nil {
		return fmt.Errorf("reading clang's AST dump: %v", err)
	}
	var problems []string
	functions := 0
	var walk func(n *astNode, inNamespace bool, function string)
	walk = func(n *astNode, inNamespace bool, function string) {
		if n.Kind == "NamespaceDecl" && n.Name == cxxNamespace {
			inNamespace = true
		}
		if inNamespace && functionKinds[n.Kind] && !n.IsImplicit {
			function = n.Name
			functions++
			annotated := false
			for _, c := range n.Inner {
				annotated = annotated || c.Kind == "AnnotateAttr"
			}
			if !annotated {
				problems = append(problems, fmt.Sprintf("function %s has no __aicore__ (CYCLEABI_FN)", n.Name))
			}
		}
		if inNamespace && n.Type != nil {
			qt := n.Type.QualType
			if m := bufferPointer.FindStringSubmatch(qt); m != nil && !strings.Contains(m[1], "CYCLEABI_GM") && !strings.Contains(m[1], "address_space(1)") {
				problems = append(problems, fmt.Sprintf("in %s: %s %q has type %q, a buffer pointer without __gm__ (CYCLEABI_GM)", function, n.Kind, n.Name, qt))
			}
		}
		for _, c := range n.Inner {
			walk(c, inNamespace, function)
		}
	}
	walk(&root, false, "")
	if functions == 0 {
		problems = append(problems, "no function in namespace cycleabi: the AST walk is broken")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(dedupe(problems), "\n"))
	}
	return nil
}

// checkTags requires every function of namespace cycleabi in the object
// (const members, _ZNK, included) to carry aicoreTag in its mangled name
// (B<length><tag> after the function's name).
func checkTags(obj string) error {
	f, err := elf.Open(obj)
	if err != nil {
		return err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return err
	}
	mangledTag := fmt.Sprintf("B%d%s", len(aicoreTag), aicoreTag)
	var problems []string
	found := 0
	for _, s := range syms {
		inNamespace := strings.HasPrefix(s.Name, "_ZN8cycleabi") || strings.HasPrefix(s.Name, "_ZNK8cycleabi")
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || !inNamespace {
			continue
		}
		found++
		if !strings.Contains(s.Name, mangledTag) {
			problems = append(problems, fmt.Sprintf("function %s has no ABI tag %s: it has no __aicore__ (CYCLEABI_FN)", s.Name, aicoreTag))
		}
	}
	if found == 0 {
		problems = append(problems, "no function of namespace cycleabi in the object: the probe calls nothing")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// configsFor returns the configurations cxx can run.
func configsFor(cxx cxxtest.Compiler) []qualifierConfig {
	var out []qualifierConfig
	for _, c := range qualifierConfigs {
		if !c.clangOnly || cxx.IsClang() {
			out = append(out, c)
		}
	}
	return out
}

// TestQualifierConfigs compiles the probe under every configuration each
// compiler on PATH can run, at c++11 and c++20, and requires each check to
// pass on the committed header.
func TestQualifierConfigs(t *testing.T) {
	compilers := cxxtest.Compilers(t)
	clang := false
	for _, cxx := range compilers {
		clang = clang || cxx.IsClang()
		for _, c := range configsFor(cxx) {
			for _, std := range []string{"c++11", "c++20"} {
				t.Run(cxx.Name+"/"+c.name+"/"+std, func(t *testing.T) {
					t.Parallel()
					assert.NoError(t, c.check(cxx, std, genCpp, t.TempDir()))
				})
			}
		}
	}
	if !clang {
		t.Run("clang-only", func(t *testing.T) {
			t.Skip("no clang++ on PATH: the address-space, AST and CUDA configurations did not run (install clang)")
		})
	}
}

// qualifierSite is one use of a qualifier macro in the header's code.
type qualifierSite struct {
	macro string
	line  int // 1-based
	col   int // byte offset in the line
	text  string
}

var qualifierMacro = regexp.MustCompile(`\bCYCLEABI_(?:FN|GM)\b`)

// qualifierSites finds every use of CYCLEABI_FN and CYCLEABI_GM in the
// header outside comments and preprocessor lines.
func qualifierSites(header string) []qualifierSite {
	var sites []qualifierSite
	for i, line := range strings.Split(header, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "//") || strings.HasPrefix(trimmed, "#") {
			continue
		}
		code := line
		if j := strings.Index(code, "//"); j >= 0 {
			code = code[:j]
		}
		for _, m := range qualifierMacro.FindAllStringIndex(code, -1) {
			sites = append(sites, qualifierSite{macro: code[m[0]:m[1]], line: i + 1, col: m[0], text: trimmed})
		}
	}
	return sites
}

// mutate removes one use of a qualifier: CYCLEABI_FN becomes plain inline
// (the helper loses its device qualifier), CYCLEABI_GM disappears.
func mutate(header string, s qualifierSite) string {
	lines := strings.Split(header, "\n")
	l := lines[s.line-1]
	repl := ""
	if s.macro == "CYCLEABI_FN" {
		repl = "inline"
	}
	lines[s.line-1] = l[:s.col] + repl + l[s.col+len(s.macro):]
	return strings.Join(lines, "\n")
}

// TestQualifierMutants removes each use of CYCLEABI_FN and CYCLEABI_GM from
// a copy of the header in turn and requires every configuration that
// guards that macro to fail on the copy: no qualifier in the header is
// there without a check that notices it missing.
func TestQualifierMutants(t *testing.T) {
	compilers := cxxtest.Compilers(t)
	data, err := os.ReadFile(filepath.Join(genCpp, "cycleabi_abi.h"))
	require.NoError(t, err)
	header := string(data)
	sites := qualifierSites(header)
	counts := map[string]int{}
	for _, s := range sites {
		counts[s.macro]++
	}
	// The header qualifies its helpers and its buffer pointers; a header
	// without either use has lost its qualifiers altogether.
	require.NotEqual(t, 0, counts["CYCLEABI_FN"], "the header uses CYCLEABI_FN")
	require.NotEqual(t, 0, counts["CYCLEABI_GM"], "the header uses CYCLEABI_FN")
	seen := map[string]int{}
	for _, s := range sites {
		key := fmt.Sprintf("%s@L%d", s.macro, s.line)
		seen[key]++
		if seen[key] > 1 {
			key += fmt.Sprintf("#%d", seen[key])
		}
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cycleabi_abi.h"), []byte(mutate(header, s)), 0o644))
			var missed []string
			for _, cxx := range compilers {
				for _, c := range configsFor(cxx) {
					if !contains(c.catches, s.macro) {
						continue
					}
					if err := c.check(cxx, "c++17", dir, t.TempDir()); err == nil {
						missed = append(missed, cxx.Name+" "+c.name)
					}
				}
			}
			if len(missed) > 0 {
				sort.Strings(missed)
				assert.Fail(t, fmt.Sprintf("%s removed from line %d (%s) is not caught by: %s", s.macro, s.line, s.text, strings.Join(missed, ", ")))
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
