package capture

import (
	"testing"

	"github.com/megakernel/cycleabi/capture/internal/layoutsearch"
	"github.com/stretchr/testify/assert"
)

// TestSearchSpellsCaptureTerms holds the layout search's codes and sources
// to capture's, which Resolve converts them to by their text.
func TestSearchSpellsCaptureTerms(t *testing.T) {
	codes := map[layoutsearch.Code]Code{
		layoutsearch.CodeTruncated:       CodeTruncated,
		layoutsearch.CodeShortBuffer:     CodeShortBuffer,
		layoutsearch.CodeBadCapacity:     CodeBadCapacity,
		layoutsearch.CodeNoRecords:       CodeNoRecords,
		layoutsearch.CodeLayoutMismatch:  CodeLayoutMismatch,
		layoutsearch.CodeNoLayout:        CodeNoLayout,
		layoutsearch.CodeAmbiguousLayout: CodeAmbiguousLayout,
	}
	for got, want := range codes {
		assert.Equalf(t, want, Code(got), "layoutsearch code %q, capture's", got)
	}
	sources := map[layoutsearch.Source]LayoutSource{
		layoutsearch.FromHeaders: FromHeaders,
		layoutsearch.FromSize:    FromSize,
		layoutsearch.FromHost:    FromHost,
		layoutsearch.FromPlan:    FromPlan,
	}
	for got, want := range sources {
		assert.Equalf(t, want, LayoutSource(got), "layoutsearch source %q, capture's", got)
	}
}
