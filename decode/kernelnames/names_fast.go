package kernelnames

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsonread"
)

// Names files list every task of a graph, so they can be large (a
// 500k-record capture comes with ~170k tasks; 10M tasks are 139 MB of
// YAML). go-yaml builds a node tree of ~200 bytes per scalar: 120 MB for
// such a file. The two fast paths here read the common shapes straight
// into the tables, from a stream (never the whole file at once): a JSON
// object of objects of strings without escapes, and block YAML whose
// entries are "  <id>: <plain name>" lines. Each accepts only files it is
// sure go-yaml reads the same way, with no problem in them; anything else
// (including every error) goes through the YAML parser, which reports it
// with its line and column, as long as the file is small enough for it.
// FuzzNamesFastPaths holds them to agreeing. Two problems a fast path
// reports itself, as the YAML path would, since a file that has them is
// often too large for it: a name longer than MaxNameBytes, and a task
// named twice.

// MaxNameBytes caps the length of one name in a names file (a stage name
// is shown in every event of its stage; 4 KiB is far beyond any real one).
const MaxNameBytes = 4096

// maxNamesLine bounds a line the block YAML fast path reads: an id, a
// name of MaxNameBytes and a comment.
const maxNamesLine = 64 << 10

// fastStop is where a fast path stopped, for the message when the file
// is too large for the YAML parser; err, when set, is a problem the fast
// path found itself (see above) and is the file's error.
type fastStop struct {
	line, col int
	err       *Error
	// dup is a task named twice in a sparse table, found only at the
	// end: locateDup reads the file again to place it.
	dup *uint32
}

// parseNamesFast reads a names file from src by the fast path its first
// character that is not a space suggests; ok is false when the YAML
// parser must read it.
//
// watch, when not nil, is a task id to report when named a second time
// (see locateDup).
func parseNamesFast(file string, src io.Reader, watch *uint32) (n *Names, stop fastStop, ok bool) {
	r := bufio.NewReaderSize(src, maxNamesLine)
	head, _ := r.Peek(maxNamesLine)
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		return nil, fastStop{line: 1, col: 1}, false
	}
	if t := bytes.TrimLeft(head, " \r\n"); len(t) > 0 && t[0] == '{' {
		return parseNamesJSON(newFastNames(file, watch), r)
	}
	return parseNamesBlockYAML(newFastNames(file, watch), r)
}

// yamlPrintable reports whether data is UTF-8 of only the characters YAML
// allows in a stream (tabs aside, which the fast paths refuse), with no
// line break but \n and \r. go-yaml also breaks lines at U+0085, U+2028
// and U+2029 (YAML 1.1), so "#\u0085x" is a comment and then a document "x";
// the fast paths leave such files to it.
func yamlPrintable(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\r' || c == 0x7F {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 || r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFFFE || r == 0xFFFF {
			return false
		}
		i += size
	}
	return true
}

// sectionMax is the largest key of each section.
var sectionMax = map[string]uint64{"stages": 1<<32 - 1, "graph_stages": abi.GraphStageCount - 1, "tasks": 1<<32 - 1}

// fastNames collects a names file read by a fast path, refusing what the
// YAML path would report as a problem.
type fastNames struct {
	file string
	key  []byte // the JSON path's copy of the key being read
	// watch is a task id whose second naming is reported; watchSeen
	// says it was named once.
	watch     *uint32
	watchSeen bool
	names     *Names
	seen      map[string]bool
	section   string
	// intern holds one copy of each stage name (the few of stages and
	// graph_stages; TaskNames holds the tasks' once each).
	intern map[string]string
	ok     bool
	err    *Error
}

func newFastNames(file string, watch *uint32) *fastNames {
	return &fastNames{file: file, watch: watch, names: &Names{Stages: map[uint32]string{}},
		seen: map[string]bool{}, intern: map[string]string{}, ok: true}
}

func (f *fastNames) startSection(name []byte) {
	if _, known := sectionMax[string(name)]; !known || f.seen[string(name)] {
		f.ok = false
		return
	}
	f.section = string(name)
	f.seen[f.section] = true
}

