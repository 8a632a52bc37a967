package plan

import "github.com/megakernel/cycleabi/internal/yamlpos"

// Both parsers, for the tests that hold them to agreeing.
var (
	ParseYAML = func(file string, data []byte) (*Schedule, error) {
		return parseYAML(file, data, yamlpos.Limits{Input: 1 << 30, YAML: 1 << 30}, "")
	}
	ParseJSON = func(data []byte) (*Schedule, bool) { s, _, ok := parseJSON(data); return s, ok }
)

// Positions returns where yamlPosition and jsonPosition put path in src.
func Positions(src []byte, path string) (yamlLine, yamlCol, jsonLine, jsonCol int) {
	yamlLine, yamlCol = yamlPosition(src, path)
	jsonLine, jsonCol = jsonPosition(src, path)
	return
}

// WithoutSource returns a copy of s without its file name and text, for
// comparing schedules.
func WithoutSource(s *Schedule) Schedule {
	c := *s
	c.File, c.src, c.fromJSON = "", nil, false
	return c
}
