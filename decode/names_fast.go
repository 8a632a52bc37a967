package decode

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/gen/go/abi"
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
// suggests; ok is false when the YAML parser must read it.
func parseNamesFast(data []byte) (n *Names, ok bool) {
	if !yamlPrintable(data) || bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, false
	}
	if t := bytes.TrimLeft(data, " \r\n"); len(t) > 0 && t[0] == '{' {
		return parseNamesJSON(data)
	}
	return parseNamesBlockYAML(data)
}

// yamlPrintable reports whether data is UTF-8 of only the characters YAML
// allows in a stream (tabs aside, which the fast paths refuse).
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
		if r == utf8.RuneError && size == 1 || r < 0xA0 && r != 0x85 || r == 0xFFFE || r == 0xFFFF {
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
	ids     map[uint64]bool // the current section's ids
	ok      bool
}

func newFastNames() *fastNames {
	return &fastNames{names: &Names{Stages: map[uint32]string{}, Tasks: map[uint32]string{}}, seen: map[string]bool{}, ok: true}
}

func (f *fastNames) startSection(name string) {
	if _, known := sectionMax[name]; !known || f.seen[name] {
		f.ok = false
		return
	}
	f.seen[name] = true
	f.section = name
	f.ids = map[uint64]bool{}
}

func (f *fastNames) entry(key, value string) {
	if !f.ok || !idRE.MatchString(key) {
		f.ok = false
		return
	}
	id, err := strconv.ParseUint(key, 0, 64)
	if err != nil || id > sectionMax[f.section] || f.ids[id] || isBlank(value) {
		f.ok = false
		return
	}
	f.ids[id] = true
	switch f.section {
	case "stages":
		f.stage(uint32(id), value)
	case "graph_stages":
		desc := uint32(abi.GraphStageBase) + uint32(id)
		f.stage(desc, abi.FormatDisplay(abi.NamespaceGraphStage, desc, value))
	case "tasks":
		f.names.Tasks[uint32(id)] = value
	}
}

func (f *fastNames) stage(desc uint32, name string) {
	if _, dup := f.names.Stages[desc]; dup {
		f.ok = false // stages and graph_stages name the same desc_id
		return
	}
	f.names.Stages[desc] = name
}

func isBlank(s string) bool { return len(bytes.TrimSpace([]byte(s))) == 0 }

// parseNamesJSON reads a names file that is a JSON object of objects of
// strings without escapes.
func parseNamesJSON(data []byte) (*Names, bool) {
	// Escapes, tabs and lone carriage returns are where JSON and YAML
	// could read a file differently: those files take the YAML path.
	if bytes.ContainsAny(data, "\\\t") || bytes.Contains(bytes.ReplaceAll(data, []byte("\r\n"), nil), []byte("\r")) {
		return nil, false
	}
	j := jsonScanner{data: data}
	f := newFastNames()
	if !j.punct('{') {
		return nil, false
	}
	for first := true; !j.punct('}'); first = false {
		if !first && !j.punct(',') {
			return nil, false
		}
		name, ok := j.str()
		if !ok || !j.punct(':') || !j.punct('{') {
			return nil, false // null, a list, or a bad section: the YAML path says which
		}
		if f.startSection(name); !f.ok {
			return nil, false
		}
		for first := true; !j.punct('}'); first = false {
			if !first && !j.punct(',') {
				return nil, false
			}
			key, ok1 := j.str()
			ok2 := j.punct(':')
			value, ok3 := j.str()
			if !ok1 || !ok2 || !ok3 {
				return nil, false
			}
			if f.entry(key, value); !f.ok {
				return nil, false
			}
		}
	}
	j.space()
	return f.names, j.i == len(j.data)
}

// jsonScanner reads the tokens of a JSON text known to hold no escapes.
type jsonScanner struct {
	data []byte
	i    int
}

func (j *jsonScanner) space() {
	for j.i < len(j.data) && (j.data[j.i] == ' ' || j.data[j.i] == '\n' || j.data[j.i] == '\r') {
		j.i++
	}
}

// punct consumes c after optional whitespace. At the end of the data it
// reports false, and so ends every loop.
func (j *jsonScanner) punct(c byte) bool {
	j.space()
	if j.i < len(j.data) && j.data[j.i] == c {
		j.i++
		return true
	}
	return false
}

// str reads a string (no escapes, no control characters).
func (j *jsonScanner) str() (string, bool) {
	if !j.punct('"') {
		return "", false
	}
	end := bytes.IndexByte(j.data[j.i:], '"')
	if end < 0 {
		return "", false
	}
	s := j.data[j.i : j.i+end]
	for _, c := range s {
		if c < 0x20 {
			return "", false
		}
	}
	j.i += end + 1
	return string(s), true
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
func parseNamesBlockYAML(data []byte) (*Names, bool) {
	f := newFastNames()
	indent := -1
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if bytes.IndexByte(line, '\t') >= 0 || bytes.IndexByte(line, '\r') >= 0 {
			return nil, false
		}
		text := stripComment(line)
		if len(bytes.TrimSpace(text)) == 0 {
			if len(text) > 0 && text[0] != ' ' {
				return nil, false
			}
			continue
		}
		text = bytes.TrimRight(text, " ")
		if text[0] != ' ' {
			// A section: "name:" at column 0.
			name, ok := bytes.CutSuffix(text, []byte(":"))
			if !ok || !plainWord(name) {
				return nil, false
			}
			f.startSection(string(name))
			indent = -1
		} else {
			if f.section == "" {
				return nil, false
			}
			n := len(text) - len(bytes.TrimLeft(text, " "))
			if indent < 0 {
				indent = n
			}
			key, value, ok := bytes.Cut(text[n:], []byte(": "))
			if n != indent || !ok {
				return nil, false
			}
			value = bytes.TrimLeft(value, " ")
			if !plainName(value) {
				return nil, false
			}
			f.entry(string(key), string(value))
		}
		if !f.ok {
			return nil, false
		}
	}
	return f.names, true
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
