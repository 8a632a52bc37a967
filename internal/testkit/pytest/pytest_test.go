package pytest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAtLeast(t *testing.T) {
	for _, c := range []struct {
		have, want string
		ok         bool
	}{
		{"1.24.2", "1.21", true},
		{"1.21.0", "1.21", true},
		{"1.21", "1.21", true},
		{"1.20.3", "1.21", false},
		{"1.9.0", "1.21", false},
		{"2.0.0rc1", "1.21", true},
		{"1.21rc1", "1.21", true},
		{"1", "1.21", false},
		{"0.99", "1.21", false},
	} {
		assert.Equalf(t, c.ok, atLeast(c.have, c.want), "atLeast(%q, %q)", c.have, c.want)
	}
}

func TestRequired(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "1": true, "yes": true} {
		t.Setenv("CYCLEABI_REQUIRE_PY", v)
		assert.Equalf(t, want, Required(), "CYCLEABI_REQUIRE_PY=%q: Required()", v)
	}
}
