package docgen

import (
	"fmt"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// Struct diagrams draw rowBytes bytes per row, each byte cellWidth
// characters wide (the "+" or "|" before it included).
const (
	rowBytes  = 8
	cellWidth = 6
)

// drawStruct draws st as rows of bytes with a byte ruler, one box per field
// (a field that spans rows is one box over them):
//
//	        0     1     2     3     4     5     6     7
//	     +-----+-----+-----+-----+-----+-----+-----+-----+
//	0x00 |                  entry_cycle                  |
//	     +-----+-----+-----+-----+-----+-----+-----+-----+
//	0x08 |     record_count      |     dropped_count     |
//	     +-----+-----+-----+-----+-----+-----+-----+-----+
//
// A name too long for its box is replaced by [n], listed under the diagram.
func drawStruct(st *schema.Struct) string {
	if st.Size == 0 {
		return ""
	}
	owner := make([]int, st.Size)
	for i := range owner {
		owner[i] = -1
	}
	for fi, f := range st.Fields {
		for b := f.Offset; b < f.End() && b < st.Size; b++ {
			owner[b] = fi
		}
	}
	rows := (st.Size + rowBytes - 1) / rowBytes
	width := func(r int) int { return min(rowBytes, st.Size-r*rowBytes) }
	at := func(r, c int) int { return owner[r*rowBytes+c] }

	// Each field's name goes in its widest piece, the middle one of equals.
	type piece struct{ row, col, n int }
	pieces := map[int][]piece{}
	for r := range rows {
		for c := 0; c < width(r); {
			end := c
			for end < width(r) && at(r, end) == at(r, c) {
				end++
			}
			pieces[at(r, c)] = append(pieces[at(r, c)], piece{r, c, end - c})
			c = end
		}
	}
	label := map[[2]int]string{} // (row, col) of a piece → text
	var legend []string
	for fi, f := range st.Fields {
		ps := pieces[fi]
		if len(ps) == 0 {
			continue
		}
		best := 0
		for _, p := range ps {
			best = max(best, p.n)
		}
		var widest []piece
		for _, p := range ps {
			if p.n == best {
				widest = append(widest, p)
			}
		}
		p := widest[(len(widest)-1)/2]
		text := f.Name
		if len(text) > p.n*cellWidth-1 {
			text = fmt.Sprintf("[%d]", len(legend)+1)
			legend = append(legend, fmt.Sprintf("%s %s", text, f.Name))
		}
		label[[2]int{p.row, p.col}] = text
	}

	digits := max(2, len(fmt.Sprintf("%x", st.Size-1)))
	indent := strings.Repeat(" ", digits+3)
	var b strings.Builder
	ruler := indent
	for c := range min(rowBytes, st.Size) {
		ruler += fmt.Sprintf("%*d%*s", cellWidth/2+1, c, cellWidth-cellWidth/2-1, "")
	}
	b.WriteString(strings.TrimRight(ruler, " ") + "\n")
	b.WriteString(strings.TrimRight(indent+separator(-1, 0, width, at, rows), " ") + "\n")
	for r := range rows {
		fmt.Fprintf(&b, "0x%0*x |", digits, r*rowBytes)
		for c := 0; c < width(r); {
			end := c
			for end < width(r) && at(r, end) == at(r, c) {
				end++
			}
			w := (end-c)*cellWidth - 1
			text := label[[2]int{r, c}]
			left := (w - len(text)) / 2
			fmt.Fprintf(&b, "%*s%s%*s|", left, "", text, w-left-len(text), "")
			c = end
		}
		b.WriteString("\n")
		b.WriteString(strings.TrimRight(indent+separator(r, r+1, width, at, rows), " ") + "\n")
	}
	for _, l := range legend {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// separator draws the line between row above and row below (-1 or rows
// for none): dashes under every byte whose field ends there, "+" at every
// byte boundary of a dashed stretch and wherever a box edge meets it.
func separator(above, below int, width func(int) int, at func(r, c int) int, rows int) string {
	wa, wb := 0, 0
	if above >= 0 {
		wa = width(above)
	}
	if below < rows {
		wb = width(below)
	}
	w := max(wa, wb)
	dash := func(c int) bool {
		if c < 0 || c >= w {
			return false
		}
		return c >= wa || c >= wb || at(above, c) != at(below, c)
	}
	bar := func(r, wr, j int) bool {
		if r < 0 || r >= rows {
			return false
		}
		return j == wr || j > 0 && j < wr && at(r, j-1) != at(r, j)
	}
	var b strings.Builder
	for j := 0; j <= w; j++ {
		if j == 0 || j == w || dash(j-1) || dash(j) || bar(above, wa, j) || bar(below, wb, j) {
			b.WriteByte('+')
		} else {
			b.WriteByte(' ')
		}
		if j < w {
			fill := "     "
			if dash(j) {
				fill = "-----"
			}
			b.WriteString(fill)
		}
	}
	return b.String()
}

// drawBoxes draws one row of boxes, one per label:
//
//	+-----------------+--------------+-----+
//	| CoreHeader (64) | record 0 (32) | ... |
//	+-----------------+--------------+-----+
func drawBoxes(labels []string) string {
	var edge, mid strings.Builder
	for _, l := range labels {
		edge.WriteString("+" + strings.Repeat("-", len(l)+2))
		mid.WriteString("| " + l + " ")
	}
	edge.WriteString("+\n")
	mid.WriteString("|\n")
	return edge.String() + mid.String() + edge.String()
}
