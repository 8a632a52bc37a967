package validate

// SetExactOverlapLimit changes the largest unsorted slot whose overlaps
// are found exactly, for tests; it returns a function that restores it.
func SetExactOverlapLimit(n int) (restore func()) {
	old := exactOverlapLimit
	exactOverlapLimit = n
	return func() { exactOverlapLimit = old }
}

// EnumChecked reports whether header fields of the enum are checked.
func EnumChecked(enum string) bool { return enumValid[enum] != nil }

// SetMaxKeptFindings changes the bound on findings kept per code, for
// tests; it returns a function that restores it.
func SetMaxKeptFindings(n int) (restore func()) {
	old := maxKeptFindings
	maxKeptFindings = n
	return func() { maxKeptFindings = old }
}

// SetFastPaths turns the block check (and the parallel walk of slots) off
// or on, for tests that compare them with the record hook alone; it
// returns a function that restores them.
func SetFastPaths(on bool) (restore func()) {
	old := fastPaths
	fastPaths = on
	return func() { fastPaths = old }
}
