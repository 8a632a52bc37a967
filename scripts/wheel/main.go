// Command wheel builds cycleabi's platform wheels (make wheel): for each
// of linux x86_64 and aarch64 one wheel holding the statically linked
// cycleabi of that platform as the wheel's script (pip puts it on the
// environment's PATH), the generated Python module
// gen/py/cycleabi_abi.py, and the package python/cycleabi (import
// cycleabi: the module's names, analyze and run). See docs/python.md.
//
//	go run ./scripts/wheel [-o dist] [-arch amd64,arm64]
//
// Everything is local: go build (CGO_ENABLED=0, -trimpath) and
// archive/zip; no network, no Python. The version is the repository's
// internal/buildinfo/VERSION, which the programs embed (what `cycleabi
// --version` prints), in its PEP 440 form. The metadata names the licence
// (License-Expression: Apache-2.0) and each wheel holds the repository's
// LICENSE. Every zip entry has the same time and a fixed mode, so two
// builds of one commit are byte for byte the same.
package main

import (
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/megakernel/cycleabi/internal/outfile"
)

// platform is a wheel's target.
type platform struct {
	goarch  string
	tag     string      // the platform tags, compressed (PEP 425)
	machine elf.Machine // the ELF e_machine of its programs
}

// platforms are the wheels make wheel builds. The programs are static
// (CGO_ENABLED=0) and need no libc: the oldest manylinux tag pip knows,
// and musllinux, both hold.
var platforms = map[string]platform{
	"amd64": {"amd64", "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64", elf.EM_X86_64},
	"arm64": {"arm64", "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64", elf.EM_AARCH64},
}

// programs are the commands each wheel carries as scripts.
var programs = []string{"cycleabi"}

const summary = "The MegaKernel cycle-trace ABI of Ascend NPUs: the cycleabi program and its Python/NumPy module"

// description is the wheel's long description (METADATA's body).
const description = `# cycleabi

The host side of the MegaKernel profiling buffer: every Cube (AIC) and
Vector (AIV) core of an Ascend NPU appends 32-byte cycle records into its
own slot of one device buffer. This wheel installs

- the program cycleabi (validate, decode to Perfetto, merge, analyze, diff,
  report, export to Parquet), on the environment's PATH;
- import cycleabi: read_capture (a capture into NumPy), the ABI's names
  and kernel families, analyze (the figures of cycleabi analyze as a dict)
  and run (any command).

See docs/python.md in the cycleabi repository.
`

func main() {
	out := flag.String("o", "dist", "directory the wheels are written to")
	arches := flag.String("arch", "amd64,arm64", "GOARCH of each wheel, comma-separated: amd64, arm64")
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/wheel [-o dist] [-arch amd64,arm64] [-root .]")
		os.Exit(2)
	}
	names, err := build(*root, *out, strings.Split(*arches, ","))
	if err != nil {
		fmt.Fprintln(os.Stderr, "wheel:", err)
		os.Exit(1)
	}
	for _, n := range names {
		fmt.Println(n)
	}
}

// build writes a wheel per GOARCH in arches into out and returns their
// paths.
func build(root, out string, arches []string) ([]string, error) {
	tmp, err := os.MkdirTemp("", "cycleabi-wheel-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	pkg, err := packageFiles(root)
	if err != nil {
		return nil, err
	}
	license, err := os.ReadFile(filepath.Join(root, licenseFile))
	if err != nil {
		return nil, err
	}
	version, err := wheelVersion(root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, arch := range arches {
		p, ok := platforms[arch]
		if !ok {
			return nil, fmt.Errorf("no wheel for GOARCH %q (amd64, arm64)", arch)
		}
		fmt.Fprintf(os.Stderr, "wheel: building the programs for linux/%s (a few minutes from a cold build cache)\n", arch)
		bins, err := compile(root, filepath.Join(tmp, arch), p)
		if err != nil {
			return nil, err
		}
		path, err := writeWheel(out, version, p, pkg, license, bins)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "wheel: wrote %s\n", path)
		paths = append(paths, path)
	}
	return paths, nil
}

// versionFile is the file that holds cycleabi's version, which the
// programs embed (package buildinfo).
const versionFile = "internal/buildinfo/VERSION"

// wheelVersion is the PEP 440 form of the version in root's VERSION file:
// the version the programs built from root print.
func wheelVersion(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(versionFile)))
	if err != nil {
		return "", err
	}
	v, err := buildinfo.Parse(string(data))
	if err != nil {
		return "", fmt.Errorf("%s: %v", versionFile, err)
	}
	return buildinfo.PEP440(v)
}

