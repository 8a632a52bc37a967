package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// decode warns of bytes after the layout as validate does, in the same
// words: validate's line, less its "warning " prefix, is in decode's.
func TestDecodeWarnsBytesAfterLayout(t *testing.T) {
	t.Parallel()
	path := writeCapture(t, "trail.bin", append(validCapture().Bytes(), make([]byte, 96)...))
	out, _, code := runMain(t, "validate", path)
	if code != ExitOK {
		t.Fatalf("code = %v, want %v", code, ExitOK)
	}
	var line string
	for l := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(l, "warning bytes-after-layout "); ok {
			line = "bytes-after-layout " + strings.TrimSuffix(rest, "\n")
		}
	}
	if line == "" {
		t.Fatalf("validate reports no bytes-after-layout:\n%s: line is empty, want something", out)
	}
	if !strings.Contains(line, "96 extra bytes") {
		t.Errorf("line = %q, want it to contain %q", line, "96 extra bytes")
	}

	_, stderr, code := runMain(t, "decode", path, "-o", filepath.Join(t.TempDir(), "t.json"))
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if want := "cycleabi: warning: " + path + ": " + line + "\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}

	// A capture that ends with its layout gets no such warning.
	_, stderr, code = runMain(t, "decode", writeCapture(t, "ok.bin", validCapture().Bytes()), "-o", filepath.Join(t.TempDir(), "t.json"))
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if strings.Contains(stderr, "bytes-after-layout") {
		t.Errorf("stderr = %q, want no %q", stderr, "bytes-after-layout")
	}
}

// decode says when it replaced a file, most of all the default
// ./trace.json and ./trace.pftrace a second decode would replace.
func TestDecodeSaysReplaced(t *testing.T) {
	path := writeCapture(t, "c.bin", validCapture().Bytes())
	t.Chdir(t.TempDir())
	for _, args := range [][]string{{}, {"--format", "perfetto"}, {"-o", "named.json"}} {
		_, stderr, code := runMain(t, append([]string{"decode", path}, args...)...)
		if code != ExitOK {
			t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
		}
		if strings.Contains(stderr, "replaced") {
			t.Errorf("%v: stderr = %q, want no %q", args, stderr, "replaced")
		}
		_, stderr, code = runMain(t, append([]string{"decode", path}, args...)...)
		if code != ExitOK {
			t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
		}
		if !strings.Contains(stderr, " (replaced the file that was there)") {
			t.Errorf("%v: stderr = %q, want it to contain %q", args, stderr, " (replaced the file that was there)")
		}
	}
	_, stderr, code := runMain(t, "decode", path, "-o", "-")
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if !strings.Contains(stderr, "written to stdout;") {
		t.Errorf("stderr = %q, want it to contain %q", stderr, "written to stdout;")
	}
}

