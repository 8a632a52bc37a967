package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/megakernel/cycleabi/internal/testkit/short"
)

// root is the repository's root, from this package's directory.
var root = filepath.Join("..", "..")

// pep440Canonical is PEP 440's own regular expression for a canonical
// public version, with the local part (PEP 440, appendix B): a second
// reading of what a version may be, independent of pep440.
var pep440Canonical = regexp.MustCompile(`^([1-9][0-9]*!)?(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*((a|b|rc)(0|[1-9][0-9]*))?(\.post(0|[1-9][0-9]*))?(\.dev(0|[1-9][0-9]*))?(\+[a-z0-9]+(\.[a-z0-9]+)*)?$`)

// TestVersion: the wheel's version is VERSION's PEP 440 form, which PEP
// 440's own expression accepts, and a VERSION that is not a version is
// refused naming the file.
func TestVersion(t *testing.T) {
	got, err := wheelVersion(root)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := buildinfo.PEP440(buildinfo.Version()); got != want || !pep440Canonical.MatchString(got) {
		t.Errorf("wheelVersion = %q, want %q (canonical PEP 440)", got, want)
	}
	for _, v := range []string{"0.6.0-rc.1", "1.0.0-alpha.0", "1.0.0-beta.12"} {
		if p, err := buildinfo.PEP440(v); err != nil || !pep440Canonical.MatchString(p) {
			t.Errorf("PEP440(%q) = %q, %v: not a canonical PEP 440 version", v, p, err)
		}
	}
	bad := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bad, "internal", "buildinfo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, filepath.FromSlash(versionFile)), []byte("v0.5.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := wheelVersion(bad); err == nil || !strings.Contains(err.Error(), "internal/buildinfo/VERSION") {
		t.Errorf("wheelVersion of a VERSION holding v0.5.0 = %q, %v; want an error naming the file", v, err)
	}
}

var (
	buildOnce sync.Once
	wheels    map[string]string // GOARCH -> wheel path
	buildDir  string
	buildErr  error
)

// built builds the wheels once for the tests of this package.
func built(t *testing.T) map[string]string {
	t.Helper()
	short.Skip(t, "builds cycleabi for two platforms")
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "cycleabi-wheel-test-")
		if buildErr != nil {
			return
		}
		var paths []string
		paths, buildErr = build(root, filepath.Join(buildDir, "a"), []string{"amd64", "arm64"})
		wheels = map[string]string{}
		for i, arch := range []string{"amd64", "arm64"} {
			if i < len(paths) {
				wheels[arch] = paths[i]
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return wheels
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// readWheel returns a wheel's files by name.
func readWheel(t *testing.T, path string) (map[string][]byte, map[string]os.FileMode, []string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files, modes := map[string][]byte{}, map[string]os.FileMode{}
	var order []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := files[f.Name]; dup {
			t.Errorf("%s: %s twice", path, f.Name)
		}
		files[f.Name], modes[f.Name] = b, f.Mode()
		order = append(order, f.Name)
	}
	return files, modes, order
}

// TestWheels checks each wheel's contents: the programs for its platform
// (by the ELF header), the Python files as the repository has them,
// RECORD's hashes (recomputed here), the tags; that a second build is
// byte for byte the same; and that the aarch64 programs run under
// qemu-aarch64.
func TestWheels(t *testing.T) {
	w := built(t)
	gen, err := os.ReadFile(filepath.Join(root, "gen", "py", "cycleabi_abi.py"))
	if err != nil {
		t.Fatal(err)
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	for arch, machine := range map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64} {
		path := w[arch]
		base := filepath.Base(path)
		m := regexp.MustCompile(`^cycleabi-([^-]+)-py3-none-([^-]+)\.whl$`).FindStringSubmatch(base)
		if m == nil {
			t.Fatalf("wheel name %q", base)
		}
		version, tags := m[1], strings.Split(m[2], ".")
		if want, _ := buildinfo.PEP440(buildinfo.Version()); version != want {
			t.Errorf("%s: version %q, want VERSION's %q", base, version, want)
		}
		files, modes, order := readWheel(t, path)
		dist := "cycleabi-" + version
		if !bytes.Equal(files["cycleabi_abi.py"], gen) {
			t.Errorf("%s: cycleabi_abi.py is not gen/py/cycleabi_abi.py", base)
		}
		if !bytes.Contains(files["cycleabi/__init__.py"], []byte("import cycleabi_abi")) {
			t.Errorf("%s: cycleabi/__init__.py does not import the generated module", base)
		}
		if hp, err := os.ReadFile(filepath.Join(root, "python", "cycleabi", "hyper_parallel.py")); err != nil || !bytes.Equal(files["cycleabi/hyper_parallel.py"], hp) {
			t.Errorf("%s: cycleabi/hyper_parallel.py is not python/cycleabi/hyper_parallel.py (%v)", base, err)
		}
		// One program: export is a command of cycleabi's.
		var scripts []string
		for _, name := range order {
			if script, ok := strings.CutPrefix(name, dist+".data/scripts/"); ok {
				scripts = append(scripts, script)
			}
		}
		if !slices.Equal(scripts, []string{"cycleabi"}) {
			t.Errorf("%s: scripts %v, want [cycleabi]", base, scripts)
		}
		for _, prog := range scripts {
			name := dist + ".data/scripts/" + prog
			f, err := elf.NewFile(bytes.NewReader(files[name]))
			if err != nil {
				t.Errorf("%s: %s: %v", base, name, err)
				continue
			}
			if f.Machine != machine {
				t.Errorf("%s: %s is for %v, want %v", base, name, f.Machine, machine)
			}
			if f.FileHeader.Class != elf.ELFCLASS64 || len(f.Progs) == 0 {
				t.Errorf("%s: %s is not a 64-bit program", base, name)
			}
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP {
					t.Errorf("%s: %s names an interpreter: not statically linked", base, name)
				}
			}
			if modes[name]&0o111 == 0 {
				t.Errorf("%s: %s has mode %v, not executable", base, name, modes[name])
			}
		}
		wheelFile := string(files[dist+".dist-info/WHEEL"])
		for _, tag := range tags {
			if !strings.Contains(wheelFile, "\nTag: py3-none-"+tag+"\n") {
				t.Errorf("%s: WHEEL lacks Tag: py3-none-%s:\n%s", base, tag, wheelFile)
			}
		}
		if !strings.Contains(wheelFile, "Root-Is-Purelib: false\n") {
			t.Errorf("%s: WHEEL is not a platform wheel's:\n%s", base, wheelFile)
		}
		meta := string(files[dist+".dist-info/METADATA"])
		for _, line := range []string{"Metadata-Version: 2.4", "Version: " + version, "License-Expression: Apache-2.0", "License-File: LICENSE"} {
			if !strings.Contains("\n"+meta, "\n"+line+"\n") {
				t.Errorf("%s: METADATA lacks %q:\n%s", base, line, meta)
			}
		}
		if !bytes.Equal(files[dist+".dist-info/licenses/LICENSE"], license) {
			t.Errorf("%s: .dist-info/licenses/LICENSE is not the repository's LICENSE", base)
		}
		checkRecord(t, base, dist, files, order)
	}
	// A second build, elsewhere, is the same bytes.
	again, err := build(root, filepath.Join(buildDir, "b"), []string{"amd64", "arm64"})
	if err != nil {
		t.Fatal(err)
	}
	for i, arch := range []string{"amd64", "arm64"} {
		a, _ := os.ReadFile(w[arch])
		b, _ := os.ReadFile(again[i])
		if filepath.Base(w[arch]) != filepath.Base(again[i]) || !bytes.Equal(a, b) {
			t.Errorf("two builds of the %s wheel differ: %s (%d bytes), %s (%d bytes)", arch, w[arch], len(a), again[i], len(b))
		}
	}
	runUnderQemu(t, w["arm64"])
}

