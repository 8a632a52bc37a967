package abidiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// Report is the comparison of two schemas with the verdict on the version.
type Report struct {
	Old, New *schema.Schema
	Changes  []Change
}

// NewReport compares old and new.
func NewReport(old, new *schema.Schema) *Report {
	return &Report{Old: old, New: new, Changes: Compare(old, new)}
}

// Breaking reports whether any change is breaking.
func (r *Report) Breaking() bool { return Breaking(r.Changes) }

// VersionRaised reports whether the new schema has a higher version.
func (r *Report) VersionRaised() bool { return r.New.Version > r.Old.Version }

// OK reports whether the change may land: nothing breaking, or the version
// was raised.
func (r *Report) OK() bool { return !r.Breaking() || r.VersionRaised() }

// counts returns the number of changes per category.
func (r *Report) counts() map[Category]int {
	n := map[Category]int{}
	for _, c := range r.Changes {
		n[c.Category]++
	}
	return n
}

// verdict is the last line of the text report.
func (r *Report) verdict() string {
	switch {
	case !r.Breaking():
		return "OK: no breaking change."
	case r.VersionRaised():
		return fmt.Sprintf("OK: breaking changes, and the version was raised (%d -> %d).", r.Old.Version, r.New.Version)
	}
	at := ""
	if p := r.New.VersionPos; p.Line > 0 {
		at = fmt.Sprintf(" at %s:%d:%d", r.New.File, p.Line, p.Col)
	}
	return fmt.Sprintf("FAIL: breaking changes need the version raised above %d (version: %d%s).", r.Old.Version, r.New.Version, at)
}

// WriteText writes the report for people: both sides, one entry per change
// with its locations, a count per category and the verdict.
//
//	old: abi/schema.yaml (version 1, fingerprint cff7...)
//	new: next.yaml (version 1, fingerprint 09ab...)
//
//	breaking-wire field-offset structs.CoreHeader.fields.record_count
//	    offset 8 -> 12 (bytes 12..16 were dropped_count)
//	    old: abi/schema.yaml:87:9  new: next.yaml:87:9
//	...
//	2 changes: 2 breaking-wire, 0 breaking-display, 0 compatible.
//	FAIL: breaking changes need the version raised above 1 (version: 1 at next.yaml:14:10).
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "old: %s (version %d, fingerprint %s)\n", r.Old.File, r.Old.Version, r.Old.FingerprintHex())
	fmt.Fprintf(&b, "new: %s (version %d, fingerprint %s)\n\n", r.New.File, r.New.Version, r.New.FingerprintHex())
	for _, c := range r.Changes {
		fmt.Fprintf(&b, "%s %s %s\n    %s\n", c.Category, c.Rule, c.Path, c.Message)
		var at []string
		if s := c.Old.String(); s != "" {
			at = append(at, "old: "+s)
		}
		if s := c.New.String(); s != "" {
			at = append(at, "new: "+s)
		}
		fmt.Fprintf(&b, "    %s\n", strings.Join(at, "  "))
	}
	if len(r.Changes) == 0 {
		b.WriteString("no changes.\n")
	} else {
		n := r.counts()
		plural := "s"
		if len(r.Changes) == 1 {
			plural = ""
		}
		fmt.Fprintf(&b, "\n%d change%s: %d breaking-wire, %d breaking-display, %d compatible.\n",
			len(r.Changes), plural, n[BreakingWire], n[BreakingDisplay], n[Compatible])
	}
	b.WriteString(r.verdict() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// side is one schema in the JSON report.
type side struct {
	File        string `json:"file"`
	Version     uint32 `json:"version"`
	Fingerprint string `json:"fingerprint"`
}

// jsonReport is the JSON form of a Report.
type jsonReport struct {
	Old           side     `json:"old"`
	New           side     `json:"new"`
	Changes       []Change `json:"changes"`
	Breaking      bool     `json:"breaking"`
	VersionRaised bool     `json:"versionRaised"`
	OK            bool     `json:"ok"`
}

// WriteJSON writes the report as one indented JSON object for tools:
// {"old": {file, version, fingerprint}, "new": {...}, "changes": [{rule,
// category, path, message, old, new}], "breaking", "versionRaised", "ok"}.
// Locations are "file:line:col" strings, "" where a side has none.
func (r *Report) WriteJSON(w io.Writer) error {
	j := jsonReport{
		Old:           side{r.Old.File, r.Old.Version, r.Old.FingerprintHex()},
		New:           side{r.New.File, r.New.Version, r.New.FingerprintHex()},
		Changes:       r.Changes,
		Breaking:      r.Breaking(),
		VersionRaised: r.VersionRaised(),
		OK:            r.OK(),
	}
	if j.Changes == nil {
		j.Changes = []Change{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
