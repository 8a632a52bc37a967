package chromejson

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// put appends exactly the text, for every length either side of the
// array's, into buffers with and without spare capacity.
func TestTextPut(t *testing.T) {
	for n := 0; n <= 2*textArray; n++ {
		s := strings.Repeat("abcdefghij", 20)[:n]
		tx := newText(s)
		for _, spare := range []int{0, 1, textArray} {
			b := make([]byte, 3, 3+spare)
			copy(b, "<<<")
			got := tx.put(b)
			require.Equalf(t, "<<<"+s, string(got), "len %d, spare %d: put gave %q", n, spare, got)
			require.Equalf(t, "<<<"+s+s, string(tx.put(got)), "len %d, spare %d: second put", n, spare)
		}
	}
}

func TestKeyPut(t *testing.T) {
	for n := 0; n <= 16; n++ {
		s := "0123456789abcdef"[:n]
		k := newKey(s)
		require.Equalf(t, "<"+s+s, string(k.put(k.put([]byte("<")))), "len %d: put", n)
	}
	defer func() {
		assert.NotNil(t, recover(), "newKey took a 17-byte key")
	}()
	newKey("0123456789abcdefg")
}

// The table gives what formatting each fraction and trimming its zeros
// gives.
func TestMilliFraction(t *testing.T) {
	for frac := range uint64(1000) {
		want := strings.TrimRight(fmt.Sprintf(".%03d", frac), "0")
		if want == "." {
			want = ""
		}
		assert.Equalf(t, "7"+want, string(appendMilliFraction([]byte("7"), frac)), "frac %d", frac)
	}
}
