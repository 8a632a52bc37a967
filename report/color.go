package report

import (
	"hash/fnv"
	"slices"
)

// Palette is the colors task types and stages take: Paul Tol's "muted"
// scheme (9) and the Okabe–Ito colors but black (7), both designed to stay
// apart for the common color-vision deficiencies. The kinds that are not
// compute have fixed neutral colors instead (KindColors).
var Palette = []string{
	"#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499",
	"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
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
// charts. When two names of one page hash to the same slot, the one first
// in byte order keeps it and the other takes the next free slot (so the
// colors of a page differ while there are at most len(Palette) names).
type Colors map[string]string

// NewColors assigns the colors of the given names.
func NewColors(names []string) Colors {
	names = slices.Clone(names)
	slices.Sort(names)
	names = slices.Compact(names)
	c := Colors{}
	used := make([]bool, len(Palette))
	free := len(Palette)
	for _, n := range names {
		s := slotOf(n)
		if free > 0 {
			for used[s] {
				s = (s + 1) % len(Palette)
			}
			used[s] = true
			free--
		}
		c[n] = Palette[s]
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
