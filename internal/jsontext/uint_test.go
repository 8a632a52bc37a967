package jsontext

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// AppendUint must give strconv's digits for every length, at every power
// of ten and either side of it, and whether or not dst has room.
func TestAppendUintMatchesStrconv(t *testing.T) {
	vals := []uint64{0, 1, 9, 10, 11, 99, 100, 101, math.MaxUint64, math.MaxUint64 - 1, 1 << 63, 1<<63 - 1}
	p := uint64(1)
	for range 19 {
		p *= 10
		vals = append(vals, p-1, p, p+1)
	}
	for k := range 64 {
		vals = append(vals, 1<<k, 1<<k-1, 1<<k+1)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		vals = append(vals, r.Uint64()>>r.IntN(64))
	}
	for _, v := range vals {
		want := strconv.AppendUint([]byte("x,"), v, 10)
		require.Equalf(t, []byte(want), []byte(AppendUint([]byte("x,"), v)), "AppendUint(%d)", v)
		roomy := make([]byte, 2, 64)
		copy(roomy, "x,")
		require.Equalf(t, []byte(want), []byte(AppendUint(roomy, v)), "AppendUint(%d) with room", v)
	}
}

func BenchmarkAppendUint(b *testing.B) {
	vals := make([]uint64, 1024)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range vals {
		vals[i] = r.Uint64() >> r.IntN(64)
	}
	buf := make([]byte, 0, 64)
	b.Run("AppendUint", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = AppendUint(buf[:0], vals[i&1023])
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = strconv.AppendUint(buf[:0], vals[i&1023], 10)
		}
	})
}
