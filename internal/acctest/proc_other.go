//go:build !linux

package acctest

import (
	"errors"
	"os"
	"os/exec"
)

func startInGroup(*exec.Cmd) {}

// processAlive cannot tell here, so no directory counts as stale.
func processAlive(int) bool { return true }

func interruptGroup(p *os.Process) error { return p.Signal(os.Interrupt) }

// killGroup cannot reach the plugins here: only Terraform itself is killed
// (by exec when ctx ends).
func killGroup(int) error { return nil }

func providerDescendants(int) ([]int, error) {
	return nil, errors.New("acctest: finding provider processes needs Linux's /proc")
}
