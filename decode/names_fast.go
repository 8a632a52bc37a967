package decode

import (
	"bytes"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsonscan"
)

// Names files list every task of a graph, so they can be large (a
// 500k-record capture comes with ~170k tasks). go-yaml builds a node tree
// of ~200 bytes per scalar: 120 MB for such a file. The two fast paths here
// read the common shapes straight into the maps: a JSON object of objects
// of strings without escapes, and block YAML whose entries are
// "  <id>: <plain name>" lines. Each accepts only files it is sure go-yaml
// reads the same way, with no problem in them; anything else (including
// every error) goes through the YAML parser, which reports it with its
// line and column. FuzzNamesFastPaths holds them to agreeing.

// parseNamesFast reads a names file by the fast path its first byte
// suggests; ok is false when the YAML parser must read it, and stop is
// then the offset where the fast path stopped.
func parseNamesFast(data []byte) (n *Names, stop int, ok bool) {
	if !yamlPrintable(data) || bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, 0, false
	}
	if t := bytes.TrimLeft(data, " \r\n"); len(t) > 0 && t[0] == '{' {
		return parseNamesJSON(data)
	}
	return parseNamesBlockYAML(data)
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
	names   *Names
	seen    map[string]bool
	section string
	// intern holds one copy of each name: a task stage name is shared by
	// thousands of tasks.
	intern map[string]string
	ok     bool
}

// newFastNames starts the names of a file of at most entries entries
// (sized up front: growing a map of a million tasks doubles its memory).
func newFastNames(entries int) *fastNames {
	return &fastNames{names: &Names{Stages: map[uint32]string{}, Tasks: make(map[uint32]string, entries)},
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

func (f *fastNames) entry(key, value []byte) {
	id, ok := parseIDBytes(key)
	if !f.ok || !ok || id > sectionMax[f.section] || isBlank(value) {
		f.ok = false
		return
	}
	name, interned := f.intern[string(value)]
	if !interned {
		name = string(value)
		f.intern[name] = name
	}
	switch f.section {
	case "stages":
		f.stage(uint32(id), name)
	case "graph_stages":
		desc := uint32(abi.GraphStageBase) + uint32(id)
		f.stage(desc, abi.FormatDisplay(abi.NamespaceGraphStage, desc, name))
	case "tasks":
		if _, dup := f.names.Tasks[uint32(id)]; dup {
			f.ok = false
			return
		}
		f.names.Tasks[uint32(id)] = name
	}
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
// strings without escapes.
func parseNamesJSON(data []byte) (*Names, int, bool) {
	j := jsonscan.Scanner{Data: data}
	f := newFastNames(bytes.Count(data, []byte(":")))
	ok := j.Object(func(section []byte) bool {
		// null, a list or a bad section: the YAML path says which.
		if f.startSection(section); !f.ok || j.Peek() != '{' {
			return false
		}
		return j.Object(func(key []byte) bool {
			value, ok := j.Str()
			if ok {
				f.entry(key, value)
			}
			return ok && f.ok
		})
	})
	if !ok || !j.AtEnd() {
		return nil, j.I, false
	}
	return f.names, j.I, true
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
func parseNamesBlockYAML(data []byte) (*Names, int, bool) {
	f := newFastNames(bytes.Count(data, []byte("\n")))
	indent := -1
	all, stop := data, 0
	for len(data) > 0 {
		stop = len(all) - len(data)
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if bytes.IndexByte(line, '\t') >= 0 || bytes.IndexByte(line, '\r') >= 0 {
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
			value = bytes.TrimLeft(value, " ")
			if !plainName(value) {
				return nil, stop, false
			}
			f.entry(key, value)
		}
		if !f.ok {
			return nil, stop, false
		}
	}
	return f.names, len(all), true
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
	switch string(bytes.ToLower(b)) {
	case "null", "true", "false", ".inf", ".nan":
		return false
	}
	return true
}
