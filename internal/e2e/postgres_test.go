//go:build linux

package e2e

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pgStartTimeout bounds one server start; PostgreSQL is ready in about a
// second, so only a broken installation gets near it.
const pgStartTimeout = time.Minute

// startPostgres starts a throwaway PostgreSQL server on a free loopback port
// and returns the connection string of Terraform's pg backend for it. The
// server binaries come from PG_BINDIR, PATH or Debian's
// /usr/lib/postgresql/<major>/bin; when there are none and the test runs as
// root, Debian's postgresql package is installed first. PostgreSQL refuses
// to run as root, so a root test runs it as the package's postgres account.
// When the test ends the server is shut down (and its process group killed
// if it does not stop) and its directory removed.
func startPostgres(t *testing.T) string {
	t.Helper()
	return startPostgresServer(t).URL
}

// pgServer is a throwaway PostgreSQL server that a test may restart.
type pgServer struct {
	// URL is the connection string of the test's role.
	URL string

	restart func()
}

// Restart stops the server (a fast shutdown, which ends every session) and
// starts it again on the same port and data.
func (p *pgServer) Restart() { p.restart() }

// startPostgresServer is startPostgres, with the server.
func startPostgresServer(t *testing.T) *pgServer {
	t.Helper()
	bindir, err := findPostgres()
	if err != nil {
		if os.Geteuid() != 0 {
			t.Fatalf("%v: install Debian's postgresql package, set PG_BINDIR, or run as root to let the test install it", err)
		}
		installPostgres(t)
		if bindir, err = findPostgres(); err != nil {
			t.Fatalf("%v, even after installing postgresql", err)
		}
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("PostgreSQL cannot run as root and there is no postgres account to run it as: %v", err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}

	// In /tmp rather than t.TempDir: the server's account must reach it, and
	// the Unix socket's path must stay short.
	dir, err := os.MkdirTemp("", "videogen-e2e-pg-") //nolint:usetesting // see above
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	password := rand.Text()
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cred != nil {
		for _, p := range []string{dir, pwfile} {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				t.Fatal(err)
			}
		}
	}
	data := filepath.Join(dir, "data")
	// Password authentication over TCP; the socket, in the private dir, is
	// only reachable by the server's own account anyway.
	initdb := pgCommand(t.Context(), cred, dir, filepath.Join(bindir, "initdb"), "-D", data, "-U", "videogen_e2e",
		"--pwfile="+pwfile, "--auth-host=scram-sha-256", "--auth-local=peer", "-E", "UTF8", "--locale=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	_ = os.Remove(pwfile)

	logPath := filepath.Join(dir, "server.log")
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		stop, err := runPostgres(t, cred, dir, filepath.Join(bindir, "postgres"), data, port, logPath)
		if err == nil {
			t.Cleanup(func() {
				if err := stop(); err != nil {
					t.Errorf("stopping PostgreSQL: %v", err)
				}
				if t.Failed() {
					t.Logf("PostgreSQL log:\n%s", readLog(logPath))
				}
			})
			t.Logf("PostgreSQL %s on 127.0.0.1:%d (data in %s)", bindir, port, dir)
			restart := func() {
				t.Helper()
				if err := stop(); err != nil {
					t.Fatalf("stopping PostgreSQL to restart it: %v", err)
				}
				if stop, err = runPostgres(t, cred, dir, filepath.Join(bindir, "postgres"), data, port, logPath); err != nil {
					t.Fatalf("PostgreSQL did not start again: %v\n%s", err, readLog(logPath))
				}
			}
			return &pgServer{
				URL:     fmt.Sprintf("postgres://videogen_e2e:%s@127.0.0.1:%d/postgres?sslmode=disable", password, port),
				restart: restart,
			}
		}
		// Another process may have taken the port meanwhile: try another.
		if attempt == 5 {
			t.Fatalf("PostgreSQL did not start: %v\n%s", err, readLog(logPath))
		}
	}
}

