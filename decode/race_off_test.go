//go:build !race

package decode

// raceEnabled: see race_on_test.go.
const raceEnabled = false
