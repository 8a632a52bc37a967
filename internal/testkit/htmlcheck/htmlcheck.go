// Package htmlcheck reads a report page back for tests: whether it is
// well-formed HTML, whether it refers to anything outside itself, and the
// numbers of its data tables. It parses with golang.org/x/net/html, the
// HTML5 parsing algorithm browsers use.
package htmlcheck

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

var void = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// Valid returns the page's problems as HTML: a missing doctype, a tag
// closed out of order or never, a self-closing tag outside SVG, any
// element the HTML5 parser had to add, move or drop (its element sequence
// differs from the tags written), a parse that does not round-trip, and
// ids used twice.
func Valid(data []byte) []string {
	var probs []string
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("<!DOCTYPE html>")) {
		probs = append(probs, "no <!DOCTYPE html> first")
	}
	z := html.NewTokenizer(bytes.NewReader(data))
	var stack, written []string
	svgDepth := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tok := z.Token()
		name := tok.Data
		switch tt {
		case html.StartTagToken:
			written = append(written, name)
			if void[name] {
				continue
			}
			stack = append(stack, name)
			if name == "svg" {
				svgDepth++
			}
		case html.SelfClosingTagToken:
			written = append(written, name)
			if svgDepth == 0 && !void[name] {
				probs = append(probs, fmt.Sprintf("<%s/> self-closed outside SVG", name))
			}
		case html.EndTagToken:
			if len(stack) == 0 || stack[len(stack)-1] != name {
				probs = append(probs, fmt.Sprintf("</%s> closes %v", name, stack))
				return probs
			}
			stack = stack[:len(stack)-1]
			if name == "svg" {
				svgDepth--
			}
		}
	}
	if len(stack) > 0 {
		probs = append(probs, fmt.Sprintf("never closed: %v", stack))
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return append(probs, "parse: "+err.Error())
	}
	var parsed []string
	ids := map[string]int{}
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		parsed = append(parsed, strings.ToLower(n.Data))
		if id := Attr(n, "id"); id != "" {
			ids[id]++
		}
	})
	if strings.Join(parsed, " ") != strings.Join(written, " ") {
		i := 0
		for i < len(parsed) && i < len(written) && parsed[i] == written[i] {
			i++
		}
		probs = append(probs, fmt.Sprintf("the parser's elements differ from the tags written at element %d: parsed %v, written %v",
			i, parsed[i:min(len(parsed), i+5)], written[i:min(len(written), i+5)]))
	}
	for id, k := range ids {
		if k > 1 {
			probs = append(probs, fmt.Sprintf("id %q used %d times", id, k))
		}
	}
	var one, two bytes.Buffer
	if err := html.Render(&one, doc); err != nil {
		return append(probs, "render: "+err.Error())
	}
	doc2, err := html.Parse(bytes.NewReader(one.Bytes()))
	if err != nil {
		return append(probs, "parse of the rendered page: "+err.Error())
	}
	if err := html.Render(&two, doc2); err != nil {
		return append(probs, "render: "+err.Error())
	}
	if one.String() != two.String() {
		probs = append(probs, "parse → render → parse does not round-trip")
	}
	return probs
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

// Walk calls f on every node under n, n first, in document order.
func Walk(n *html.Node, f func(*html.Node)) { walk(n, f) }

// Attr is n's attribute key ("" when absent).
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val
		}
	}
	return ""
}

// Text is the text under n.
func Text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

// loading are elements that load or embed something; a report has none.
var loading = map[string]bool{"link": true, "img": true, "iframe": true, "frame": true, "object": true, "embed": true,
	"base": true, "audio": true, "video": true, "source": true, "track": true, "image": true, "feimage": true,
	"form": true, "portal": true, "applet": true, "picture": true}

// urlAttrs are attributes that name a resource.
var urlAttrs = map[string]bool{"src": true, "srcset": true, "href": true, "action": true, "formaction": true, "poster": true,
	"data": true, "background": true, "ping": true, "manifest": true, "cite": true, "longdesc": true, "codebase": true,
	"archive": true, "lowsrc": true, "dynsrc": true, "icon": true, "xmlns": true}

var cssURL = regexp.MustCompile(`(?i)url\s*\(\s*['"]?\s*([^'")\s]*)`)

