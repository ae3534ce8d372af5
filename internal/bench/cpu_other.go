//go:build !unix

package bench

import (
	"os"
	"time"
)

// childrenCPU and maxRSS say nothing where the kernel has no getrusage: the
// bench's CPU and memory rows then read zero, as their descriptions allow.
func childrenCPU() time.Duration { return 0 }

func maxRSS(*os.ProcessState) int64 { return 0 }
