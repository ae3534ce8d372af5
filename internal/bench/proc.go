package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Procs starts every child process of the harness in a process group of its own
// and kills whatever is left of them on Close, so that no mock, Terraform,
// provider or peer script outlives a run, including one cut short by an error
// or Ctrl-C. On Linux the harness is also made a child subreaper, so that
// grandchildren orphaned by a killed Terraform are re-parented to it and can be
// found and killed as its descendants.
type Procs struct {
	mu     sync.Mutex
	groups map[int]bool
}

// NewProcs prepares process tracking; call Close when done.
func NewProcs() *Procs {
	becomeSubreaper()
	return &Procs{groups: map[int]bool{}}
}

// Command returns an exec.Cmd that runs in its own process group. Cancelling
// ctx sends SIGTERM to the whole group, and SIGKILL if it has not exited
// within grace.
func (p *Procs) Command(ctx context.Context, grace time.Duration, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		pid := cmd.Process.Pid
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		go func() {
			time.Sleep(grace)
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}()
		return nil
	}
	cmd.WaitDelay = grace + time.Second
	return cmd
}

// Start starts cmd and records its process group.
func (p *Procs) Start(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	p.mu.Lock()
	p.groups[cmd.Process.Pid] = true
	p.mu.Unlock()
	return nil
}

// Done forgets the process group of a command that has been waited for, after
// killing anything still running in it.
func (p *Procs) Done(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	pid := cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	p.mu.Lock()
	delete(p.groups, pid)
	p.mu.Unlock()
}

// Close kills every recorded process group and every remaining descendant of
// the harness, then reaps them. It is safe to call more than once.
func (p *Procs) Close() {
	p.mu.Lock()
	groups := make([]int, 0, len(p.groups))
	for pid := range p.groups {
		groups = append(groups, pid)
	}
	p.groups = map[int]bool{}
	p.mu.Unlock()
	for _, pid := range groups {
		_ = syscall.Kill(-pid, syscall.SIGTERM)
	}
	// Give the groups up to 3 s to exit on SIGTERM (the mock and Terraform stop
	// cleanly), then kill whatever is left, in the groups or not.
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		alive := false
		for _, pid := range groups {
			if syscall.Kill(-pid, 0) == nil {
				alive = true
			}
		}
		if !alive {
			break
		}
		time.Sleep(50 * time.Millisecond)
		reapOrphans()
	}
	for _, pid := range groups {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	for _, pid := range Descendants(os.Getpid()) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for i := 0; i < 20 && len(Descendants(os.Getpid())) > 0; i++ {
		time.Sleep(50 * time.Millisecond)
		reapOrphans()
	}
}

// reapOrphans collects the exit status of re-parented grandchildren; the
// harness's own commands are waited for by os/exec before this runs.
func reapOrphans() {
	for i := 0; i < 1000; i++ {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// procStat is what the harness reads from /proc/<pid>/stat.
type procStat struct {
	pid, ppid int
	state     byte
}

// readStat parses /proc/<pid>/stat. The command name may contain spaces and
// parentheses, so the fields are read after its last ')'.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(string(b))
}

func parseStat(s string) (procStat, error) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("malformed stat %q", s)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return procStat{}, fmt.Errorf("malformed stat pid in %q", s)
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 2 || len(fields[0]) != 1 {
		return procStat{}, fmt.Errorf("malformed stat %q", s)
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return procStat{}, fmt.Errorf("malformed stat ppid in %q", s)
	}
	return procStat{pid: pid, ppid: ppid, state: fields[0][0]}, nil
}

// Descendants lists the live (non-zombie) descendants of root, from /proc.
func Descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.state == 'Z' {
			continue
		}
		children[st.ppid] = append(children[st.ppid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// memStatus is the memory part of /proc/<pid>/status, in bytes.
type memStatus struct {
	VmRSS, VmHWM int64
}

func readMemStatus(pid int) (memStatus, error) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return memStatus{}, err
	}
	defer f.Close()
	return parseMemStatus(f)
}

func parseMemStatus(r io.Reader) (memStatus, error) {
	var m memStatus
	found := 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			return m, fmt.Errorf("unexpected %s line %q", key, sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("unexpected %s line %q", key, sc.Text())
		}
		if key == "VmRSS" {
			m.VmRSS = kb << 10
		} else {
			m.VmHWM = kb << 10
		}
		found++
	}
	if err := sc.Err(); err != nil {
		return m, err
	}
	if found == 0 {
		// Kernel threads and zombies have no memory lines.
		return m, errors.New("no VmRSS/VmHWM lines")
	}
	return m, nil
}

// MemSampler polls the process tree under one root. It keeps the highest
// VmHWM of any process running a given executable (the provider) and the
// highest sum of VmRSS over the whole tree below the root (for the peer, whose
// work is spread over bash, curl and sleep processes).
type MemSampler struct {
	root     int
	exe      string
	interval time.Duration

	mu          sync.Mutex
	exeHWM      int64
	exePIDs     map[int]bool
	treeRSSPeak int64
	samples     int
	stop        chan struct{}
	done        chan struct{}
}

// SampleMemory starts sampling every interval until Stop.
func SampleMemory(root int, exe string, interval time.Duration) *MemSampler {
	s := &MemSampler{root: root, exe: exe, interval: interval, exePIDs: map[int]bool{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *MemSampler) loop() {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

func (s *MemSampler) sample() {
	var tree int64
	for _, pid := range Descendants(s.root) {
		m, err := readMemStatus(pid)
		if err != nil {
			continue
		}
		tree += m.VmRSS
		if s.exe != "" {
			if exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe")); err == nil && exe == s.exe {
				s.mu.Lock()
				s.exePIDs[pid] = true
				s.exeHWM = max(s.exeHWM, m.VmHWM)
				s.mu.Unlock()
			}
		}
	}
	s.mu.Lock()
	s.treeRSSPeak = max(s.treeRSSPeak, tree)
	s.samples++
	s.mu.Unlock()
}

// MemResult is what a MemSampler saw.
type MemResult struct {
	ExePeakHWM   int64 `json:"exe_peak_vmhwm_bytes"` // highest VmHWM of a process running exe
	ExeProcesses int   `json:"exe_processes"`        // how many such processes were seen
	TreePeakRSS  int64 `json:"tree_peak_rss_bytes"`  // highest sum of VmRSS below the root
	Samples      int   `json:"samples"`              // how many times the tree was read
	IntervalMS   int64 `json:"sample_interval_ms"`   // sampling period
}

// Stop ends sampling and returns the peaks.
func (s *MemSampler) Stop() MemResult {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return MemResult{ExePeakHWM: s.exeHWM, ExeProcesses: len(s.exePIDs), TreePeakRSS: s.treeRSSPeak,
		Samples: s.samples, IntervalMS: s.interval.Milliseconds()}
}