// entry reads key: value at line and col (of the key; the value starts
// at valueCol).
func (f *fastNames) entry(key, value []byte, line, col, valueCol int) {
	id, ok := parseIDBytes(key)
	if !f.ok || !ok || id > sectionMax[f.section] || isBlank(value) {
		f.ok = false
		return
	}
	// The path is built only for a problem: a string an entry would be
	// 10M allocations for a 10M-task file.
	at := func() string { return f.section + "." + string(key) }
	if len(value) > MaxNameBytes {
		f.fail(&Error{File: f.file, Line: line, Col: valueCol, Path: at(), Msg: longName()})
		return
	}
	switch f.section {
	case "stages":
		f.stage(uint32(id), f.internName(value))
	case "graph_stages":
		desc := uint32(abi.GraphStageBase) + uint32(id)
		f.stage(desc, abi.FormatDisplay(abi.NamespaceGraphStage, desc, f.internName(value)))
	case "tasks":
		if f.watch != nil && uint32(id) == *f.watch {
			if f.watchSeen {
				f.fail(&Error{File: f.file, Line: line, Col: col, Path: at(), Msg: fmt.Sprintf("id %d is already named", id)})
				return
			}
			f.watchSeen = true
		}
		if !f.names.Tasks.addBytes(uint32(id), value) {
			f.fail(&Error{File: f.file, Line: line, Col: col, Path: at(), Msg: fmt.Sprintf("id %d is already named", id)})
		}
	}
}

func (f *fastNames) fail(e *Error) {
	f.ok, f.err = false, e
}

func (f *fastNames) internName(value []byte) string {
	name, interned := f.intern[string(value)]
	if !interned {
		name = string(value)
		f.intern[name] = name
	}
	return name
}

// finish ends the file: a task named twice in a sparse table is found
// here, and placed by the caller.
func (f *fastNames) finish() (dup uint32, ok bool) {
	return f.names.Tasks.finish()
}

// longName is the problem of a name over MaxNameBytes.
func longName() string {
	return fmt.Sprintf("a name is longer than the cap of %d bytes", MaxNameBytes)
}

// stage names a desc_id; naming one twice (in one section, or in stages
// and graph_stages) is a problem the YAML path reports.
func (f *fastNames) stage(desc uint32, name string) {
	if _, dup := f.names.Stages[desc]; dup {
		f.ok = false
		return
	}
	f.names.Stages[desc] = name
}

// parseIDBytes reads a key as idRE does: decimal without leading zeros,
// or 0x hex; ok is false for anything else or past 64 bits.
func parseIDBytes(b []byte) (id uint64, ok bool) {
	if len(b) > 2 && b[0] == '0' && b[1]|0x20 == 'x' {
		for _, c := range b[2:] {
			var d byte
			switch {
			case '0' <= c && c <= '9':
				d = c - '0'
			case 'a' <= c|0x20 && c|0x20 <= 'f':
				d = c | 0x20 - 'a' + 10
			default:
				return 0, false
			}
			if id>>60 != 0 {
				return 0, false
			}
			id = id<<4 | uint64(d)
		}
		return id, true
	}
	if len(b) == 0 || len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' || id > (1<<64-1-9)/10 {
			return 0, false
		}
		id = id*10 + uint64(c-'0')
	}
	return id, true
}

// isBlank reports whether b holds only YAML white space (spaces and line
// breaks; tabs never reach here). Unicode spaces such as U+00A0 are not
// YAML white space: a value of them is a name.
func isBlank(b []byte) bool { return len(bytes.Trim(b, " \r\n")) == 0 }

// parseNamesJSON reads a names file that is a JSON object of objects of
// strings, with jsonread, the reader every JSON input goes through.
func parseNamesJSON(f *fastNames, src io.Reader) (*Names, fastStop, bool) {
	r := jsonread.NewSize(f.file, src, maxNamesLine)
	r.CheckUTF8, r.Columns = true, true
	// A name past the cap is reported, not read whole: an escape is at
	// most 6 bytes for a byte of the name.
	r.MaxValue = 6*MaxNameBytes + 2
	ok := jsonObject(r, func(section []byte, _, _ int) bool {
		// null, a list or a bad section: the YAML path says which.
		if f.startSection(section); !f.ok || r.Peek() != '{' {
			return false
		}
		return jsonObject(r, func(key []byte, line, col int) bool {
			key = append(f.key[:0], key...) // Str reuses its buffer
			f.key = key
			if r.Peek() != '"' {
				return false
			}
			valueCol := r.Col()
			value, err := r.Str()
			if errors.Is(err, jsonread.ErrTooLong) {
				value = tooLongName // stands for the name that did not fit
			} else if err != nil || r.Escaped() || !yamlPrintable(value) {
				// An escape, as any other file: the YAML path.
				return false
			}
			f.entry(key, value, line, col, valueCol)
			return f.ok
		})
	})
	if !ok || !r.AtEnd() {
		return nil, fastStop{line: r.Pos().Line, col: r.Col(), err: f.err}, false
	}
	return f.done(r.Pos().Line, r.Col())
}

