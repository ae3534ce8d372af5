//go:build unix

package bench

import (
	"os"
	"runtime"
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

// maxRSS is the peak resident memory of a process that ended, in bytes; zero
// when the kernel does not say.
func maxRSS(state *os.ProcessState) int64 {
	ru, ok := state.SysUsage().(*syscall.Rusage)
	switch {
	case !ok:
		return 0
	case runtime.GOOS == "darwin":
		return ru.Maxrss // bytes there; kilobytes on Linux and the BSDs
	}
	return ru.Maxrss << 10
}