// External lists everything in the page that would load or name a
// resource outside it: loading elements, a scheme or a path in a URL
// attribute (only "#fragment" links are allowed), url() in CSS other than
// url(#fragment), @import and @font-face, a meta refresh, and in scripts
// the calls that reach the network.
func External(data []byte) []string {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return []string{"parse: " + err.Error()}
	}
	var found []string
	checkCSS := func(where, css string) {
		for _, m := range cssURL.FindAllStringSubmatch(css, -1) {
			if !strings.HasPrefix(m[1], "#") {
				found = append(found, fmt.Sprintf("%s: url(%s)", where, m[1]))
			}
		}
		low := strings.ToLower(css)
		for _, bad := range []string{"@import", "@font-face", "image-set(", "://"} {
			if strings.Contains(low, bad) {
				found = append(found, fmt.Sprintf("%s: %s", where, bad))
			}
		}
	}
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		name := strings.ToLower(n.Data)
		if loading[name] {
			found = append(found, fmt.Sprintf("<%s> element", name))
		}
		if name == "meta" && strings.EqualFold(Attr(n, "http-equiv"), "refresh") {
			found = append(found, "<meta http-equiv=refresh>")
		}
		for _, a := range n.Attr {
			key := strings.ToLower(a.Key)
			if a.Namespace != "" {
				key = a.Namespace + ":" + key
			}
			switch {
			case urlAttrs[key] || strings.HasSuffix(key, ":href"):
				if key == "href" || strings.HasSuffix(key, ":href") {
					if strings.HasPrefix(a.Val, "#") && !strings.ContainsAny(a.Val, ":/") {
						continue
					}
				}
				found = append(found, fmt.Sprintf("<%s %s=%q>", name, a.Key, a.Val))
			case key == "style":
				checkCSS(fmt.Sprintf("<%s style>", name), a.Val)
			case strings.HasPrefix(key, "on"):
				found = append(found, fmt.Sprintf("<%s %s> inline handler", name, a.Key))
			}
			if strings.Contains(strings.ToLower(a.Val), "url(") && key != "style" {
				checkCSS(fmt.Sprintf("<%s %s>", name, a.Key), a.Val)
			}
		}
		switch name {
		case "style":
			checkCSS("<style>", Text(n))
		case "script":
			if Attr(n, "src") != "" {
				return // reported above
			}
			js := Text(n)
			for _, bad := range []string{"fetch(", "XMLHttpRequest", "import(", "import ", "WebSocket", "EventSource",
				"sendBeacon", "Worker(", "://", ".src", "location", "window.open", "document.write"} {
				if strings.Contains(js, bad) {
					found = append(found, fmt.Sprintf("<script>: %s", bad))
				}
			}
		}
	})
	return found
}

// Cell is one cell of a data table.
type Cell struct {
	// F names the field of analyze's JSON the cell shows ("" for none),
	// V is its exact value, Text what the page shows.
	F, V, Text string
	HasV       bool
}

// Row is one row of a data table.
type Row struct {
	Key   string
	Cells []Cell
}

// Table is one of the page's data tables.
type Table struct {
	Name string
	// Rank is the data-rank attribute: the index of the rank (or of the
	// compared rank) in the report; "" when the table is not per rank.
	Rank string
	Rows []Row
}

// Tables returns the page's tables with a data-table attribute.
func Tables(doc *html.Node) []Table {
	var out []Table
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode || n.Data != "table" || Attr(n, "data-table") == "" {
			return
		}
		t := Table{Name: Attr(n, "data-table"), Rank: Attr(n, "data-rank")}
		walk(n, func(r *html.Node) {
			if r.Type != html.ElementNode || r.Data != "tr" || r.Parent == nil || r.Parent.Data != "tbody" {
				return
			}
			row := Row{Key: Attr(r, "data-key")}
			for c := r.FirstChild; c != nil; c = c.NextSibling {
				if c.Type != html.ElementNode || c.Data != "td" {
					continue
				}
				cell := Cell{F: Attr(c, "data-f"), Text: strings.TrimSpace(Text(c))}
				for _, a := range c.Attr {
					if a.Key == "data-v" {
						cell.V, cell.HasV = a.Val, true
					}
				}
				row.Cells = append(row.Cells, cell)
			}
			t.Rows = append(t.Rows, row)
		})
		out = append(out, t)
	})
	return out
}
