package capture

import (
	"testing"

	"github.com/megakernel/cycleabi/capture/internal/layoutsearch"
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
		if Code(got) != want {
			t.Errorf("layoutsearch code %q, capture's is %q", got, want)
		}
	}
	sources := map[layoutsearch.Source]LayoutSource{
		layoutsearch.FromHeaders: FromHeaders,
		layoutsearch.FromSize:    FromSize,
		layoutsearch.FromHost:    FromHost,
		layoutsearch.FromPlan:    FromPlan,
	}
	for got, want := range sources {
		if LayoutSource(got) != want {
			t.Errorf("layoutsearch source %q, capture's is %q", got, want)
		}
	}
}
