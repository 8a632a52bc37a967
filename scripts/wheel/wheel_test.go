package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/base64"
	"fmt"
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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	want, _ := buildinfo.PEP440(buildinfo.Version())
	require.Equal(t, want, got, "wheelVersion")
	assert.Regexp(t, pep440Canonical, got, "wheelVersion")
	for _, v := range []string{"0.6.0-rc.1", "1.0.0-alpha.0", "1.0.0-beta.12"} {
		p, err := buildinfo.PEP440(v)
		if assert.NoErrorf(t, err, "PEP440(%q)", v) {
			assert.Regexpf(t, pep440Canonical, p, "PEP440(%q): not a canonical PEP 440 version", v)
		}
	}
	bad := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(bad, "internal", "buildinfo"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, filepath.FromSlash(versionFile)), []byte("v0.5.0\n"), 0o644))
	v, err := wheelVersion(bad)
	assert.ErrorContainsf(t, err, "internal/buildinfo/VERSION", "wheelVersion of a VERSION holding v0.5.0 = %q: want an error naming the file", v)
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
	require.NoError(t, buildErr)
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
	require.NoError(t, err)
	defer zr.Close()
	files, modes := map[string][]byte{}, map[string]os.FileMode{}
	var order []string
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		rc.Close()
		require.NoError(t, err)
		_, dup := files[f.Name]
		assert.Falsef(t, dup, "%s: %s twice", path, f.Name)
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
	require.NoError(t, err)
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	require.NoError(t, err)
	for arch, machine := range map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64} {
		path := w[arch]
		base := filepath.Base(path)
		m := regexp.MustCompile(`^cycleabi-([^-]+)-py3-none-([^-]+)\.whl$`).FindStringSubmatch(base)
		require.NotNilf(t, m, "wheel name %q", base)
		version, tags := m[1], strings.Split(m[2], ".")
		want, _ := buildinfo.PEP440(buildinfo.Version())
		assert.Equalf(t, want, version, "%s: version", base)
		files, modes, order := readWheel(t, path)
		dist := "cycleabi-" + version
		assert.Equalf(t, []byte(gen), []byte(files["cycleabi_abi.py"]), "%s: cycleabi_abi.py is not gen/py/cycleabi_abi.py", base)
		assert.Containsf(t, string(files["cycleabi/__init__.py"]), string([]byte("import cycleabi_abi")), "%s: cycleabi/__init__.py does not import the generated module", base)
		hp, err := os.ReadFile(filepath.Join(root, "python", "cycleabi", "hyper_parallel.py"))
		if assert.NoErrorf(t, err, "%s: python/cycleabi/hyper_parallel.py", base) {
			assert.Truef(t, bytes.Equal(files["cycleabi/hyper_parallel.py"], hp), "%s: cycleabi/hyper_parallel.py is not python/cycleabi/hyper_parallel.py", base)
		}
		// One program: export is a command of cycleabi's.
		var scripts []string
		for _, name := range order {
			if script, ok := strings.CutPrefix(name, dist+".data/scripts/"); ok {
				scripts = append(scripts, script)
			}
		}
		assert.Truef(t, slices.Equal(scripts, []string{"cycleabi"}), "%s: scripts %v, want [cycleabi]", base, scripts)
		for _, prog := range scripts {
			name := dist + ".data/scripts/" + prog
			f, err := elf.NewFile(bytes.NewReader(files[name]))
			if !assert.NoErrorf(t, err, "%s: %s", base, name) {
				continue
			}
			assert.Equalf(t, machine, f.Machine, "%s: %s is for", base, name)
			require.Equalf(t, elf.Class(elf.ELFCLASS64), f.FileHeader.Class, "%s: %s is not a 64-bit program", base, name)
			require.NotEmptyf(t, f.Progs, "%s: %s is not a 64-bit program", base, name)
			for _, p := range f.Progs {
				assert.NotEqualf(t, elf.ProgType(elf.PT_INTERP), p.Type, "%s: %s names an interpreter: not statically linked", base, name)
			}
			assert.NotEqualf(t, os.FileMode(0), modes[name]&0o111, "%s: %s has mode %v, not executable", base, name, modes[name])
		}
		wheelFile := string(files[dist+".dist-info/WHEEL"])
		for _, tag := range tags {
			assert.Containsf(t, wheelFile, "\nTag: py3-none-"+tag+"\n", "%s: WHEEL lacks Tag: py3-none-%s", base, tag)
		}
		assert.Containsf(t, wheelFile, "Root-Is-Purelib: false\n", "%s: WHEEL is not a platform wheel's", base)
		meta := string(files[dist+".dist-info/METADATA"])
		for _, line := range []string{"Metadata-Version: 2.4", "Version: " + version, "License-Expression: Apache-2.0", "License-File: LICENSE"} {
			assert.Containsf(t, "\n"+meta, "\n"+line+"\n", "%s: METADATA lacks %q:\n%s", base, line, meta)
		}
		assert.Equalf(t, []byte(license), []byte(files[dist+".dist-info/licenses/LICENSE"]), "%s: .dist-info/licenses/LICENSE is not the repository's LICENSE", base)
		checkRecord(t, base, dist, files, order)
	}
	// A second build, elsewhere, is the same bytes.
	again, err := build(root, filepath.Join(buildDir, "b"), []string{"amd64", "arm64"})
	require.NoError(t, err)
	for i, arch := range []string{"amd64", "arm64"} {
		a, _ := os.ReadFile(w[arch])
		b, _ := os.ReadFile(again[i])
		assert.Equalf(t, filepath.Base(w[arch]), filepath.Base(again[i]), "two builds of the %s wheel: their names", arch)
		// True, not Equal: a diff of two wheels' bytes helps no one.
		assert.Truef(t, bytes.Equal(a, b), "two builds of the %s wheel differ: %s (%d bytes), %s (%d bytes)", arch, w[arch], len(a), again[i], len(b))
	}
	runUnderQemu(t, w["arm64"])
}

