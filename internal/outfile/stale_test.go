package outfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
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
		if pid != c.pid || token != c.token || ok != c.ok {
			t.Errorf("parseTempName(%q) = %d, %q, %v; want %d, %q, %v", c.name, pid, token, ok, c.pid, c.token, c.ok)
		}
	}
	// What tempName writes, parseTempName reads back as this process.
	pid, token, ok := parseTempName(filepath.Base(tempName(t.TempDir(), "x.json")))
	if !ok || pid != os.Getpid() || token != ownerToken(os.Getpid()) {
		t.Errorf("own name read back as %d, %q, %v", pid, token, ok)
	}
}

func TestOwnerGone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process probe here")
	}
	me := os.Getpid()
	if ownerGone(me, ownerToken(me)) {
		t.Error("this process is taken for gone")
	}
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if !ownerGone(dead.Process.Pid, ownerToken(me)) {
		t.Errorf("pid %d, ended, is taken for alive", dead.Process.Pid)
	}
	if runtime.GOOS != "linux" {
		return
	}
	// A live pid run again: another start time, or another boot.
	tok := ownerToken(me)
	if !ownerGone(me, tok[:9]+"1") {
		t.Error("a reused pid (another start time) is taken for its old run")
	}
	other := "00000000"
	if tok[:8] == other {
		other = "11111111"
	}
	if !ownerGone(me, other+tok[8:]) {
		t.Error("a run of another boot is taken for alive")
	}
	if _, err := strconv.Atoi(tok[9:]); err != nil {
		t.Errorf("token %q holds no start time", tok)
	}
}
