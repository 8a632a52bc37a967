package short

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// skipT records what Skip does with a test.
type skipT struct {
	testing.TB
	skipped string
}

func (s *skipT) Helper() {}
func (s *skipT) Skipf(format string, args ...any) {
	s.skipped = format
	for _, a := range args {
		s.skipped = strings.Replace(s.skipped, "%s", a.(string), 1)
	}
}

func TestSkip(t *testing.T) {
	s := &skipT{TB: t}
	Skip(s, "builds two wheels")
	if !testing.Short() {
		assert.Empty(t, s.skipped, "skipped without -short")
		return
	}
	assert.Equal(t, Prefix+" builds two wheels (make ci runs it)", s.skipped, "skip reason")
}
