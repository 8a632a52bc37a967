package analyze

// StatOf is the Stat of values as a group of limit exact values (0:
// DefaultExactLimit) would report it.
func StatOf(name string, values []uint64, limit int) Stat {
	if limit <= 0 {
		limit = DefaultExactLimit
	}
	g := groups[string]{budget: &limit}
	for _, v := range values {
		g.add(name, v)
	}
	return statsOf(&g, func(k string) string { return k })[0]
}

// OddSegments is how many of a path's segments read from JSON are held
// besides the packed form (their end or µs not the derived ones).
func OddSegments(s *Segments) int { return len(s.odd) }

// SetReportSlack sets what a report read may hold besides twice its text
// and returns the restore.
func SetReportSlack(n uint64) func() {
	prev := reportSlack
	reportSlack = n
	return func() { reportSlack = prev }
}
