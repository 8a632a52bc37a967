// Command release checks that the tree is a release and builds its wheels
// (make release; docs/development.md, "Releasing"):
//
//	go run ./scripts/release [-o dist]
//
// It refuses, exit 1, naming what to fix: a tree with uncommitted or
// untracked files (git status); a VERSION (internal/buildinfo/VERSION)
// that CHANGELOG.md's newest release is not, or whose entry names another
// ABI than abi/schema.yaml's version and fingerprint, or an Unreleased
// section that still holds entries; generated files that are not what
// abigen makes of the schema at this version (their banners name it); a
// tag vVERSION that names another commit. Then it builds the wheels
// (scripts/wheel) into the folder -o names and prints the tag to push
// when HEAD has none yet. It pushes, tags and uploads nothing.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/buildinfo"
)

func main() {
	out := flag.String("o", "dist", "directory the wheels are written to")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/release [-o dist]")
		os.Exit(2)
	}
	if err := release(".", *out, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// versionFile holds the version, from the repository's root.
const versionFile = "internal/buildinfo/VERSION"

// release checks the tree at root (checkTree), builds its wheels into out
// and says how to tag the release.
func release(root, out string, stdout, stderr io.Writer) error {
	version, err := checkTree(root)
	if err != nil {
		return err
	}
	tagged, err := checkTag(root, "v"+version)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "release: %s: the tree is clean, %s has its entry (%s), gen/ is current\n", version, changelogFile, abiID{abi.Version, abi.FingerprintHex})
	cmd := exec.Command("go", "run", "./scripts/wheel", "-o", out)
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go run ./scripts/wheel -o %s: %v", out, err)
	}
	if !tagged {
		fmt.Fprintf(stdout, "release: tag it: git tag -a v%[1]s -m 'cycleabi %[1]s' && git push origin v%[1]s\n", version)
	}
	return nil
}

// checkTree returns the version of the tree at root once the tree is
// clean, CHANGELOG.md has the version's entry with the schema's ABI and
// nothing under Unreleased, and gen/ is what abigen generates.
func checkTree(root string) (string, error) {
	if err := checkClean(root); err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(versionFile)))
	if err != nil {
		return "", err
	}
	version, err := buildinfo.Parse(string(data))
	if err != nil {
		return "", fmt.Errorf("%s: %v", versionFile, err)
	}
	if version != buildinfo.Version() {
		// go run builds this program from root; another root is another tree.
		return "", fmt.Errorf("%s says %s, this program was built at %s: run it in the tree it checks", versionFile, version, buildinfo.Version())
	}
	changelog, err := os.ReadFile(filepath.Join(root, changelogFile))
	if err != nil {
		return "", err
	}
	if err := checkChangelog(string(changelog), version, abiID{abi.Version, abi.FingerprintHex}, true); err != nil {
		return "", err
	}
	cmd := exec.Command("go", "run", "./cmd/abigen", "-check")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go run ./cmd/abigen -check: %v: gen/ is not what abigen %s generates; run go run ./cmd/abigen and commit\n%s", err, version, out)
	}
	return version, nil
}

// checkClean fails when the tree at root has changes git has not
// committed, untracked files among them (ignored files aside: build/,
// dist/).
func checkClean(root string) error {
	status, err := git(root, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return err
	}
	if status != "" {
		return fmt.Errorf("the tree is not clean; commit or remove these first (git status):\n%s", status)
	}
	return nil
}

// checkTag reports whether tag names HEAD, and fails when it names
// another commit.
func checkTag(root, tag string) (bool, error) {
	if _, err := git(root, "rev-parse", "-q", "--verify", "refs/tags/"+tag); err != nil {
		return false, nil // no such tag
	}
	at, err := git(root, "rev-parse", tag+"^{commit}")
	if err != nil {
		return false, err
	}
	head, err := git(root, "rev-parse", "HEAD")
	if err != nil {
		return false, err
	}
	if at != head {
		return false, fmt.Errorf("tag %s names commit %s, not HEAD %s: a version is released once; bump %s (and the changelog) for a new release", tag, short(at), short(head), versionFile)
	}
	return true, nil
}

// git runs git in root and returns its output, trimmed.
func git(root string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