// tooLongName is longer than MaxNameBytes.
var tooLongName = make([]byte, MaxNameBytes+1)

// jsonObject reads {key: value, ...}, calling field with each key and its
// line and column, which must read the value.
func jsonObject(r *jsonread.Reader, field func(key []byte, line, col int) bool) bool {
	if r.Peek() != '{' {
		return false
	}
	r.Advance()
	if r.Peek() == '}' {
		r.Advance()
		return true
	}
	for {
		r.Peek()
		line, col := r.Pos().Line, r.Col()
		key, _, err := r.Key()
		if err != nil || len(key) > 64 || !field(key, line, col) {
			return false
		}
		switch r.Peek() {
		case '}':
			r.Advance()
			return true
		case ',':
			r.Advance()
		default:
			return false
		}
	}
}

// done ends a file a fast path read whole.
func (f *fastNames) done(line, col int) (*Names, fastStop, bool) {
	if dup, ok := f.finish(); !ok {
		return nil, fastStop{line: line, col: col, dup: &dup}, false
	}
	return f.names, fastStop{}, true
}

// parseNamesBlockYAML reads the block YAML a generator writes:
//
//	# comment
//	graph_stages:
//	  0: MoeRouter    # comment
//	tasks:
//	  17: Combine
//
// Names must be plain scalars of letters, digits, '_', '-' and '.',
// starting with a letter or '_'; keys decimal or 0x hex.
func parseNamesBlockYAML(f *fastNames, r *bufio.Reader) (*Names, fastStop, bool) {
	file := f.file
	indent := -1
	lineNo := 0
	for {
		line, err := r.ReadSlice('\n')
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				break
			}
			return nil, fastStop{line: lineNo + 1, col: 1}, false
		}
		lineNo++
		stop := fastStop{line: lineNo, col: 1}
		if err == bufio.ErrBufferFull {
			// A line longer than any entry with a name under the cap.
			stop.err = &Error{File: file, Line: lineNo, Col: 1, Msg: fmt.Sprintf("a line of more than %d bytes: %s", maxNamesLine, longName())}
			return nil, stop, false
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if !yamlPrintable(line) || bytes.IndexByte(line, '\t') >= 0 || bytes.IndexByte(line, '\r') >= 0 {
			return nil, stop, false
		}
		text := stripComment(line)
		if isBlank(text) {
			if len(text) > 0 && text[0] != ' ' {
				return nil, stop, false
			}
			continue
		}
		text = bytes.TrimRight(text, " ")
		if text[0] != ' ' {
			// A section: "name:" at column 0.
			name, ok := bytes.CutSuffix(text, []byte(":"))
			if !ok || !plainWord(name) {
				return nil, stop, false
			}
			f.startSection(name)
			indent = -1
		} else {
			if f.section == "" {
				return nil, stop, false
			}
			n := len(text) - len(bytes.TrimLeft(text, " "))
			if indent < 0 {
				indent = n
			}
			key, value, ok := bytes.Cut(text[n:], []byte(": "))
			if n != indent || !ok {
				return nil, stop, false
			}
			trimmed := bytes.TrimLeft(value, " ")
			valueCol := n + len(key) + 2 + len(value) - len(trimmed) + 1
			if !plainName(trimmed) {
				return nil, stop, false
			}
			f.entry(key, trimmed, lineNo, n+1, valueCol)
		}
		if !f.ok {
			stop.err = f.err
			return nil, stop, false
		}
	}
	return f.done(lineNo+1, 1)
}

// stripComment removes a " #..." comment, or a whole-line "#..." one.
func stripComment(line []byte) []byte {
	for i, c := range line {
		if c == '#' && (i == 0 || line[i-1] == ' ') {
			return line[:i]
		}
	}
	return line
}

func plainWord(b []byte) bool {
	for _, c := range b {
		if !(c == '_' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return len(b) > 0
}

// plainName reports whether YAML reads b as the plain string b itself.
func plainName(b []byte) bool {
	if len(b) == 0 || !(b[0] == '_' || 'a' <= b[0]|0x20 && b[0]|0x20 <= 'z') {
		return false
	}
	for _, c := range b {
		if !(c == '_' || c == '-' || c == '.' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z') {
			return false
		}
	}
	for _, word := range []string{"null", "true", "false", ".inf", ".nan"} {
		if bytes.EqualFold(b, []byte(word)) {
			return false
		}
	}
	return true
}
