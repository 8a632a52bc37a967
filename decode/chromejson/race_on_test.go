//go:build race

package chromejson

// raceEnabled says the tests run with the race detector, ten times slower:
// the tests of the full-size benchmark capture skip then (make test runs
// them once more without it).
const raceEnabled = true
