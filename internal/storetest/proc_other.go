//go:build !linux

package storetest

import "os/exec"

func setProcAttr(*exec.Cmd) {}

func stopProcess(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func killProcess(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
