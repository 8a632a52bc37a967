package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitRepo makes a repository in a temporary folder with one commit of
// VERSION and returns the folder.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "VERSION"), []byte("0.5.0\n"), 0o644))
	run(t, dir, "init", "-q")
	run(t, dir, "add", "VERSION")
	run(t, dir, "commit", "-q", "-m", "one")
	return dir
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "tag.gpgSign=false", "-c", "commit.gpgSign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoErrorf(t, err, "git %s\n%s", strings.Join(args, " "), out)
}

// TestCheckClean: a release is refused while the tree has a change or an
// untracked file, and a file .gitignore names is no change.
func TestCheckClean(t *testing.T) {
	dir := gitRepo(t)
	require.NoError(t, checkClean(dir), "a clean tree")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.txt"), nil, 0o644))
	err := checkClean(dir)
	require.ErrorContains(t, err, "not clean", "an untracked file")
	assert.Contains(t, err.Error(), "new.txt", "an untracked file")
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("new.txt\n"), 0o644))
	assert.NoError(t, checkClean(dir), "an ignored file")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "VERSION"), []byte("0.6.0\n"), 0o644))
	assert.ErrorContains(t, checkClean(dir), "VERSION", "a changed file: want the tree not clean, naming VERSION")
	assert.Error(t, checkClean(t.TempDir()), "a folder that is no repository: no error")
}

// TestCheckTag: no tag yet is fine (release says how to tag), a tag on
// HEAD is the release itself, a tag on another commit is refused.
func TestCheckTag(t *testing.T) {
	dir := gitRepo(t)
	tagged, err := checkTag(dir, "v0.5.0")
	assert.Falsef(t, tagged, "no tag: %v", tagged)
	require.NoErrorf(t, err, "no tag: %v", tagged)
	run(t, dir, "tag", "-a", "v0.5.0", "-m", "cycleabi 0.5.0")
	tagged, err = checkTag(dir, "v0.5.0")
	assert.True(t, tagged, "a tag on HEAD: tagged")
	assert.NoError(t, err, "a tag on HEAD")
	run(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	tagged, err = checkTag(dir, "v0.5.0")
	assert.ErrorContainsf(t, err, "not HEAD", "a tag on the commit before (tagged %v)", tagged)
}
