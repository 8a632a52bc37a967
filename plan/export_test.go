package plan

// Both parsers, for the tests that hold them to agreeing.
var (
	ParseYAML = parseYAML
	ParseJSON = func(data []byte) (*Schedule, bool) { return parseJSON(data) }
)

// WithoutSource returns a copy of s without its file name and text, for
// comparing schedules.
func WithoutSource(s *Schedule) Schedule {
	c := *s
	c.File, c.src = "", nil
	return c
}
