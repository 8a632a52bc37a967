//go:build !race

package duckdb

// raceEnabled: see race_on_test.go.
const raceEnabled = false
