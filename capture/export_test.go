package capture

import (
	"regexp"
	"strings"
)

// RejectionPatterns returns, for each reason the search rules a cube slot
// count out, a pattern its text matches whatever the region, offset and
// header it names: TestLayoutCases requires a case to show each. Left out:
// rBudget, which takes a buffer of more than zeroScanBudget bytes; and
// rZeroMiddle and rNotLayout, which today's schema cannot show (with two
// regions, a buffer whose first header and every header after it are zero
// is no-records; every capacity the walk takes is checked, and no count it
// tries overflows a layout).
func RejectionPatterns() []*regexp.Regexp {
	f := &finder{c: &Capture{}}
	var out []*regexp.Regexp
	for kind := rPastEnd; kind <= rUnpinned; kind++ {
		if kind == rBudget || kind == rZeroMiddle && len(regions) == 2 || kind == rNotLayout {
			continue
		}
		s := regexp.QuoteMeta((&rejection{kind: kind}).String(f))
		s = strings.NewReplacer("core_type=0 block_id=0", "\x00h", "0x0", "\x00o", regions[0].CoreType.String(), "\x00r").Replace(s)
		s = regexp.MustCompile(`\b[0-9]+\b`).ReplaceAllString(s, "\x00n")
		s = strings.NewReplacer("\x00h", `\S+`, "\x00o", `0x[0-9a-f]+`, "\x00r", `[A-Z]+`, "\x00n", `[0-9]+`).Replace(s)
		out = append(out, regexp.MustCompile(s))
	}
	return out
}
