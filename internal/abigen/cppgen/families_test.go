package cppgen

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSharedStageNames: a family naming one stage in two namespaces (the
// graph-driven MegaMoe keeps the kernel name MegaMoe and names its graph
// stage 0x30000 Dispatch, as the older kernel names 0x10001) declares the
// first as kStage<Name> and the later as k<Namespace><Name>, so neither
// collides in the family's namespace; a family with one of them keeps
// kStage<Name> (MegaMoeGraph).
func TestSharedStageNames(t *testing.T) {
	_, real := loadReal(t)
	h := mustHeader(t, realSchemaName, real)
	family := func(name string) string {
		start := strings.Index(h, "namespace "+name+" {\n")
		end := strings.Index(h, "}  // namespace "+name+"\n")
		require.GreaterOrEqualf(t, start, 0, "no namespace %s in the header", name)
		require.GreaterOrEqualf(t, end, start, "no namespace %s in the header", name)
		return h[start:end]
	}
	for _, c := range []struct{ family, decl string }{
		{"MegaMoe", "constexpr uint32_t kStageDispatch = 0x10001;"},
		{"MegaMoe", "constexpr uint32_t kGraphStageDispatch = 0x30000;"},
		{"MegaMoe", "constexpr uint32_t kGraphStageCombine = 0x30004;"},
		{"MegaMoeGrad", "constexpr uint32_t kStageW1Grad = 0x11006;"},
		{"MegaMoeGrad", "constexpr uint32_t kGraphStageW1Grad = 0x30006;"},
		{"MegaMoeGraph", "constexpr uint32_t kStageDispatch = 0x30000;"},
	} {
		assert.Containsf(t, family(c.family), c.decl, "namespace %s lacks", c.family)
	}
}
