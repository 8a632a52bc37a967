//go:build !race

package perfetto

// raceEnabled: see race_on_test.go.
const raceEnabled = false