// checkRecord checks RECORD against the files: every other file listed
// once with its sha256 (URL-safe base64, no padding) and size, RECORD
// itself last and without either.
func checkRecord(t *testing.T, base, dist string, files map[string][]byte, order []string) {
	t.Helper()
	recordName := dist + ".dist-info/RECORD"
	assert.Equalf(t, recordName, order[len(order)-1], "%s: last entry", base)
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(string(files[recordName]), "\n"), "\n") {
		parts := strings.Split(line, ",")
		if !assert.Lenf(t, parts, 3, "%s: RECORD line %q", base, line) {
			continue
		}
		listed[parts[0]] = true
		if parts[0] == recordName {
			require.Emptyf(t, parts[1], "%s: RECORD's own line %q", base, line)
			assert.Emptyf(t, parts[2], "%s: RECORD's own line %q", base, line)
			continue
		}
		data, ok := files[parts[0]]
		if !assert.Truef(t, ok, "%s: RECORD lists %s, not in the wheel", base, parts[0]) {
			continue
		}
		sum := sha256.Sum256(data)
		assert.Equalf(t, "sha256="+base64.URLEncoding.WithPadding(base64.NoPadding).EncodeToString(sum[:]), parts[1], "%s: RECORD's hash of %s", base, parts[0])
		assert.Equalf(t, strconv.Itoa(len(data)), parts[2], "%s: RECORD's size of %s", base, parts[0])
	}
	for name := range files {
		assert.Truef(t, listed[name], "%s: %s is not in RECORD", base, name)
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
		require.Emptyf(t, os.Getenv(requireQemu), "neither qemu-aarch64 nor qemu-aarch64-static on PATH and %s is set (apt-get install qemu-user)", requireQemu)
		t.Logf("SKIP running the aarch64 programs: no qemu-aarch64 on PATH (apt-get install qemu-user; %s makes this a failure)", requireQemu)
		return
	}
	files, _, _ := readWheel(t, wheel)
	dir := t.TempDir()
	for name, data := range files {
		if strings.HasSuffix(name, ".data/scripts/cycleabi") {
			prog := filepath.Join(dir, "cycleabi")
			require.NoError(t, os.WriteFile(prog, data, 0o755))
			args := []string{prog, "--version"}
			if qemu != "" {
				args = append([]string{qemu}, args...)
			}
			out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
			assert.NoErrorf(t, err, "%s\n%s", strings.Join(args, " "), out)
			assert.Truef(t, strings.HasPrefix(string(out), "cycleabi version "+buildinfo.Version()+"\n"), "%s: want cycleabi version %s\n%s", strings.Join(args, " "), buildinfo.Version(), out)
			t.Logf("%s: %s", strings.Join(args, " "), strings.TrimSpace(string(out)))
			return
		}
	}
	assert.Fail(t, fmt.Sprintf("%s holds no cycleabi", wheel))
}
