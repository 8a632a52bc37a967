//go:build !unix

package chromejson

import "time"

// cpuTime is not measured here; benchmarks then report no cpu-ms/op.
func cpuTime() time.Duration { return 0 }
