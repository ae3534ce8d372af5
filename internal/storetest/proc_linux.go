package storetest

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the server in a process group of its own and kills it if
// the process that started it dies first, so no server outlives its test.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// stopProcess asks the server's process group to end (Azurite's node runs
// the service in the group).
func stopProcess(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

// killProcess ends the server's process group outright.
func killProcess(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