// report says where the page went and how large it is, and when it
// replaced a file.
func TestReportSaysWhereAndSize(t *testing.T) {
	t.Parallel()
	path := writeCapture(t, "c.bin", validCapture().Bytes())
	page := filepath.Join(t.TempDir(), "r.html")
	for _, replaced := range []string{"", " (replaced the file that was there)"} {
		_, stderr, code := runMain(t, "report", path, "-o", page)
		if code != ExitOK {
			t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
		}
		st, err := os.Stat(page)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("cycleabi: report of 1 capture(s) written to %s%s, %d bytes (%s); open it in a browser\n",
			page, replaced, st.Size(), humanBytes(uint64(st.Size()))); stderr != want {
			t.Errorf("stderr = %q, want %q", stderr, want)
		}
	}
	stdout, stderr, code := runMain(t, "report", path, "-o", "-")
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if want := fmt.Sprintf("written to stdout, %d bytes", len(stdout)); !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}
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
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	out, _, code := runMain(t, "validate", idle, "--plan", moePlan)
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", out, code, ExitOK)
	}
	data, err := os.ReadFile(idle)
	if err != nil {
		t.Fatal(err)
	}
	finding := regexp.MustCompile(`(?m)^warning idle-worker (AI[CV]/\d+) @(0x[0-9a-f]+): an unused slot \(all-zero header: the core never entered\), expected the records of (AI[CV]) worker \d+'s \d+ tasks \(host plan ` + regexp.QuoteMeta(moePlan) + `\)$`)
	found := finding.FindAllStringSubmatch(out, -1)
	if len(found) != 5 {
		t.Fatalf("%s: len(found) = %d, want 5: %v", out, len(found), found)
	}
	for _, m := range found {
		off, err := strconv.ParseInt(m[2], 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := data[off:off+abi.CoreHeaderSize], make([]byte, abi.CoreHeaderSize); !bytes.Equal(got, want) {
			t.Errorf("%s header: data[off:off+abi.CoreHeaderSize] = %q, want %q", m[1], got, want)
		}
		if !strings.HasPrefix(m[1], m[3]+"/") {
			t.Errorf("%s: strings.HasPrefix(m[1], m[3]+\"/\") = false, want true", m[0])
		}
	}
	if !strings.Contains(out, "warnings (idle-worker 5)") {
		t.Errorf("out = %q, want it to contain %q", out, "warnings (idle-worker 5)")
	}
	out, _, _ = runMain(t, "validate", idle)
	if strings.Contains(out, "idle-worker") {
		t.Errorf("out = %q, want no %q", out, "idle-worker")
	}
	_, _, code = runMain(t, "validate", idle, "--plan", moePlan, "--strict")
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}

	// The example with AIV/2's record_count 0, and AIV/4's too but with
	// records dropped: only AIV/2 is an idle worker.
	data, err = os.ReadFile(moeCapture)
	if err != nil {
		t.Fatal(err)
	}
	aiv := func(block uint32) int {
		l, err := abi.NewLayout(24, abi.Capacities{AIC: 64, AIV: 64})
		if err != nil {
			t.Fatal(err)
		}
		return int(l.SlotOffset(abi.CoreTypeAIV, block))
	}
	binary.LittleEndian.PutUint32(data[aiv(2)+abi.CoreHeaderRecordCountOffset:], 0)
	binary.LittleEndian.PutUint32(data[aiv(4)+abi.CoreHeaderRecordCountOffset:], 0)
	binary.LittleEndian.PutUint32(data[aiv(4)+abi.CoreHeaderDroppedCountOffset:], 3)
	entry := binary.LittleEndian.Uint64(data[aiv(2):])
	out, _, _ = runMain(t, "validate", writeCapture(t, "c.bin", data), "--plan", moePlan)
	if want := fmt.Sprintf("warning idle-worker AIV/2 @%#x: record_count=0 (the core entered at cycle %d and wrote nothing), expected the records of AIV worker 1's", aiv(2), entry); !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if got := strings.Count(out, "warning idle-worker "); got != 1 {
		t.Errorf("%s: strings.Count(out, \"warning idle-worker \") = %v, want 1", out, got)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		return hex.EncodeToString(sum[:])
	}
	base := filepath.Join(dir, "base.json")
	_, stderr, code := runMain(t, "analyze", moeCapture, "--plan", moePlan, "--format", "json", "-o", base)
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Inputs []map[string]string `json:"inputs"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if want := []map[string]string{{"flag": "--kernel-family", "value": "None"}, {"flag": "--freq-mhz", "value": "50"}, {"flag": "--soc", "value": "ascend910b"},
		{"flag": "--plan", "value": moePlan, "sha256": sha(moePlan)}}; !reflect.DeepEqual(rep.Inputs, want) {
		t.Errorf("rep.Inputs = %v, want %v", rep.Inputs, want)
	}

	// The same schedule under another name is the same input.
	plan2 := filepath.Join(dir, "same.yaml")
	if err := os.WriteFile(plan2, mustRead(t, moePlan), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runMain(t, "diff", base, moeCapture, "--plan", plan2, "--strict")
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if strings.Contains(stderr+out, "inputs differ") {
		t.Errorf("stderr+out = %q, want no %q", stderr+out, "inputs differ")
	}

	namesLine := fmt.Sprintf("--names: base none, new %s (sha256 %s…)", moeNames, sha(moeNames)[:12])
	planLine := fmt.Sprintf("--plan: base %s (sha256 %s…), new none", moePlan, sha(moePlan)[:12])
	out, stderr, code = runMain(t, "diff", base, moeCapture, "--names", moeNames)
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if want := "cycleabi: warning: inputs differ: " + planLine + "\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}
	if want := "cycleabi: warning: inputs differ: " + namesLine + "\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}
	if !strings.HasPrefix(out, "inputs differ (the changes below may come from them, not from the kernel): "+planLine+"; "+namesLine+"\n") {
		t.Errorf("%s", out)
	}
	out, _, code = runMain(t, "diff", base, moeCapture, "--names", moeNames, "--format", "json")
	if code != ExitOK {
		t.Fatalf("code = %v, want %v", code, ExitOK)
	}
	var d struct {
		InputDifferences []string `json:"input_differences"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if want := []string{planLine, namesLine}; !reflect.DeepEqual(d.InputDifferences, want) {
		t.Errorf("d.InputDifferences = %v, want %v", d.InputDifferences, want)
	}
	_, stderr, code = runMain(t, "diff", base, moeCapture, "--names", moeNames, "--strict")
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}
	if want := "--strict: the analyses were made with different inputs: " + planLine; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}

	// The kernel family the captures were read under, whatever chose it.
	_, stderr, code = runMain(t, "diff", base, moeCapture, "--plan", moePlan, "--kernel-name", "MegaMoe")
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if want := "cycleabi: warning: inputs differ: --kernel-family: base None, new MegaMoe\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}

	page := filepath.Join(dir, "r.html")
	_, stderr, code = runMain(t, "report", moeCapture, "--base", base, "-o", page)
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if want := "cycleabi: warning: inputs differ: " + planLine + "\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}
	html := string(mustRead(t, page))
	if !strings.Contains(html, "Inputs differ ("+planLine+")") {
		t.Errorf("html = %q, want it to contain %q", html, "Inputs differ ("+planLine+")")
	}
	_, _, code = runMain(t, "report", moeCapture, "--base", base, "--strict", "-o", page)
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
