package buildinfo

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVersionFile: the committed VERSION is one version and a line end,
// and Version is what it holds, whatever the build's VCS stamping.
func TestVersionFile(t *testing.T) {
	data, err := os.ReadFile("VERSION")
	require.NoError(t, err)
	v, err := Parse(string(data))
	require.NoError(t, err)
	assert.Equal(t, v, Version(), "Version()")
	_, err = PEP440(v)
	assert.NoError(t, err, "PEP440(%q)", v)
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		text, want string
	}{
		{"0.5.0\n", "0.5.0"},
		{"1.20.3\n", "1.20.3"},
		{"0.6.0-rc.1\n", "0.6.0-rc.1"},
		{"0.6.0-alpha.0\n", "0.6.0-alpha.0"},
		{"0.5.0", ""},       // no line end
		{"0.5.0\n\n", ""},   // more than the version
		{" 0.5.0\n", ""},    // space
		{"v0.5.0\n", ""},    // the tag, not the version
		{"0.5\n", ""},       // two numbers
		{"0.05.0\n", ""},    // a leading zero
		{"0.5.0-rc1\n", ""}, // PEP 440's form, not the file's
		{"0.5.0-dev\n", ""},
		{"0.5.0\r\n", ""},
		{"", ""},
	} {
		got, err := Parse(c.text)
		if c.want == "" {
			assert.Errorf(t, err, "Parse(%q) = %q, want an error", c.text, got)
			continue
		}
		require.NoErrorf(t, err, "Parse(%q)", c.text)
		assert.Equalf(t, c.want, got, "Parse(%q)", c.text)
	}
}

func TestPEP440(t *testing.T) {
	for _, c := range []struct{ v, want string }{
		{"0.5.0", "0.5.0"},
		{"0.6.0-rc.1", "0.6.0rc1"},
		{"1.0.0-alpha.2", "1.0.0a2"},
		{"1.0.0-beta.0", "1.0.0b0"},
	} {
		got, err := PEP440(c.v)
		require.NoErrorf(t, err, "PEP440(%q)", c.v)
		assert.Equalf(t, c.want, got, "PEP440(%q)", c.v)
	}
	for _, v := range []string{"v0.5.0", "0.5", "0.5.0-dev", "(devel)", ""} {
		got, err := PEP440(v)
		assert.Errorf(t, err, "PEP440(%q) = %q, want an error", v, got)
	}
}
