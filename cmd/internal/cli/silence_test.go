package cli

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decode warns of bytes after the layout as validate does, in the same
// words: validate's line, less its "warning " prefix, is in decode's.
func TestDecodeWarnsBytesAfterLayout(t *testing.T) {
	t.Parallel()
	path := writeCapture(t, "trail.bin", append(validCapture().Bytes(), make([]byte, 96)...))
	out, _, code := runMain(t, "validate", path)
	require.Equal(t, ExitOK, code, "code")
	var line string
	for l := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(l, "warning bytes-after-layout "); ok {
			line = "bytes-after-layout " + strings.TrimSuffix(rest, "\n")
		}
	}
	require.NotEmptyf(t, line, "validate reports no bytes-after-layout:\n%s: line is empty, want something", out)
	assert.Contains(t, line, "96 extra bytes", "line")

	_, stderr, code := runMain(t, "decode", path, "-o", filepath.Join(t.TempDir(), "t.json"))
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "cycleabi: warning: "+path+": "+line+"\n", "stderr")

	// A capture that ends with its layout gets no such warning.
	_, stderr, code = runMain(t, "decode", writeCapture(t, "ok.bin", validCapture().Bytes()), "-o", filepath.Join(t.TempDir(), "t.json"))
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.NotContainsf(t, stderr, "bytes-after-layout", "stderr = %q, want no %q", stderr, "bytes-after-layout")
}

// decode says when it replaced a file, most of all the default
// ./trace.json and ./trace.pftrace a second decode would replace.
func TestDecodeSaysReplaced(t *testing.T) {
	path := writeCapture(t, "c.bin", validCapture().Bytes())
	t.Chdir(t.TempDir())
	for _, args := range [][]string{{}, {"--format", "perfetto"}, {"-o", "named.json"}} {
		_, stderr, code := runMain(t, append([]string{"decode", path}, args...)...)
		require.Equalf(t, ExitOK, code, "%s: code", stderr)
		assert.NotContainsf(t, stderr, "replaced", "%v: stderr = %q, want no %q", args, stderr, "replaced")
		_, stderr, code = runMain(t, append([]string{"decode", path}, args...)...)
		require.Equalf(t, ExitOK, code, "%s: code", stderr)
		assert.Containsf(t, stderr, " (replaced the file that was there)", "%v: stderr", args)
	}
	_, stderr, code := runMain(t, "decode", path, "-o", "-")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "written to stdout;", "stderr")
}

// report says where the page went and how large it is, and when it
// replaced a file.
func TestReportSaysWhereAndSize(t *testing.T) {
	t.Parallel()
	path := writeCapture(t, "c.bin", validCapture().Bytes())
	page := filepath.Join(t.TempDir(), "r.html")
	for _, replaced := range []string{"", " (replaced the file that was there)"} {
		_, stderr, code := runMain(t, "report", path, "-o", page)
		require.Equalf(t, ExitOK, code, "%s: code", stderr)
		st, err := os.Stat(page)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("cycleabi: report of 1 capture(s) written to %s%s, %d bytes (%s); open it in a browser\n",
			page, replaced, st.Size(), humanBytes(uint64(st.Size()))), stderr, "stderr")
	}
	stdout, stderr, code := runMain(t, "report", path, "-o", "-")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, fmt.Sprintf("written to stdout, %d bytes", len(stdout)), "stderr")
}

// validate --plan names every core the plan gives tasks that wrote no
// record: the 5 workers synth --idle-cores 5 leaves out (all-zero
// headers, read here from the file), and a core that entered but whose
// record_count is 0; not a core that dropped every record, and nothing
// without --plan.
func TestValidateIdleWorkers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	idle := filepath.Join(dir, "idle.bin")
	_, stderr, code := runMain(t, "synth", moePlan, "--idle-cores", "5", "-o", idle)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	out, _, code := runMain(t, "validate", idle, "--plan", moePlan)
	require.Equalf(t, ExitOK, code, "%s: code", out)
	data, err := os.ReadFile(idle)
	require.NoError(t, err)
	finding := regexp.MustCompile(`(?m)^warning idle-worker (AI[CV]/\d+) @(0x[0-9a-f]+): an unused slot \(all-zero header: the core never entered\), expected the records of (AI[CV]) worker \d+'s \d+ tasks \(host plan ` + regexp.QuoteMeta(moePlan) + `\)$`)
	found := finding.FindAllStringSubmatch(out, -1)
	require.Lenf(t, found, 5, "%s: len(found)", out)
	for _, m := range found {
		off, err := strconv.ParseInt(m[2], 0, 64)
		require.NoError(t, err)
		assert.Equalf(t, []byte(make([]byte, abi.CoreHeaderSize)), []byte(data[off:off+abi.CoreHeaderSize]), "%s header: data[off:off+abi.CoreHeaderSize]", m[1])
		assert.Truef(t, strings.HasPrefix(m[1], m[3]+"/"), "%s: %q does not begin with %q", m[0], m[1], m[3]+"/")
	}
	assert.Contains(t, out, "warnings (idle-worker 5)", "out")
	out, _, _ = runMain(t, "validate", idle)
	assert.NotContainsf(t, out, "idle-worker", "out = %q, want no %q", out, "idle-worker")
	_, _, code = runMain(t, "validate", idle, "--plan", moePlan, "--strict")
	assert.Equal(t, ExitInvalid, code, "code")

	// The example with AIV/2's record_count 0, and AIV/4's too but with
	// records dropped: only AIV/2 is an idle worker.
	data, err = os.ReadFile(moeCapture)
	require.NoError(t, err)
	aiv := func(block uint32) int {
		l, err := abi.NewLayout(24, abi.Capacities{AIC: 64, AIV: 64})
		require.NoError(t, err)
		return int(l.SlotOffset(abi.CoreTypeAIV, block))
	}
	binary.LittleEndian.PutUint32(data[aiv(2)+abi.CoreHeaderRecordCountOffset:], 0)
	binary.LittleEndian.PutUint32(data[aiv(4)+abi.CoreHeaderRecordCountOffset:], 0)
	binary.LittleEndian.PutUint32(data[aiv(4)+abi.CoreHeaderDroppedCountOffset:], 3)
	entry := binary.LittleEndian.Uint64(data[aiv(2):])
	out, _, _ = runMain(t, "validate", writeCapture(t, "c.bin", data), "--plan", moePlan)
	assert.Contains(t, out, fmt.Sprintf("warning idle-worker AIV/2 @%#x: record_count=0 (the core entered at cycle %d and wrote nothing), expected the records of AIV worker 1's", aiv(2), entry), "out")
	assert.Equalf(t, 1, strings.Count(out, "warning idle-worker "), "%s: strings.Count(out, \"warning idle-worker \")", out)
}

