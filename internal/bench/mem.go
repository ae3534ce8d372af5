package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MemSampler reads Linux's /proc while an apply runs. It keeps the peak
// resident size the kernel recorded (VmHWM) of the processes running the
// provider in the apply's directory (the CLI starts its providers there; a
// provider of another run on the machine, a test's or another bench's, is
// not this apply's), and the highest sum of the resident sizes (VmRSS) of the other
// processes working in the apply's directory except the CLI itself: the peer's
// bash, curl and sleep, which local-exec starts there. VmHWM is the kernel's
// own peak, so a sample only needs to see the provider alive; the peer's sum
// is as good as the sampling period.
type MemSampler struct {
	provider, dir string
	stop, done    chan struct{}
	mu            sync.Mutex
	res           MemResult
}

// MemResult is what a MemSampler saw.
type MemResult struct {
	ProviderPeakHWM int64 `json:"provider_peak_vmhwm_bytes"` // highest VmHWM of a provider process
	PeerPeakRSS     int64 `json:"peer_peak_rss_bytes"`       // highest sum of VmRSS of the other processes in the directory
	Samples         int   `json:"samples"`
}

// SampleMemory samples every interval until Stop.
func SampleMemory(provider, dir string, interval time.Duration) *MemSampler {
	// The kernel shows a process's directory absolute, links resolved.
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	s := &MemSampler{provider: filepath.Base(provider), dir: dir, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// Stop ends sampling and returns the peaks.
func (s *MemSampler) Stop() MemResult {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.res
}

func (s *MemSampler) sample() {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	var peer int64
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		proc := filepath.Join("/proc", e.Name())
		exe, err := os.Readlink(filepath.Join(proc, "exe"))
		if err != nil {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join(proc, "cwd"))
		switch {
		case strings.HasPrefix(filepath.Base(exe), s.provider):
			if cwd != s.dir {
				continue
			}
			if m, err := readMemStatus(pid); err == nil {
				s.mu.Lock()
				s.res.ProviderPeakHWM = max(s.res.ProviderPeakHWM, m.hwm)
				s.mu.Unlock()
			}
		case strings.HasPrefix(filepath.Base(exe), "terraform") || strings.HasPrefix(filepath.Base(exe), "tofu"):
		case cwd == s.dir:
			if m, err := readMemStatus(pid); err == nil {
				peer += m.rss
			}
		}
	}
	s.mu.Lock()
	s.res.PeerPeakRSS = max(s.res.PeerPeakRSS, peer)
	s.res.Samples++
	s.mu.Unlock()
}

type memStatus struct{ rss, hwm int64 }

func readMemStatus(pid int) (memStatus, error) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return memStatus{}, err
	}
	defer f.Close()
	return parseMemStatus(f)
}

// parseMemStatus reads the VmRSS and VmHWM lines (in kB) of /proc/<pid>/status.
func parseMemStatus(r io.Reader) (memStatus, error) {
	var m memStatus
	found := 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, value, _ := strings.Cut(sc.Text(), ":")
		if key != "VmRSS" && key != "VmHWM" {
			continue
		}
		var kb int64
		if _, err := fmt.Sscanf(strings.TrimSpace(value), "%d kB", &kb); err != nil {
			return m, fmt.Errorf("unexpected %s line %q", key, sc.Text())
		}
		if key == "VmRSS" {
			m.rss = kb << 10
		} else {
			m.hwm = kb << 10
		}
		found++
	}
	if found == 0 {
		// Kernel threads and zombies have no memory lines.
		return m, fmt.Errorf("no VmRSS or VmHWM line")
	}
	return m, sc.Err()
}
