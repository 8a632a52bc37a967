//go:build race

package yamlpos

// raceEnabled says the tests run with the race detector, whose
// instrumentation allocates on its own: the allocation counts of
// TestReadFileOneBuffer are checked without it (make test runs that
// test once more without it).
const raceEnabled = true
