package bench

import (
	"syscall"
	"time"
)

// childrenCPU is the CPU time, user and system, of the children of this
// process that ended and were waited for, with their own waited-for children:
// across an apply, the CLI's and that of the providers it started (the mock
// runs in this process and is not counted). Applies that overlap count each
// other's; zero when the kernel does not say.
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