// diff and report --base say when base and new were analyzed with other
// inputs (--plan, --names: compared by their bytes' SHA-256, computed
// here), and refuse with --strict; the same inputs, or the same bytes
// under another name, draw no word.
func TestDiffInputsDiffer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sha := func(path string) string {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		return hex.EncodeToString(sum[:])
	}
	base := filepath.Join(dir, "base.json")
	_, stderr, code := runMain(t, "analyze", moeCapture, "--plan", moePlan, "--format", "json", "-o", base)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	data, err := os.ReadFile(base)
	require.NoError(t, err)
	var rep struct {
		Inputs []map[string]string `json:"inputs"`
	}
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.Equal(t, []map[string]string{{"flag": "--kernel-family", "value": "None"}, {"flag": "--freq-mhz", "value": "50"}, {"flag": "--soc", "value": "ascend910b"},
		{"flag": "--plan", "value": moePlan, "sha256": sha(moePlan)}}, rep.Inputs, "rep.Inputs")

	// The same schedule under another name is the same input.
	plan2 := filepath.Join(dir, "same.yaml")
	require.NoError(t, os.WriteFile(plan2, mustRead(t, moePlan), 0o644))
	out, stderr, code := runMain(t, "diff", base, moeCapture, "--plan", plan2, "--strict")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.NotContainsf(t, stderr+out, "inputs differ", "stderr+out = %q, want no %q", stderr+out, "inputs differ")

	namesLine := fmt.Sprintf("--names: base none, new %s (sha256 %s…)", moeNames, sha(moeNames)[:12])
	planLine := fmt.Sprintf("--plan: base %s (sha256 %s…), new none", moePlan, sha(moePlan)[:12])
	out, stderr, code = runMain(t, "diff", base, moeCapture, "--names", moeNames)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "cycleabi: warning: inputs differ: "+planLine+"\n", "stderr")
	assert.Contains(t, stderr, "cycleabi: warning: inputs differ: "+namesLine+"\n", "stderr")
	assert.Truef(t, strings.HasPrefix(out, "inputs differ (the changes below may come from them, not from the kernel): "+planLine+"; "+namesLine+"\n"), "%s", out)
	out, _, code = runMain(t, "diff", base, moeCapture, "--names", moeNames, "--format", "json")
	require.Equal(t, ExitOK, code, "code")
	var d struct {
		InputDifferences []string `json:"input_differences"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	assert.Equal(t, []string{planLine, namesLine}, d.InputDifferences, "d.InputDifferences")
	_, stderr, code = runMain(t, "diff", base, moeCapture, "--names", moeNames, "--strict")
	assert.Equal(t, ExitInvalid, code, "code")
	assert.Contains(t, stderr, "--strict: the analyses were made with different inputs: "+planLine, "stderr")

	// The kernel family the captures were read under, whatever chose it.
	_, stderr, code = runMain(t, "diff", base, moeCapture, "--plan", moePlan, "--kernel-name", "MegaMoe")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "cycleabi: warning: inputs differ: --kernel-family: base None, new MegaMoe\n", "stderr")

	page := filepath.Join(dir, "r.html")
	_, stderr, code = runMain(t, "report", moeCapture, "--base", base, "-o", page)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "cycleabi: warning: inputs differ: "+planLine+"\n", "stderr")
	html := string(mustRead(t, page))
	assert.Contains(t, html, "Inputs differ ("+planLine+")", "html")
	_, _, code = runMain(t, "report", moeCapture, "--base", base, "--strict", "-o", page)
	assert.Equal(t, ExitInvalid, code, "code")
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}
