//go:build !race

package yamlpos

// raceEnabled: see race_on_test.go.
const raceEnabled = false
