package report

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fnv1a is FNV-1a over the name's bytes, written out (offset basis
// 2166136261, prime 16777619), independent of hash/fnv.
func fnv1a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func TestColorsAreStableAndDistinct(t *testing.T) {
	types := []string{"AddCustom", "GroupedMatMul", "MatMul", "RmsNorm", "ShmemGetMem", "ShmemPutMemSignal", "SwiGLU"}
	slot := func(name string) uint32 { return fnv1a(name) % uint32(len(Palette)) }
	// alone lists the names whose slot no other name of the list has.
	alone := func(names []string) map[string]bool {
		n := map[uint32]int{}
		for _, name := range names {
			n[slot(name)]++
		}
		a := map[string]bool{}
		for _, name := range names {
			a[name] = n[slot(name)] == 1
		}
		return a
	}
	other := []string{"SwiGLU", "Down", "MatMul", "GateUp", "AddCustom", "RmsNorm"}
	c, co := NewColors(types), NewColors(other)
	at, ao := alone(types), alone(other)
	both := 0
	for _, name := range types {
		want := Palette[slot(name)]
		assert.Equalf(t, want, (Colors{}.Of(name)), "%s: Colors{}.Of(name)", name)
		if at[name] {
			// Its own slot's color, whatever else is on the page.
			assert.Equalf(t, want, c.Of(name), "%s: c.Of(name)", name)
			if ao[name] {
				assert.Equalf(t, want, co.Of(name), "%s: co.Of(name)", name)
				both++
			}
		}
	}
	assert.GreaterOrEqual(t, both, 2, "the test compares some names across pages: both")

	// Up to len(Palette) names, colliding or not, take distinct colors.
	var many []string
	for i := range len(Palette) {
		many = append(many, fmt.Sprintf("stage %d", i))
	}
	seen := map[string]string{}
	cm := NewColors(many)
	for _, name := range many {
		col := cm.Of(name)
		assert.Emptyf(t, seen[col], "and %s share %s: seen[col], want empty", name, col)
		seen[col] = name
	}
	assert.Equalf(t, len(Palette), len(seen), "len(seen): %v", seen)
	// The same names, given in another order, keep the same colors.
	rev := append([]string(nil), many...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	assert.Equal(t, cm, NewColors(rev), "NewColors(rev)")

	// Groups: each group's names differ (the example's task types and
	// stages, 15 names, more than the palette), and a name in both groups
	// keeps one color.
	stages := []string{"InputNorm", "Router", "Dispatch", "GateUp", "SwiGLU", "Down", "Combine", "Residual"}
	cg := NewColors(types, stages)
	for _, group := range [][]string{types, stages} {
		seen := map[string]string{}
		for _, name := range group {
			col := cg.Of(name)
			assert.Emptyf(t, seen[col], "and %s share %s: seen[col], want empty", name, col)
			seen[col] = name
		}
	}
	assert.Equal(t, NewColors(types).Of("SwiGLU"), cg.Of("SwiGLU"), "the task type's color, also as a stage: cg.Of(\"SwiGLU\")")
}

// machado are Machado, Oliveira and Fernandes (2009)'s matrices for full
// (severity 1.0) dichromacy, on linear RGB; identity is normal vision.
var machado = map[string][3][3]float64{
	"normal":       {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
	"protanopia":   {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
	"deuteranopia": {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
	"tritanopia":   {{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}},
}

// labSeen is the CIELAB (D65) color of an sRGB "#RRGGBB" as seen through m.
func labSeen(t *testing.T, hex string, m [3][3]float64) [3]float64 {
	var v uint32
	_, err := fmt.Sscanf(hex, "#%06x", &v)
	require.NoErrorf(t, err, "%s", hex)
	var c, s [3]float64
	for i := range 3 {
		x := float64(v>>(16-8*i)&0xFF) / 255
		if x <= 0.04045 {
			c[i] = x / 12.92
		} else {
			c[i] = math.Pow((x+0.055)/1.055, 2.4)
		}
	}
	for i := range 3 {
		s[i] = min(1, max(0, m[i][0]*c[0]+m[i][1]*c[1]+m[i][2]*c[2]))
	}
	X := (0.4124*s[0] + 0.3576*s[1] + 0.1805*s[2]) / 0.9505
	Y := 0.2126*s[0] + 0.7152*s[1] + 0.0722*s[2]
	Z := (0.0193*s[0] + 0.1192*s[1] + 0.9505*s[2]) / 1.089
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return [3]float64{116*f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))}
}

// Every two palette colors, and each palette color and the fixed greys
// (and the critical path's black), differ by at least ΔE 10 for normal
// vision and each full dichromacy.
func TestPaletteUnderColorBlindness(t *testing.T) {
	const minDeltaE = 10
	others := []string{"#000000"}
	for kind, c := range KindColors {
		if kind != "compute" { // compute's color stands for all task types, never beside them
			others = append(others, c)
		}
	}
	for vision, m := range machado {
		for i, a := range Palette {
			la := labSeen(t, a, m)
			against := append(append([]string(nil), Palette[i+1:]...), others...)
			for _, b := range against {
				lb := labSeen(t, b, m)
				d := math.Sqrt((la[0]-lb[0])*(la[0]-lb[0]) + (la[1]-lb[1])*(la[1]-lb[1]) + (la[2]-lb[2])*(la[2]-lb[2]))
				assert.Truef(t, d >= float64(minDeltaE), "%s: %s and %s: d = %v, want >= %v", vision, a, b, d, float64(minDeltaE))
			}
		}
	}
}
