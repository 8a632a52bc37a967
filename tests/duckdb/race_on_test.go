//go:build race

package duckdb

// raceEnabled says the tests run with the race detector, ten times slower:
// TestManyRanks skips then (make test runs it once more without it).
const raceEnabled = true
