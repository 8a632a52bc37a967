package chromejson

import (
	"fmt"
	"strings"
	"testing"
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
			if string(got) != "<<<"+s {
				t.Fatalf("len %d, spare %d: put gave %q", n, spare, got)
			}
			if got := tx.put(got); string(got) != "<<<"+s+s {
				t.Fatalf("len %d, spare %d: second put gave %q", n, spare, got)
			}
		}
	}
}

func TestKeyPut(t *testing.T) {
	for n := 0; n <= 16; n++ {
		s := "0123456789abcdef"[:n]
		k := newKey(s)
		if got := k.put(k.put([]byte("<"))); string(got) != "<"+s+s {
			t.Fatalf("len %d: put gave %q", n, got)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("newKey took a 17-byte key")
		}
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
		if got := string(appendMilliFraction([]byte("7"), frac)); got != "7"+want {
			t.Errorf("frac %d: got %q, want %q", frac, got, "7"+want)
		}
	}
}
