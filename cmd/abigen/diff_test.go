package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemaVersion is the version abi/schema.yaml declares, so the edits
// below follow the schema when a change raises it.
var schemaVersion = func() int {
	data, _ := os.ReadFile("../../abi/schema.yaml")
	m := regexp.MustCompile(`(?m)^version: (\d+)$`).FindSubmatch(data)
	if m == nil {
		return 0 // diffSchemas reports the missing line
	}
	v, _ := strconv.Atoi(string(m[1]))
	return v
}()

// diffSchemas writes the real schema and edited copies of it to a temporary
// folder; each edit replaces text that must occur exactly once.
func diffSchemas(t *testing.T, edits map[string][][2]string) map[string]string {
	t.Helper()
	base, err := os.ReadFile("../../abi/schema.yaml")
	require.NoError(t, err)
	dir := t.TempDir()
	paths := map[string]string{}
	for name, reps := range edits {
		text := string(base)
		for _, r := range reps {
			require.Equalf(t, 1, strings.Count(text, r[0]), "%s: %q occurs", name, r[0])
			text = strings.Replace(text, r[0], r[1], 1)
		}
		paths[name] = filepath.Join(dir, name+".yaml")
		require.NoError(t, os.WriteFile(paths[name], []byte(text), 0o644))
	}
	return paths
}

var (
	versionLine  = fmt.Sprintf("version: %d\n", schemaVersion)
	raiseVersion = [2]string{versionLine, fmt.Sprintf("version: %d\n", schemaVersion+1)}
	renumberType = [2]string{"{name: MatMul, value: 103,", "{name: MatMul, value: 120,"}
	editSoCDoc   = [2]string{"doc: Ascend 950 series.", "doc: Ascend 950 (Atlas 350)."}
	renameStage  = [2]string{"name: WaitDependency,", "name: WaitEvent,"}
	unknownKey   = [2]string{versionLine, versionLine + "versoin: 2\n"}
)

