package main

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMakeMockStopsWithMake stops `make mock` the ways users and CI jobs do
// and checks that the script and the mock it started are gone too: a mock
// left behind holds its port and makes the next `make mock` fail with
// "address already in use". `kill PID` (SIGTERM) and `kill -9 PID` go to
// make alone; Ctrl-C, Ctrl-\ and a closed terminal signal the whole
// foreground process group. (GNU make, given SIGINT, SIGHUP or SIGQUIT
// alone, waits for its recipe to end, as it expects the recipe to have had
// the signal too.)
func TestMakeMockStopsWithMake(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig   syscall.Signal
		group bool
	}{
		{syscall.SIGTERM, false},
		{syscall.SIGKILL, false},
		{syscall.SIGINT, true},
		{syscall.SIGQUIT, true},
		{syscall.SIGHUP, true},
	} {
		sig := c.sig
		t.Run(sig.String(), func(t *testing.T) {
			if sig == syscall.SIGHUP && signal.Ignored(sig) {
				// Under nohup the hangup is ignored, and children inherit that:
				// make mock would rightly outlive it. Handled here, it is reset
				// to the default in the processes started below, as on a
				// terminal; Stop ignores it again.
				hup := make(chan os.Signal, 1)
				signal.Notify(hup, sig)
				defer signal.Stop(hup)
			}
			cmd := exec.CommandContext(t.Context(), "make", "-s", "--no-print-directory", "mock", "MOCKFLAGS=-addr 127.0.0.1:0 -quiet")
			cmd.Dir = root
			// The script builds the mock into TMPDIR and removes it when it
			// ends; one killed by the cleanup below cannot, so its TMPDIR is
			// the test's own, which the test removes.
			cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
			// Its own process group, so the test can tell when everything
			// make started is gone, and clean up whatever the test leaves.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pgid := cmd.Process.Pid
			t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })

			addr := ""
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if v, ok := strings.CutPrefix(sc.Text(), "export VIDEOGEN_BASE_URL="); ok {
					u, err := url.Parse(v)
					if err != nil {
						t.Fatal(err)
					}
					addr = u.Host
					break
				}
			}
			if addr == "" {
				t.Fatalf("make mock printed no base URL (%v)", sc.Err())
			}
			target := pgid
			if c.group {
				target = -pgid
			}
			if err := syscall.Kill(target, sig); err != nil {
				t.Fatal(err)
			}
			// A deadline, not a timing assertion: the processes end at once
			// on an idle machine and the test fails only if they never do.
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			exited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(exited) }()
			select {
			case <-exited:
			case <-ctx.Done():
				t.Fatalf("make is still running after %s", sig)
			}
			for syscall.Kill(-pgid, 0) == nil {
				select {
				case <-ctx.Done():
					t.Fatalf("after %s to make, processes of its group are still running", sig)
				case <-time.After(50 * time.Millisecond):
				}
			}
			var d net.Dialer
			if conn, err := d.DialContext(t.Context(), "tcp", addr); err == nil {
				conn.Close()
				t.Fatalf("after %s to make, something still listens on %s", sig, addr)
			} else if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Logf("dialing %s: %v", addr, err)
			}
		})
	}
}