// compile builds the programs for p into dir and returns them.
func compile(root, dir string, p platform) ([]entry, error) {
	args := []string{"build", "-trimpath", "-buildvcs=auto", "-o", dir + string(filepath.Separator)}
	for _, name := range programs {
		args = append(args, "./cmd/"+name)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+p.goarch, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go %s (GOARCH=%s): %v\n%s", strings.Join(args, " "), p.goarch, err, out)
	}
	var bins []entry
	for _, name := range programs {
		path := filepath.Join(dir, name)
		if err := checkELF(path, p.machine); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		bins = append(bins, entry{name: name, data: data, exec: true})
	}
	return bins, nil
}

// checkELF fails unless path is an ELF program for machine.
func checkELF(path string, machine elf.Machine) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.Machine != machine {
		return fmt.Errorf("%s is for %v, not %v", path, f.Machine, machine)
	}
	return nil
}

// packageFiles are the wheel's Python files, at their paths in the wheel:
// the generated module, top-level as gen/py has it, and the package
// (cycleabi, with cycleabi.hyper_parallel).
func packageFiles(root string) ([]entry, error) {
	var entries []entry
	for _, f := range []struct{ src, dst string }{
		{"python/cycleabi/__init__.py", "cycleabi/__init__.py"},
		{"python/cycleabi/hyper_parallel.py", "cycleabi/hyper_parallel.py"},
		{"gen/py/cycleabi_abi.py", "cycleabi_abi.py"},
	} {
		data, err := os.ReadFile(filepath.Join(root, f.src))
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{name: f.dst, data: data})
	}
	return entries, nil
}

// licenseFile is the repository's licence file, which every wheel holds
// (PEP 639: under the .dist-info's licenses/, named by License-File), and
// license its SPDX expression.
const (
	licenseFile = "LICENSE"
	license     = "Apache-2.0"
)

// writeWheel writes the wheel of version for p into out and returns its
// path.
func writeWheel(out, version string, p platform, pkg []entry, licenseData []byte, bins []entry) (string, error) {
	dist := "cycleabi-" + version
	info := dist + ".dist-info/"
	entries := append([]entry(nil), pkg...)
	for _, b := range bins {
		entries = append(entries, entry{name: dist + ".data/scripts/" + b.name, data: b.data, exec: true})
	}
	var meta bytes.Buffer
	// Metadata 2.4 is the first with License-Expression (PEP 639).
	fmt.Fprintf(&meta, "Metadata-Version: 2.4\nName: cycleabi\nVersion: %s\nSummary: %s\n", version, summary)
	fmt.Fprintf(&meta, "License-Expression: %s\nLicense-File: %s\n", license, licenseFile)
	fmt.Fprintf(&meta, "Requires-Python: >=3.8\nRequires-Dist: numpy>=1.21\n")
	fmt.Fprintf(&meta, "Description-Content-Type: text/markdown\n\n%s", description)
	entries = append(entries, entry{name: info + "METADATA", data: meta.Bytes()})
	var wheel bytes.Buffer
	fmt.Fprintf(&wheel, "Wheel-Version: 1.0\nGenerator: cycleabi scripts/wheel\nRoot-Is-Purelib: false\n")
	for _, t := range strings.Split(p.tag, ".") {
		fmt.Fprintf(&wheel, "Tag: py3-none-%s\n", t)
	}
	entries = append(entries, entry{name: info + "WHEEL", data: wheel.Bytes()})
	entries = append(entries, entry{name: info + "licenses/" + licenseFile, data: licenseData})
	entries = append(entries, entry{name: info + "RECORD", data: record(entries, info+"RECORD")})
	var zipped bytes.Buffer
	if err := writeZip(&zipped, entries); err != nil {
		return "", err
	}
	// The file name's version has - as _ (none in a PEP 440 version).
	path := filepath.Join(out, dist+"-py3-none-"+p.tag+".whl")
	if err := outfile.WriteFile(path, zipped.Bytes()); err != nil {
		return "", err
	}
	return path, nil
}
