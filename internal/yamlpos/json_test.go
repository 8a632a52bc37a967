package yamlpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

var noCapJSON = Limits{Input: 1 << 30, YAML: 1 << 30}

// JSON that go-yaml refused is read: a surrogate pair escape (what
// Python's json.dump writes for every emoji), a raw DEL, a lone surrogate
// (U+FFFD, as encoding/json reads it).
func TestDocumentValidJSON(t *testing.T) {
	for text, want := range map[string]string{
		`{"tasks":{"0":"\ud83d\ude00"}}`:         "😀",
		"{\"tasks\":{\"0\":\"a\x7fb\"}}":         "a\x7fb",
		`{"tasks":{"0":"x\ud800y"}}`:             "x\uFFFDy",
		`{"tasks":{"0":"\u00e9\n\t\/\\\""}}`:     "é\n\t/\\\"",
		"{\"tasks\":{\"0\":\"Gate\tFFN\"}}":      "Gate\tFFN", // not JSON, but YAML
		"\ufeff{\"tasks\":\t{\"0\": \"é\"}}\r\n": "é",
	} {
		root, err := Document("n.json", "YAML or JSON", []byte(text), noCapJSON, "")
		require.NoErrorf(t, err, "%s", text)
		v := root.Content[1].Content[1]
		assert.Equalf(t, want, v.Value, "%s: v.Value", text)
		assert.Equal(t, "!!str", v.Tag, "v.Tag")
	}
}

// Problems are placed at their line and column (characters), where they
// used to be at 1:1.
func TestDocumentPositions(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"{\"tasks\":{\"0\":\"\x00\"}}", "f:1:16: invalid YAML or JSON: control character U+0000 is not allowed"},
		{"tasks:\n\x00", "f:2:1: invalid YAML or JSON: control character U+0000 is not allowed"},
		{"tasks:\n  0: a\n  1: é\xffc\n", "f:3:7: invalid YAML or JSON: byte 0xff is not valid UTF-8"},
		{"a: \x7f\n", "f:1:4: invalid YAML or JSON: control character U+007F is not allowed"},
		{"a: \u0085\u0086\n", "f:1:5: invalid YAML or JSON: control character U+0086 is not allowed"},
		{"a: 1\nb: \"x\\ud83d\\ude00\"\n", `f:2:6: invalid YAML or JSON: \ud83d is half of a UTF-16 surrogate pair, which YAML does not read outside JSON; write the character itself, or \U and 8 hex digits`},
		{`{"tasks":{"0":"\ud83d\ude00", "1": tru}}`, `f:1:36: invalid JSON: "tru" is not a JSON value`},
		{"[1,\n 2,\n \"3\" 4]", "f:3:6: invalid JSON: expected ',' or ']' in an array, found '4'"},
		{"{\"é\": \"\\q\"}", `f:1:8: invalid JSON: invalid escape \q`},
		{`{"a": "x`, "f:1:7: invalid JSON: a string has no closing quote"},
		{strings.Repeat("[", 1001), "f:1:1001: invalid JSON: arrays and objects nested more than 1000 deep"},
	} {
		_, err := Document("f", "YAML or JSON", []byte(c.text), noCapJSON, "")
		assert.EqualErrorf(t, err, c.want, "%q: error %v, want %q", c.text, err, c.want)
	}
}

// Every node of a JSON text gets go-yaml's line, column, kind, tag, style
// and value: for JSON go-yaml reads, the two trees are the same.
func TestJSONNodesMatchGoYAML(t *testing.T) {
	for _, text := range []string{
		`{"stages": {"0x10001": "Prefetch"}, "tasks": {"0": "é ü", "17": "Combine"}}`,
		"{\n  \"mode\": \"aic_aiv\",\n  \"num_workers\": 2,\n  \"tasks\": [\n    {\"task_type\": \"MatMul\", \"x\": [1, -2.5e3, true, false, null, {}, []]}\n  ]\n}",
		`[1, 0, -0, 1.5, 1e400, "1", "", "null"]`,
		"{\"a\":\n\n   {\"b\":   \"c\"}}",
	} {
		got, jerr := parseJSON([]byte(text))
		require.Nilf(t, jerr, "%s: jerr", text)
		var doc yaml.Node
		require.NoErrorf(t, yaml.Unmarshal([]byte(text), &doc), "%s", text)
		assert.Equalf(t, dumpNode(doc.Content[0]), dumpNode(got), "%s: dumpNode(got)", text)
	}
}

func dumpNode(n *yaml.Node) string {
	var b strings.Builder
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		fmt.Fprintf(&b, "%*s%d:%d kind=%d tag=%s style=%d %q\n", depth*2, "", n.Line, n.Column, n.Kind, n.Tag, n.Style, n.Value)
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// tokensOf renders the tokens of a JSON text as encoding/json reads them
// (numbers as written, strings decoded), or ok=false when it refuses it.
func tokensOf(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", false
		}
		fmt.Fprintf(&b, "%T %v\n", tok, tok)
	}
	// Token reads a stream: one value only, and nothing after it.
	var rest json.RawMessage
	if dec.More() || dec.Decode(&rest) != io.EOF {
		return "", false
	}
	return b.String(), json.Valid(data)
}

// nodeTokens renders a parseJSON tree as tokensOf renders the text.
func nodeTokens(n *yaml.Node) string {
	var b strings.Builder
	var walk func(n *yaml.Node, key bool)
	walk = func(n *yaml.Node, key bool) {
		switch n.Kind {
		case yaml.MappingNode:
			fmt.Fprintf(&b, "json.Delim {\n")
			for i, c := range n.Content {
				walk(c, i%2 == 0)
			}
			fmt.Fprintf(&b, "json.Delim }\n")
		case yaml.SequenceNode:
			fmt.Fprintf(&b, "json.Delim [\n")
			for _, c := range n.Content {
				walk(c, false)
			}
			fmt.Fprintf(&b, "json.Delim ]\n")
		default:
			switch {
			case n.Style == yaml.DoubleQuotedStyle:
				fmt.Fprintf(&b, "string %v\n", n.Value)
			case n.Value == "true" || n.Value == "false":
				fmt.Fprintf(&b, "bool %v\n", n.Value)
			case n.Value == "null":
				fmt.Fprintf(&b, "<nil> <nil>\n")
			default:
				fmt.Fprintf(&b, "json.Number %v\n", n.Value)
			}
		}
	}
	walk(n, false)
	return b.String()
}

// FuzzJSON holds parseJSON to encoding/json: it reads exactly the JSON
// texts (of an object or array, in UTF-8) encoding/json reads, to the same
// values, and an error's offset is inside the text.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"tasks":{"0":"\ud83d\ude00"}}`, "[\"a\x7f\"]", `{"a":[1,-0.5e+3,true,null,{}]}`, `[1 2]`, `{"a":"\ud800"}`, "{\"a\":\"\x00\"}", `[01]`, `{"a" 1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !looksLikeJSON(data) || !utf8.Valid(data) || bytes.HasPrefix(data, []byte("\ufeff")) || bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) > maxJSONDepth {
			return
		}
		want, ok := tokensOf(data)
		root, jerr := parseJSON(data)
		require.Equalf(t, (jerr == nil), ok, "encoding/json ok, parseJSON error %v", jerr)
		if jerr != nil {
			require.GreaterOrEqual(t, jerr.Off, 0, "error offset outside the %d-byte text", len(data))
			require.LessOrEqual(t, jerr.Off, len(data), "error offset outside the %d-byte text", len(data))
			return
		}
		require.Equal(t, want, nodeTokens(root), "parseJSON")
	})
}
