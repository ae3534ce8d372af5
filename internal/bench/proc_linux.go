package bench

import "syscall"

const prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER from <linux/prctl.h>

// becomeSubreaper makes orphaned descendants re-parent to the harness instead
// of init, so that Close can still find and kill them.
func becomeSubreaper() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}
