package jsontext

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAppendFloat(t *testing.T) {
	for mhz, want := range map[float64]string{50: "50.0", 1000: "1000.0", 1.5: "1.5", 1e21: "1000000000000000000000.0", 0.0000001: "0.0000001"} {
		assert.Equalf(t, want, string(AppendFloat(nil, mhz)), "AppendFloat(%v)", mhz)
	}
}
