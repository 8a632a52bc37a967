package yamlpos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.yaml.in/yaml/v3"
)

func TestAt(t *testing.T) {
	n := &yaml.Node{Line: 3, Column: 7}
	assert.Equal(t, `s.yaml:3:7: layout.regions: bad "x"`, At("s.yaml", n, "layout.regions", "bad %q", "x").Error())
	// An absent key has no node: the problem keeps its file and path and
	// drops the position instead of panicking.
	assert.Equal(t, "s.yaml: layout.regions: missing", At("s.yaml", nil, "layout.regions", "missing").Error())
}
