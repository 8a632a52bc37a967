package capture

import (
	"regexp"
	"strings"

	"github.com/megakernel/cycleabi/capture/internal/layoutsearch"
)

// RejectionPatterns returns, for each reason the layout search rules a
// cube slot count out (layoutsearch.RejectionTexts), a pattern its text
// matches whatever the region, offset and header it names:
// TestLayoutCases requires a case to show each.
func RejectionPatterns() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, text := range layoutsearch.RejectionTexts() {
		s := regexp.QuoteMeta(text)
		s = strings.NewReplacer("core_type=0 block_id=0", "\x00h", "0x0", "\x00o", regions[0].CoreType.String(), "\x00r").Replace(s)
		s = regexp.MustCompile(`\b[0-9]+\b`).ReplaceAllString(s, "\x00n")
		s = strings.NewReplacer("\x00h", `\S+`, "\x00o", `0x[0-9a-f]+`, "\x00r", `[A-Z]+`, "\x00n", `[0-9]+`).Replace(s)
		out = append(out, regexp.MustCompile(s))
	}
	return out
}
