package analyze

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/megakernel/cycleabi/internal/infile"
)

// Input is one thing besides the captures that an analysis was made with
// and that changes its numbers: a flag and its value, or for a file its
// name and the SHA-256 of its bytes (two names of one file's bytes are
// the same input; one name over changed bytes is not).
type Input struct {
	// Flag is the command-line flag ("--plan", "--names").
	Flag string `json:"flag"`
	// Value is the flag's value: the file name for a file.
	Value string `json:"value"`
	// SHA256 is the hex SHA-256 of the file's bytes; "" for a flag
	// that names no file.
	SHA256 string `json:"sha256,omitempty"`
}

// FileInput returns the Input of a file given with flag, hashing its
// bytes as they are now.
func FileInput(flag, path string) (Input, error) {
	f, _, err := infile.Open(path)
	if err != nil {
		return Input{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return Input{}, fmt.Errorf("%s: %w", path, err)
	}
	return Input{Flag: flag, Value: path, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// same reports whether two inputs of one flag are the same: the same
// bytes for files, else the same value.
func (in Input) same(o Input) bool {
	if in.SHA256 != "" || o.SHA256 != "" {
		return in.SHA256 == o.SHA256
	}
	return in.Value == o.Value
}

// String renders an input for a message: "moe.yaml (sha256 1a2b3c4d…)".
func (in Input) String() string {
	if in.SHA256 == "" {
		return in.Value
	}
	return fmt.Sprintf("%s (sha256 %s…)", in.Value, in.SHA256[:min(12, len(in.SHA256))])
}

// InputDifferences says, one line per flag, where the inputs of two
// analyses differ ("--plan: base moe.yaml (sha256 …), new none"), so
// that a diff does not pass a change of flags off as a change of the
// kernel. When one report records its inputs and the other does not
// (Report.Inputs nil: an analyze --format json report of a cycleabi
// before they were recorded), one line says so; when neither does,
// nothing is known and nothing is said.
func InputDifferences(base, new *Report) []string {
	if base.Inputs == nil && new.Inputs == nil {
		return nil
	}
	var lines []string
	for _, side := range []struct {
		name string
		r    *Report
	}{{"base", base}, {"new", new}} {
		if side.r.Inputs == nil {
			lines = append(lines, fmt.Sprintf("the %s analysis does not record its inputs (an analyze --format json report of an older cycleabi): they cannot be compared", side.name))
		}
	}
	if len(lines) > 0 {
		return lines
	}
	find := func(ins []Input, flag string) (Input, bool) {
		for _, in := range ins {
			if in.Flag == flag {
				return in, true
			}
		}
		return Input{}, false
	}
	var flags []string
	for _, in := range append(append([]Input{}, *base.Inputs...), *new.Inputs...) {
		if !contains(flags, in.Flag) {
			flags = append(flags, in.Flag)
		}
	}
	for _, flag := range flags {
		b, inBase := find(*base.Inputs, flag)
		n, inNew := find(*new.Inputs, flag)
		if inBase && inNew && b.same(n) {
			continue
		}
		show := func(in Input, ok bool) string {
			if !ok {
				return "none"
			}
			return in.String()
		}
		lines = append(lines, fmt.Sprintf("%s: base %s, new %s", flag, show(b, inBase), show(n, inNew)))
	}
	return lines
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// inputNote is the diff's text line about inputs that differ; "" when
// they do not.
func (d *Diff) inputNote() string {
	if len(d.InputDifferences) == 0 {
		return ""
	}
	return "inputs differ (the changes below may come from them, not from the kernel): " + strings.Join(d.InputDifferences, "; ")
}
