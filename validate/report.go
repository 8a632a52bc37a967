package validate

import (
	"fmt"
	"io"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// WriteText writes a result the way `cycleabi validate` prints it: one
// line per kept finding, by offset, then the summary line.
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	for i := range r.Findings {
		b.WriteString(r.Findings[i].String())
		b.WriteByte('\n')
	}
	b.WriteString(r.Summary())
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// Summary is the one-line summary of a result, for the example capture:
//
//	examples/moe_layer.bin: 2974 records, 10 dropped; 0 errors; 11 warnings (dropped-records 10, dropped-total 1); layout: 24 cube slots, AIC capacity 64, AIV capacity 64 (found: 24 cube slots from the AIV/0 header at @0xc600); ABI v1 fingerprint e7b0842e14986bfc
func (r *Result) Summary() string {
	var b strings.Builder
	b.WriteString(r.File)
	if r.Opened && r.Format == capture.NPY {
		fmt.Fprintf(&b, " (.npy, buffer at @%#x)", r.Base)
	}
	b.WriteString(": ")
	if r.LayoutOK {
		fmt.Fprintf(&b, "%s, %d dropped; ", plural(r.Records, "record"), r.Dropped)
	}
	for _, sev := range []capture.Severity{capture.Error, capture.Warning} {
		n := r.total(sev)
		fmt.Fprintf(&b, "%s", plural(uint64(n), sev.String()))
		var parts []string
		for _, c := range r.Counts {
			if c.Severity != sev {
				continue
			}
			part := fmt.Sprintf("%s %d", c.Code, c.Count)
			if c.Truncated() {
				part += fmt.Sprintf(" (%d shown)", c.Kept)
			}
			parts = append(parts, part)
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
		}
		b.WriteString("; ")
	}
	if r.LayoutOK {
		fmt.Fprintf(&b, "layout: %s (%s)", r.Layout, r.Resolved.How)
	} else {
		b.WriteString("layout: not resolved")
	}
	fmt.Fprintf(&b, "; ABI v%d fingerprint %s", abi.Version, abi.FingerprintHex)
	return b.String()
}

// JSONVersion is the version of the JSON document `cycleabi validate
// --format json` writes; it is raised on any change that is not a new field.
const JSONVersion = 1

// Document is the JSON document of `cycleabi validate --format json`.
type Document struct {
	// Version is JSONVersion.
	Version int     `json:"version"`
	ABI     ABIInfo `json:"abi"`
	// Strict: warnings fail the check too.
	Strict bool `json:"strict"`
	// MaxFindings is the cap of findings kept per code; 0 means no cap.
	MaxFindings int `json:"max_findings"`
	// OK is what the exit status says: no errors (and, under strict, no
	// warnings) in any capture, and every capture read.
	OK       bool          `json:"ok"`
	Captures []CaptureJSON `json:"captures"`
}

// ABIInfo identifies the ABI a capture was validated against.
type ABIInfo struct {
	Version     int    `json:"version"`
	Fingerprint string `json:"fingerprint"`
}

// CaptureJSON is one capture's result in the JSON document.
type CaptureJSON struct {
	File string `json:"file"`
	// Format is "raw" or "npy"; null when the file could not be opened as a capture.
	Format *string `json:"format"`
	// BufferOffset is the file offset of the buffer (the .npy header's
	// length); BufferSize the buffer's bytes.
	BufferOffset int64 `json:"buffer_offset"`
	BufferSize   int64 `json:"buffer_size"`
	// Layout is null when none could be resolved.
	Layout   *LayoutJSON `json:"layout"`
	Records  uint64      `json:"records"`
	Dropped  uint64      `json:"dropped"`
	Errors   int         `json:"errors"`
	Warnings int         `json:"warnings"`
	// OK: no errors (decode succeeds).
	OK bool `json:"ok"`
	// Codes has an entry per code found.
	Codes map[capture.Code]CodeJSON `json:"codes"`
	// Findings are the kept findings, by offset.
	Findings []FindingJSON `json:"findings"`
	// IOError is set (and everything else empty) when the capture could
	// not be read at all.
	IOError string `json:"io_error,omitempty"`
}

// LayoutJSON is the layout a capture was checked with.
type LayoutJSON struct {
	CubeSlots uint32 `json:"cube_slots"`
	// Capacities is the record capacity per core type ("AIC", "AIV").
	Capacities map[string]uint32 `json:"capacities"`
	// Size is the layout's bytes.
	Size uint64 `json:"size"`
	// Source is where the capacities come from: "headers" (found from the
	// capture), "host" (given) or "plan" (the host plan's).
	Source LayoutSource `json:"source"`
	// CubeSlotsSource is what fixed the cube slot count: "headers",
	// "size", "host" or "plan".
	CubeSlotsSource LayoutSource `json:"cube_slots_source"`
	// CapacitySources says per core type where its capacity came from.
	CapacitySources map[string]LayoutSource `json:"capacity_sources"`
	// Evidence lists the headers the layout was found from.
	Evidence []EvidenceJSON `json:"evidence"`
	// How is the summary line's phrase ("found: 24 cube slots from the
	// AIV/0 header at @0xc600").
	How string `json:"how"`
}

// EvidenceJSON is a header a layout was found from.
type EvidenceJSON struct {
	// What is "cube_slots" or the core type whose capacity it gave.
	What   string `json:"what"`
	Slot   string `json:"slot"`
	Offset int64  `json:"offset"`
	// Derived: computed from where the header sits, not read from it.
	Derived bool `json:"derived"`
}

func layoutJSON(r *Result) *LayoutJSON {
	res := r.Resolved
	j := &LayoutJSON{CubeSlots: r.Layout.CubeSlots, Capacities: map[string]uint32{}, Size: r.Layout.Size(),
		Source: res.Source, CubeSlotsSource: res.CubeSlotsFrom.Source, CapacitySources: map[string]LayoutSource{},
		Evidence: []EvidenceJSON{}, How: res.How}
	add := func(what string, e capture.Evidence) {
		if e.Source == capture.FromHeaders {
			j.Evidence = append(j.Evidence, EvidenceJSON{What: what, Slot: e.Slot, Offset: e.Off, Derived: e.Derived})
		}
	}
	add("cube_slots", res.CubeSlotsFrom)
	for i, reg := range abi.Regions() {
		t := reg.CoreType.String()
		j.Capacities[t] = r.Layout.Capacities.For(reg.CoreType)
		if i < len(res.CapacitiesFrom) {
			j.CapacitySources[t] = res.CapacitiesFrom[i].Source
			add(t, res.CapacitiesFrom[i])
		}
	}
	return j
}

// CodeJSON is the count of one code.
type CodeJSON struct {
	Severity string `json:"severity"`
	Count    int    `json:"count"`
	Shown    int    `json:"shown"`
	// Truncated: Count > Shown, the cap left some out.
	Truncated bool `json:"truncated"`
}

// FindingJSON is one finding.
type FindingJSON struct {
	// Severity is "error" or "warning".
	Severity string       `json:"severity"`
	Code     capture.Code `json:"code"`
	// Offset is the file offset; OffsetHex the same as "0x1a2c0".
	Offset    int64  `json:"offset"`
	OffsetHex string `json:"offset_hex"`
	// Slot ("AIV/17") and Record are null when they do not apply.
	Slot   *string `json:"slot"`
	Record *int    `json:"record"`
	// Value, Expected and Hint may be empty; Message is the whole
	// description (without the hint).
	Value    string `json:"value"`
	Expected string `json:"expected"`
	Message  string `json:"message"`
	Hint     string `json:"hint"`
}

// NewDocument starts the JSON document for a run with these settings
// (maxFindings as Options.MaxFindings).
func NewDocument(strict bool, maxFindings int) *Document {
	if maxFindings == 0 {
		maxFindings = DefaultMaxFindings
	}
	if maxFindings < 0 {
		maxFindings = 0
	}
	return &Document{Version: JSONVersion, ABI: ABIInfo{Version: abi.Version, Fingerprint: abi.FingerprintHex},
		Strict: strict, MaxFindings: maxFindings, OK: true, Captures: []CaptureJSON{}}
}

// Add appends a result.
func (d *Document) Add(r *Result) {
	c := captureJSON(r)
	if !c.passes(d.Strict) {
		d.OK = false
	}
	d.Captures = append(d.Captures, c)
}

// passes says whether the capture leaves the document OK.
func (c *CaptureJSON) passes(strict bool) bool {
	return c.IOError == "" && c.Errors == 0 && !(strict && c.Warnings > 0)
}

// captureJSON is a result's entry in the document.
func captureJSON(r *Result) CaptureJSON {
	c := CaptureJSON{File: r.File, Records: r.Records, Dropped: r.Dropped, Errors: r.Errors(), Warnings: r.Warnings(),
		OK: r.OK(), Codes: map[capture.Code]CodeJSON{}, Findings: []FindingJSON{}}
	if r.Opened {
		format := r.Format.String()
		c.Format, c.BufferOffset, c.BufferSize = &format, r.Base, r.Size
	}
	if r.LayoutOK {
		c.Layout = layoutJSON(r)
	}
	for _, cc := range r.Counts {
		c.Codes[cc.Code] = CodeJSON{Severity: cc.Severity.String(), Count: cc.Count, Shown: cc.Kept, Truncated: cc.Truncated()}
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		j := FindingJSON{Severity: f.Severity.String(), Code: f.Code, Offset: f.Off, OffsetHex: fmt.Sprintf("%#x", f.Off),
			Value: f.Value, Expected: f.Expected, Message: f.Problem.Message(), Hint: f.Hint}
		if f.Slot != "" {
			slot := f.Slot
			j.Slot = &slot
		}
		if f.Record >= 0 {
			record := f.Record
			j.Record = &record
		}
		c.Findings = append(c.Findings, j)
	}
	return c
}

// AddIOError records a capture that could not be read.
func (d *Document) AddIOError(file string, err error) {
	d.OK = false
	d.Captures = append(d.Captures, ioErrorJSON(file, err))
}

func ioErrorJSON(file string, err error) CaptureJSON {
	return CaptureJSON{File: file, Codes: map[capture.Code]CodeJSON{}, Findings: []FindingJSON{}, IOError: err.Error()}
}
