//go:build !race

package render

// raceEnabled: see race_on_test.go.
const raceEnabled = false
