//go:build !race

package chromejson

// raceEnabled: see race_on_test.go.
const raceEnabled = false
