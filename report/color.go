package report

import (
	"hash/fnv"
	"slices"
)

// Palette is the colors task types and stages take: eleven of Paul Tol's
// and Okabe & Ito's colors (both schemes designed for color-vision
// deficiencies), chosen so that every two of them, and each of them and
// the greys of KindColors and black, stay apart (CIE76 ΔE ≥ 10) for full
// protanopia, deuteranopia and tritanopia as well as normal vision
// (Machado et al. 2009's simulation; TestPaletteUnderColorBlindness).
// A page with more names repeats colors.
var Palette = []string{
	"#332288", "#117733", "#88CCEE", "#DDCC77", "#AA4499", "#999933",
	"#E69F00", "#D55E00", "#4477AA", "#AA3377", "#EE3377",
}

// KindColors are the fixed colors of the kinds of time (compute is the
// color of the kind as a whole, where it is not split by task type).
var KindColors = map[string]string{
	"compute": "#1D4E89",
	"wait":    "#BDBDBD",
	"trigger": "#4D4D4D",
	"other":   "#8C8C8C",
	"gap":     "#F2F2F2",
	"launch":  "#F2F2F2",
	"idle":    "#FFFFFF",
}

// slotOf is the palette slot a name hashes to (FNV-1a), the same in
// every run.
func slotOf(name string) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % uint32(len(Palette)))
}

// Colors gives each name of a page its color: the palette slot its name
// hashes to, so a task type or stage keeps its color across runs and
// charts. The names come in groups that are drawn side by side (the task
// types; the stages): when two names of a group hash to the same slot,
// the one first in byte order keeps it and the other takes the next slot
// free in that group, so the colors of a group differ while it has at
// most len(Palette) names. A name in several groups keeps the color its
// first group gave it.
type Colors map[string]string

// NewColors assigns the colors of the given groups of names.
func NewColors(groups ...[]string) Colors {
	c := Colors{}
	slotOfName := map[string]int{}
	for _, names := range groups {
		names = slices.Clone(names)
		slices.Sort(names)
		names = slices.Compact(names)
		used := make([]bool, len(Palette))
		free := len(Palette)
		for _, n := range names {
			if s, ok := slotOfName[n]; ok && !used[s] {
				used[s] = true
				free--
			}
		}
		for _, n := range names {
			if _, ok := slotOfName[n]; ok {
				continue
			}
			s := slotOf(n)
			if free > 0 {
				for used[s] {
					s = (s + 1) % len(Palette)
				}
				used[s] = true
				free--
			}
			slotOfName[n], c[n] = s, Palette[s]
		}
	}
	return c
}

// Of is the color of a name (its hashed slot when the page did not list it).
func (c Colors) Of(name string) string {
	if col, ok := c[name]; ok {
		return col
	}
	return Palette[slotOf(name)]
}
