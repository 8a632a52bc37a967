//go:build !unix

package decodetest

import "time"

// CPUTime is not measured here; benchmarks then report no cpu-ms/op.
func CPUTime() time.Duration { return 0 }
