package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStderrPrefixesLines: Stderr's writer puts the prefix before every
// line however the writes split them, and nowhere else.
func TestStderrPrefixesLines(t *testing.T) {
	var buf bytes.Buffer
	w := &prefixWriter{w: &buf, prefix: []byte("p: ")}
	for _, s := range []string{"a\nb", "c\n", "", "\n\nd\ne\n"} {
		n, err := w.Write([]byte(s))
		require.Equalf(t, len(s), n, "Write(%q)", s)
		require.NoErrorf(t, err, "Write(%q)", s)
	}
	assert.Equal(t, "p: a\np: bc\np: \np: \np: d\np: e\n", buf.String())
}
