package outfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTempName(t *testing.T) {
	for _, c := range []struct {
		name  string
		pid   int
		token string
		ok    bool
	}{
		{".trace.json.tmp-123-0a1b2c3dx4567-k3j9", 123, "0a1b2c3dx4567", true},
		{".a.tmp-b.tmp-7-u-z", 7, "u", true},
		{".trace.json.tmp-abc", 0, "", false},     // an older run's name: owner unknown
		{"trace.json.tmp-1-u-z", 0, "", false},    // not hidden
		{".trace.json.tmp-0-u-z", 0, "", false},   // no such pid
		{".trace.json.tmp-01-u-z", 0, "", false},  // not as written
		{".trace.json.tmp-1-u-z!", 0, "", false},  // random part not base 36
		{".trace.json.tmp-1--z", 0, "", false},    // no token
		{".trace.json.tmp-1-u-z-9", 0, "", false}, // too many parts
		{".trace.json", 0, "", false},
	} {
		pid, token, ok := parseTempName(c.name)
		assert.Equalf(t, c.pid, pid, "parseTempName(%q)", c.name)
		assert.Equalf(t, c.token, token, "parseTempName(%q)", c.name)
		assert.Equalf(t, c.ok, ok, "parseTempName(%q)", c.name)
	}
	// What tempName writes, parseTempName reads back as this process.
	pid, token, ok := parseTempName(filepath.Base(tempName(t.TempDir(), "x.json")))
	require.Truef(t, ok, "own name read back as, %v", ok)
	require.Equalf(t, os.Getpid(), pid, "own name read back as, %v", ok)
	assert.Equalf(t, ownerToken(os.Getpid()), token, "own name read back as, %v", ok)
}

func TestOwnerGone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process probe here")
	}
	me := os.Getpid()
	assert.False(t, ownerGone(me, ownerToken(me)), "this process is taken for gone")
	dead := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, dead.Run())
	assert.Truef(t, ownerGone(dead.Process.Pid, ownerToken(me)), "pid %d, ended, is taken for alive", dead.Process.Pid)
	if runtime.GOOS != "linux" {
		return
	}
	// A live pid run again: another start time, or another boot.
	tok := ownerToken(me)
	assert.True(t, ownerGone(me, tok[:9]+"1"), "a reused pid (another start time) is taken for its old run")
	other := "00000000"
	if tok[:8] == other {
		other = "11111111"
	}
	assert.True(t, ownerGone(me, other+tok[8:]), "a run of another boot is taken for alive")
	_, err := strconv.Atoi(tok[9:])
	assert.NoErrorf(t, err, "token %q holds no start time", tok)
}
