package report

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
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
	c := NewColors(types)
	// These names hash to distinct slots: each has its own slot's color,
	// whatever else is on the page, in any order.
	other := NewColors([]string{"SwiGLU", "Down", "MatMul", "GateUp", "AddCustom"})
	for _, name := range types {
		want := Palette[fnv1a(name)%uint32(len(Palette))]
		assert.Equal(t, want, c.Of(name), name)
		assert.Equal(t, want, Colors{}.Of(name), name)
	}
	for _, name := range []string{"SwiGLU", "MatMul", "AddCustom"} {
		assert.Equal(t, c.Of(name), other.Of(name), name)
	}

	// Up to len(Palette) names, colliding or not, take distinct colors.
	var many []string
	for i := range len(Palette) {
		many = append(many, fmt.Sprintf("stage %d", i))
	}
	seen := map[string]string{}
	cm := NewColors(many)
	for _, name := range many {
		col := cm.Of(name)
		assert.Empty(t, seen[col], "%s and %s share %s", seen[col], name, col)
		seen[col] = name
	}
	assert.Len(t, seen, len(Palette))
	// The same names, given in another order, keep the same colors.
	rev := append([]string(nil), many...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	assert.Equal(t, cm, NewColors(rev))
}