// checkRecord checks RECORD against the files: every other file listed
// once with its sha256 (URL-safe base64, no padding) and size, RECORD
// itself last and without either.
func checkRecord(t *testing.T, base, dist string, files map[string][]byte, order []string) {
	t.Helper()
	recordName := dist + ".dist-info/RECORD"
	if order[len(order)-1] != recordName {
		t.Errorf("%s: last entry %s, want %s", base, order[len(order)-1], recordName)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(string(files[recordName]), "\n"), "\n") {
		parts := strings.Split(line, ",")
		if len(parts) != 3 {
			t.Errorf("%s: RECORD line %q", base, line)
			continue
		}
		listed[parts[0]] = true
		if parts[0] == recordName {
			if parts[1] != "" || parts[2] != "" {
				t.Errorf("%s: RECORD's own line %q", base, line)
			}
			continue
		}
		data, ok := files[parts[0]]
		if !ok {
			t.Errorf("%s: RECORD lists %s, not in the wheel", base, parts[0])
			continue
		}
		sum := sha256.Sum256(data)
		if want := "sha256=" + base64.URLEncoding.WithPadding(base64.NoPadding).EncodeToString(sum[:]); parts[1] != want {
			t.Errorf("%s: RECORD's hash of %s %s, want %s", base, parts[0], parts[1], want)
		}
		if parts[2] != strconv.Itoa(len(data)) {
			t.Errorf("%s: RECORD's size of %s %s, want %d", base, parts[0], parts[2], len(data))
		}
	}
	for name := range files {
		if !listed[name] {
			t.Errorf("%s: %s is not in RECORD", base, name)
		}
	}
}

// requireQemu turns "no qemu-aarch64" from a skip into a failure (make ci).
const requireQemu = "CYCLEABI_REQUIRE_QEMU"

// runUnderQemu runs the aarch64 wheel's cycleabi --version under
// qemu-aarch64.
func runUnderQemu(t *testing.T, wheel string) {
	t.Helper()
	qemu := ""
	for _, name := range []string{"qemu-aarch64", "qemu-aarch64-static"} {
		if p, err := exec.LookPath(name); err == nil {
			qemu = p
			break
		}
	}
	if runtime.GOARCH == "arm64" {
		qemu = "" // runs as it is
	} else if qemu == "" {
		if os.Getenv(requireQemu) != "" {
			t.Fatalf("neither qemu-aarch64 nor qemu-aarch64-static on PATH and %s is set (apt-get install qemu-user)", requireQemu)
		}
		t.Logf("SKIP running the aarch64 programs: no qemu-aarch64 on PATH (apt-get install qemu-user; %s makes this a failure)", requireQemu)
		return
	}
	files, _, _ := readWheel(t, wheel)
	dir := t.TempDir()
	for name, data := range files {
		if strings.HasSuffix(name, ".data/scripts/cycleabi") {
			prog := filepath.Join(dir, "cycleabi")
			if err := os.WriteFile(prog, data, 0o755); err != nil {
				t.Fatal(err)
			}
			args := []string{prog, "--version"}
			if qemu != "" {
				args = append([]string{qemu}, args...)
			}
			out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "cycleabi version "+buildinfo.Version()+"\n") {
				t.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
			}
			t.Logf("%s: %s", strings.Join(args, " "), strings.TrimSpace(string(out)))
			return
		}
	}
	t.Errorf("%s holds no cycleabi", wheel)
}
