//go:build !unix

package journal

import (
	"testing"
	"time"
)

// processCPU skips the benchmark where there is no getrusage to measure the
// CPU time of a change, which is what it reports beside the disk-bound wall
// time; the journal's other tests still build and run there.
func processCPU(b *testing.B) time.Duration {
	b.Helper()
	b.Skip("no getrusage on this system to measure the CPU time of a change")
	return 0
}