func runDiffArgs(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = runDiff(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunDiffExitCodes(t *testing.T) {
	p := diffSchemas(t, map[string][][2]string{
		"base":            nil,
		"breaking":        {renumberType},
		"breaking-raised": {renumberType, raiseVersion},
		"display":         {renameStage},
		"compatible":      {editSoCDoc},
		"unknown-key":     {unknownKey},
		"two-errors":      {unknownKey, {"size: 64\n", "size: 60\n"}},
		"raised-only":     {raiseVersion},
		"display-raised":  {renameStage, raiseVersion},
	})
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings of stdout
		stderr []string // substrings of stderr
	}{
		{"identical", []string{p["base"], p["base"]}, 0, []string{"no changes.", "OK: no breaking change."}, nil},
		{"breaking, same version", []string{p["base"], p["breaking"]}, 1,
			[]string{"breaking-wire enum-value-renumbered enums.TaskType.MatMul", fmt.Sprintf("FAIL: breaking changes need the version raised above %d", schemaVersion)}, nil},
		{"breaking, version raised", []string{p["base"], p["breaking-raised"]}, 0,
			[]string{"enum-value-renumbered", fmt.Sprintf("OK: breaking changes, and the version was raised (%d -> %d).", schemaVersion, schemaVersion+1)}, nil},
		{"display-breaking, same version", []string{p["base"], p["display"]}, 1, []string{"breaking-display stage-renamed"}, nil},
		{"display-breaking, version raised", []string{p["base"], p["display-raised"]}, 0, []string{"breaking-display stage-renamed"}, nil},
		{"compatible only", []string{p["base"], p["compatible"]}, 0, []string{"compatible doc-changed socs.ascend950", "OK: no breaking change."}, nil},
		{"version raised only", []string{p["base"], p["raised-only"]}, 0, []string{"compatible version-raised"}, nil},
		{"version lowered", []string{p["raised-only"], p["base"]}, 1, []string{"breaking-wire version-lowered"}, nil},
		{"flags after the files", []string{p["base"], p["breaking"], "-format", "json"}, 1, []string{`"rule": "enum-value-renumbered"`, `"ok": false`}, nil},
		{"double-dash flag", []string{"--format=json", p["base"], p["base"]}, 0, []string{`"changes": []`}, nil},
		{"bad schema", []string{p["base"], p["unknown-key"]}, 2, nil, []string{`unknown-key.yaml:15:1: versoin: unknown key "versoin"`}},
		{"every schema error, both sides", []string{p["two-errors"], p["two-errors"]}, 2, nil,
			[]string{`two-errors.yaml:15:1: versoin: unknown key "versoin"`, "structs.CoreHeader.size: size 60 disagrees with fields ending at 64"}},
		{"missing file", []string{p["base"], "no/such/schema.yaml"}, 2, nil, []string{"no/such/schema.yaml: schema file not found"}},
		{"one argument", []string{p["base"]}, 2, nil, []string{"want OLD and NEW, got 1 argument(s)", "usage: abigen diff"}},
		{"three arguments", []string{p["base"], p["base"], p["base"]}, 2, nil, []string{"got 3 argument(s)"}},
		{"bad format", []string{"-format", "yaml", p["base"], p["base"]}, 2, nil, []string{`-format "yaml": want text or json`}},
		{"unknown flag", []string{"-strict", p["base"], p["base"]}, 2, nil, []string{"flag provided but not defined: -strict"}},
		{"help", []string{"-h"}, 0, nil, []string{"usage: abigen diff"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runDiffArgs(tc.args...)
			assert.Equalf(t, tc.code, code, "exit\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			for _, want := range tc.stdout {
				assert.Contains(t, stdout, want, "stdout lacks")
			}
			for _, want := range tc.stderr {
				assert.Contains(t, stderr, want, "stderr lacks")
			}
			assert.Falsef(t, tc.code == 2 && stdout != "", "a usage or load error wrote a report:\n%s", stdout)
		})
	}
}

func TestRunDiffJSON(t *testing.T) {
	p := diffSchemas(t, map[string][][2]string{"base": nil, "breaking": {renumberType}})
	code, stdout, _ := runDiffArgs("-format", "json", p["base"], p["breaking"])
	require.Equal(t, 1, code, "exit")
	var r struct {
		Old, New struct {
			File        string
			Version     int
			Fingerprint string
		}
		Changes                     []struct{ Rule, Category, Path, Message, Old, New string }
		Breaking, VersionRaised, OK bool
	}
	require.NoErrorf(t, json.Unmarshal([]byte(stdout), &r), "not JSON\n%s", stdout)
	// A renumbered task type moves no byte of the layout, so the fingerprint
	// stays; the diff still calls it breaking.
	require.Equalf(t, p["base"], r.Old.File, "wrong report: %+v", r)
	require.Equalf(t, p["breaking"], r.New.File, "wrong report: %+v", r)
	require.Equalf(t, r.New.Fingerprint, r.Old.Fingerprint, "wrong report: %+v", r)
	require.Truef(t, r.Breaking, "wrong report: %+v", r)
	require.Falsef(t, r.OK, "wrong report: %+v", r)
	found := false
	for _, c := range r.Changes {
		if c.Rule == "enum-value-renumbered" {
			found = true
			require.Equalf(t, "breaking-wire", c.Category, "change %+v: want breaking-wire with file:line:col on both sides", c)
			require.Truef(t, strings.HasPrefix(c.Old, p["base"]+":"), "change %+v: want breaking-wire with file:line:col on both sides", c)
			assert.Truef(t, strings.HasPrefix(c.New, p["breaking"]+":"), "change %+v: want breaking-wire with file:line:col on both sides", c)
		}
	}
	assert.Truef(t, found, "no enum-value-renumbered change: %+v", r.Changes)
}

// TestRunDiffGit compares a committed schema with the working copy, as
// `make check-abi` does, in a throwaway repository.
func TestRunDiffGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, err := os.ReadFile("../../abi/schema.yaml")
	require.NoError(t, err)
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		out, err := cmd.CombinedOutput()
		require.NoErrorf(t, err, "git %v\n%s", args, out)
	}
	schemaPath := filepath.Join(repo, "abi", "schema.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(schemaPath), 0o755))
	require.NoError(t, os.WriteFile(schemaPath, base, 0o644))
	git("init", "-q")
	git("add", "abi/schema.yaml")
	git("commit", "-q", "-m", "schema")
	t.Chdir(repo)

	code, stdout, stderr := runDiffArgs("git:HEAD:abi/schema.yaml", "abi/schema.yaml")
	require.Equalf(t, 0, code, "unchanged working copy: exit\n%s%s", stdout, stderr)
	require.Containsf(t, stdout, "no changes.", "unchanged working copy\n%s", stderr)
	changed := strings.Replace(string(base), "{name: MatMul, value: 103,", "{name: MatMul, value: 120,", 1)
	require.NoError(t, os.WriteFile(schemaPath, []byte(changed), 0o644))
	code, stdout, stderr = runDiffArgs("git:HEAD:abi/schema.yaml", "abi/schema.yaml")
	require.Equalf(t, 1, code, "breaking working copy: exit, want 1%s", stderr)
	require.Containsf(t, stdout, "old: git:HEAD:abi/schema.yaml:", "breaking working copy: exit, want 1%s", stderr)
	require.Containsf(t, stdout, "enum-value-renumbered", "breaking working copy: exit, want 1%s", stderr)
	// git::PATH is the staged version: staging the change makes it agree.
	git("add", "abi/schema.yaml")
	code, stdout, stderr = runDiffArgs("git::abi/schema.yaml", "abi/schema.yaml")
	require.Equalf(t, 0, code, "staged vs working: exit\n%s%s", stdout, stderr)

	for _, tc := range []struct{ source, want string }{
		{"git:nosuchrev:abi/schema.yaml", "git:nosuchrev:abi/schema.yaml: git show nosuchrev:abi/schema.yaml: invalid object name 'nosuchrev'"},
		{"git:HEAD:abi/missing.yaml", "git:HEAD:abi/missing.yaml: git show HEAD:abi/missing.yaml: path 'abi/missing.yaml' does not exist in 'HEAD'"},
		{"git:HEAD", "git:HEAD: want git:REV:PATH"},
		// A revision that looks like an option is a revision, not an option.
		{"git:--output=x:abi/schema.yaml", `revision "--output=x" starts with '-'`},
	} {
		code, stdout, stderr := runDiffArgs(tc.source, "abi/schema.yaml")
		require.Equalf(t, 2, code, "%s: exit", tc.source)
		require.Emptyf(t, stdout, "%s: exit", tc.source)
		assert.Containsf(t, stderr, tc.want, "%s: exit", tc.source)
	}

	t.Setenv("PATH", "")
	code, _, stderr = runDiffArgs("git:HEAD:abi/schema.yaml", "abi/schema.yaml")
	assert.Equalf(t, 2, code, "without git: exit\n%s", stderr)
	assert.Contains(t, stderr, "git is not installed", "without git: a message that git is missing")
}
