package validate_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// findingLines renders a result as the expect section does: one line per
// kept finding, or OK.
func findingLines(r *validate.Result) string {
	if len(r.Findings) == 0 {
		return "OK\n"
	}
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestCases runs every testdata/*.txtar: its capture section (the text
// form, see textform_test.go) is built and validated, and the findings
// must be its expect section. Each case's decode (capture.Scan stopping at
// the first problem) must fail exactly when validate reports an error, and
// with one of validate's errors.
func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files, "files is empty, want something")
	seen := map[capture.Code]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			require.NoError(t, err)
			require.NotEmpty(t, bytes.TrimSpace(ar.Comment), "a case opens with the problem it covers: bytes.TrimSpace(ar.Comment) is empty, want something")
			var text *txtar.File
			for i := range ar.Files {
				switch ar.Files[i].Name {
				case "capture":
					text = &ar.Files[i]
				case "expect":
				default:
					require.FailNow(t, fmt.Sprintf("unknown section %q", ar.Files[i].Name))
				}
			}
			require.NotNil(t, text, "no capture section: text is nil, want non-nil")
			tc, err := parseCaptureText(string(text.Data))
			require.NoError(t, err)
			r, err := validate.CheckBytes("capture.bin", tc.bytes, tc.opts)
			require.NoError(t, err)
			for _, c := range r.Counts {
				seen[c.Code] = true
			}
			got := findingLines(r)
			golden.CheckSection(t, file, ar, "expect", []byte(got))
			assertDecodeAgrees(t, tc, r)
		})
	}
	if !t.Failed() {
		for _, c := range validate.Codes() {
			if c.Code == validate.CodeMissingCapture || c.Code == validate.CodeNameCapped {
				continue // a JSON trace's, not a capture's: jsontrace's TestMissingRankIsSaid and TestNamesCapped
			}
			assert.Truef(t, seen[c.Code], "no case in testdata shows %s: seen[c.Code] = false, want true", c.Code)
		}
	}
}

// assertDecodeAgrees checks that decode fails on the capture exactly when
// validate reports an error, and that decode's error is one validate found.
func assertDecodeAgrees(t *testing.T, tc *textCapture, r *validate.Result) {
	t.Helper()
	err := decodeError(tc.bytes, r.Request)
	if r.OK() {
		assert.NoError(t, err, "validate found no error, decode must succeed")
		return
	}
	require.Error(t, err, "validate found errors, decode must fail: got no error, want one")
	var p *capture.Problem
	require.ErrorAsf(t, err, &p, "decode's error is a capture.Problem: %v: errors.As(err, &p) = false, want true", err)
	if r.Count(p.Code) > countKept(r, p.Code) {
		return // the cap may have left decode's one out
	}
	for _, f := range r.Findings {
		if f.Severity == capture.Error && f.Code == p.Code && f.Off == p.Off && f.Slot == p.Slot && f.Record == p.Record {
			return
		}
	}
	assert.Fail(t, fmt.Sprintf("decode's error %v is not among validate's findings:\n%s", err, findingLines(r)))
}

func countKept(r *validate.Result, code capture.Code) int {
	for _, c := range r.Counts {
		if c.Code == code {
			return c.Kept
		}
	}
	return 0
}
