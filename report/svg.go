package report

import (
	"math"
	"strconv"

	"github.com/megakernel/cycleabi/analyze"
)

// chart is one inline SVG: its drawing as lists of shapes, drawn in the
// order of the fields (grid, bars, paths, overlays, text). Every number a
// shape stands for is in its Title (a tooltip, and text for the reader
// that cannot see the chart) or in a table next to it.
type chart struct {
	ID    string
	Class string
	W, H  float64
	// Label is the chart's accessible name.
	Label  string
	Grid   []line
	Rects  []rect
	Paths  []path
	Over   []path
	Texts  []text
	Legend []legendItem
}

type line struct {
	X1, Y1, X2, Y2 string
	Class          string
}

type rect struct {
	X, Y, W, H string
	Fill       string
	Class      string
	Title      string
}

type path struct {
	D           string
	Fill        string
	Stroke      string
	StrokeWidth string
	Class       string
	Title       string
}

type text struct {
	X, Y   string
	Anchor string
	Class  string
	Text   string
	Title  string
}

type legendItem struct {
	Name  string
	Color string
	Class string
}

// n formats a coordinate with at most one decimal.
func n(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

func (c *chart) rect(x, y, w, h float64, fill, class, title string) {
	c.Rects = append(c.Rects, rect{X: n(x), Y: n(y), W: n(w), H: n(h), Fill: fill, Class: class, Title: title})
}

func (c *chart) text(x, y float64, anchor, class, s string) {
	c.Texts = append(c.Texts, text{X: n(x), Y: n(y), Anchor: anchor, Class: class, Text: s})
}

func (c *chart) grid(x1, y1, x2, y2 float64, class string) {
	c.Grid = append(c.Grid, line{X1: n(x1), Y1: n(y1), X2: n(x2), Y2: n(y2), Class: class})
}

// niceStep is a 1, 2 or 5 × 10^k step that cuts [0, max] into about want
// intervals.
func niceStep(max float64, want int) float64 {
	if !(max > 0) {
		return 1
	}
	raw := max / float64(want)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// tickCharW bounds the width of one character of a tick label (10 px
// text, .tick in the page's style): a digit is about 0.56 em in the
// common sans-serif fonts, so 6.5 px leaves room for wider ones; tickGap
// is the least room left between two labels.
const (
	tickCharW = 6.5
	tickGap   = 8
)

// nextStep is the 1, 2 or 5 × 10^k step after step.
func nextStep(step float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	switch m := step / p; {
	case m < 1.5:
		return 2 * p
	case m < 3.5:
		return 5 * p
	}
	return 10 * p
}

// tickStep is the step of an axis w px wide for values 0 to max: about 8
// intervals, fewer when the labels would not fit between the ticks (a
// wide number on a narrow chart), never labels that run into each other.
func tickStep(w, max float64) float64 {
	step := niceStep(max, 8)
	for step <= max {
		// Labels grow with the value: the last is the widest.
		widest := 0
		for v := 0.0; v <= max*1.0000001; v += step {
			widest = len(tickLabel(v, step))
		}
		if w*step/max >= float64(widest)*tickCharW+tickGap {
			break
		}
		step = nextStep(step)
	}
	return step
}

// xAxis draws a time axis under a plot from x0 (value 0) to x0+w (value
// max) at y, with vertical grid lines up to top, ticks labelled in the
// unit, and a caption.
func (c *chart) xAxis(x0, w, top, y, max float64, caption string) {
	c.grid(x0, y, x0+w, y, "axis")
	if max > 0 {
		step := tickStep(w, max)
		for v := 0.0; v <= max*1.0000001; v += step {
			x := x0 + w*v/max
			c.grid(x, top, x, y, "gridline")
			c.grid(x, y, x, y+4, "axis")
			c.text(x, y+15, "middle", "tick", tickLabel(v, step))
		}
	}
	c.text(x0+w/2, y+30, "middle", "caption", caption)
}

func tickLabel(v, step float64) string {
	prec := 0
	if step < 1 {
		prec = int(math.Ceil(-math.Log10(step)))
	}
	return groupDigits(strconv.FormatFloat(v, 'f', prec, 64))
}

// groupDigits puts separators between groups of three digits of a
// formatted number's integer part ("1234567.5" → "1,234,567.5"), as the
// analysis's text does.
var groupDigits = analyze.GroupDigits