// runPostgres starts the server in the foreground, as this process's child in
// a process group of its own, and returns once it accepts connections, with
// the function that stops it.
func runPostgres(t *testing.T, cred *syscall.Credential, dir, postgres, data string, port int, logPath string) (func() error, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	// Not tied to the test's context: the server must outlive the test body
	// until its cleanup shuts it down properly.
	srv := pgCommand(context.WithoutCancel(t.Context()), cred, dir, postgres, "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+dir, "-c", "fsync=off")
	srv.Stdout, srv.Stderr = logFile, logFile
	if err := srv.Start(); err != nil {
		return nil, err
	}
	// The server's exit status says nothing useful: stopping it is the point,
	// and a start that fails shows in its log.
	exited := make(chan struct{})
	go func() {
		_ = srv.Wait()
		close(exited)
	}()
	stop := func() error {
		// SIGINT is PostgreSQL's fast shutdown: it ends every session and exits.
		_ = srv.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
			return nil
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
			<-exited
			return errors.New("no fast shutdown within 30s; killed")
		}
	}
	deadline := time.After(pgStartTimeout)
	for {
		// Line 8 of postmaster.pid says "ready" once the server accepts
		// connections (what `pg_ctl -w` waits for).
		if pid, err := os.ReadFile(filepath.Join(data, "postmaster.pid")); err == nil {
			if lines := strings.Split(string(pid), "\n"); len(lines) > 7 && strings.HasPrefix(lines[7], "ready") {
				return stop, nil
			}
		}
		select {
		case <-exited:
			// A server killed outright leaves its PID file, whose "ready"
			// would fool the next attempt.
			_ = os.Remove(filepath.Join(data, "postmaster.pid"))
			return nil, errors.New("the server exited")
		case <-deadline:
			_ = stop()
			return nil, fmt.Errorf("not ready within %s", pgStartTimeout)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// pgCommand runs a PostgreSQL program as cred (nil: as this process) in its
// own process group, killed if the test process dies first.
func pgCommand(ctx context.Context, cred *syscall.Credential, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// findPostgres returns the directory of initdb and postgres.
func findPostgres() (string, error) {
	var candidates []string
	if dir := os.Getenv("PG_BINDIR"); dir != "" {
		candidates = append(candidates, dir)
	} else {
		if initdb, err := exec.LookPath("initdb"); err == nil {
			// Debian links initdb onto PATH; postgres stays beside its target.
			if target, err := filepath.EvalSymlinks(initdb); err == nil {
				candidates = append(candidates, filepath.Dir(target))
			}
		}
		// Debian keeps the server binaries in /usr/lib/postgresql/<major>/bin.
		dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
		candidates = append(candidates, dirs...)
	}
	for _, dir := range candidates {
		if isExecutable(filepath.Join(dir, "initdb")) && isExecutable(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server binaries (initdb and postgres) in %v", candidates)
}

func majorOf(bindir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bindir)))
	return n
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path) //nolint:gosec // looking for PostgreSQL where it may be is the point
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// installPostgres installs Debian's postgresql package. Its maintainer
// scripts would create and start a cluster of their own; a policy-rc.d that
// denies service starts, present only during the install, stops them.
func installPostgres(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Fatal("no PostgreSQL server binaries and no apt-get to install them")
	}
	const policy = "/usr/sbin/policy-rc.d"
	if _, err := os.Stat(policy); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(policy, []byte("#!/bin/sh\nexit 101\n"), 0o755); err != nil { //nolint:gosec // an executable is the point
			t.Fatal(err)
		}
		defer os.Remove(policy)
	}
	for _, args := range [][]string{
		{"update", "-qq"},
		{"install", "-y", "-qq", "--no-install-recommends", "postgresql"},
	} {
		t.Logf("apt-get %s", strings.Join(args, " "))
		cmd := exec.CommandContext(t.Context(), "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("apt-get %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("a TCP listener has the address %v", l.Addr())
	}
	return addr.Port
}

// readLog returns the server's log, for failure reports: a throwaway
// server's log is a few lines.
func readLog(path string) string {
	data, err := os.ReadFile(path) //nolint:gosec // the test's own log file
	if err != nil {
		return err.Error()
	}
	return string(data)
}
