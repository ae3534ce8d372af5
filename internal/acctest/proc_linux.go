package acctest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// startInGroup puts the command in a process group of its own, which its
// plugins inherit, and kills it if the test process dies first.
func startInGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// interruptGroup sends SIGINT to the process group p leads.
func interruptGroup(p *os.Process) error {
	return syscall.Kill(-p.Pid, syscall.SIGINT)
}

// processAlive reports whether a process with this ID exists.
func processAlive(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// killGroup kills every process left in the group led by pid and returns
// once none of them runs any more (a zombie that its adopter has not reaped
// yet does not run), so that a caller may check that none outlived the run.
func killGroup(pid int) error {
	for deadline := time.Now().Add(groupExitTimeout); ; {
		err := syscall.Kill(-pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		if err != nil {
			return err
		}
		if !groupRunning(pid) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes of group %d still run %s after SIGKILL", pid, groupExitTimeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// groupExitTimeout only stops a process stuck in the kernel (uninterruptible
// I/O) from blocking forever; a killed process exits in microseconds.
const groupExitTimeout = time.Minute

// groupRunning reports whether a process of group pgid runs: SIGKILL only
// starts a process's exit, which ends some time later.
func groupRunning(pgid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := readStat(pid)
		if ok && st.pgrp == pgid && st.state != 'Z' && st.state != 'X' {
			return true
		}
	}
	return false
}

// providerDescendants walks /proc for the processes below pid whose
// executable is a build of this provider.
func providerDescendants(pid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(child); ok {
			children[st.ppid] = append(children[st.ppid], child)
		}
	}
	var found []int
	queue := append([]int(nil), children[pid]...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		queue = append(queue, children[p]...)
		exe, err := os.Readlink("/proc/" + strconv.Itoa(p) + "/exe")
		if err == nil && strings.HasPrefix(filepath.Base(exe), "terraform-provider-"+ProviderType) {
			found = append(found, p)
		}
	}
	return found, nil
}

// procStat holds the fields of /proc/<pid>/stat the harness reads.
type procStat struct {
	state      byte
	ppid, pgrp int
}

func readStat(pid int) (procStat, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	return parseStat(string(stat))
}

// parseStat reads fields 3 to 5 of a /proc/<pid>/stat line; the command name
// before them is in parentheses and may itself hold spaces or parentheses.
func parseStat(stat string) (procStat, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp}, true
}
