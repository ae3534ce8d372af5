//go:build linux

// Package pgtest starts the throwaway PostgreSQL servers that the end-to-end
// tests (make e2e) and the bench (make bench) run against: on a free loopback
// port, with its data in a private temporary directory, password
// authentication over TCP, and fsync off.
package pgtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/loopback"
)

// startTimeout bounds one server start; PostgreSQL is ready in about a
// second, so only a broken installation gets near it.
const startTimeout = time.Minute

// Options say how to start a server.
type Options struct {
	// Settings are extra server settings, name=value, each passed as -c.
	Settings []string
	// Logf, when set, is told what the start does (an installation, the port).
	Logf func(format string, args ...any)
}

// Server is a throwaway PostgreSQL server.
type Server struct {
	// URL is the connection string of its role (a superuser).
	URL string
	// Bindir is the directory of the server binaries it runs.
	Bindir string

	dir, data, logPath, postgres string
	password                     string
	port                         int
	cred                         *syscall.Credential
	settings                     []string

	mu   sync.Mutex
	stop func() error
}

// Start starts a server. Its binaries come from PG_BINDIR, PATH or Debian's
// /usr/lib/postgresql/<major>/bin; when there are none and this process runs
// as root, Debian's postgresql package is installed first. PostgreSQL refuses
// to run as root, so as root the server runs as the package's postgres
// account. Close shuts it down and removes its directory.
func Start(ctx context.Context, o Options) (*Server, error) {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	bindir, err := findPostgres()
	if err != nil {
		if os.Geteuid() != 0 {
			return nil, fmt.Errorf("%w: install Debian's postgresql package, set PG_BINDIR, or run as root to have it installed", err)
		}
		if err := installPostgres(ctx, logf); err != nil {
			return nil, err
		}
		if bindir, err = findPostgres(); err != nil {
			return nil, fmt.Errorf("%w, even after installing postgresql", err)
		}
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("PostgreSQL cannot run as root and there is no postgres account to run it as: %w", err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}

	// In /tmp rather than a test's own temporary directory: the server's
	// account must reach it, and the Unix socket's path must stay short.
	dir, err := os.MkdirTemp("", "videogen-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{Bindir: bindir, dir: dir, data: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "server.log"),
		postgres: filepath.Join(bindir, "postgres"), cred: cred, settings: o.Settings}
	if err := s.initdb(ctx); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		if s.port, err = loopback.FreePort(ctx); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		if err = s.run(ctx); err == nil {
			logf("PostgreSQL %s on 127.0.0.1:%d (data in %s)", bindir, s.port, dir)
			return s, nil
		}
		// Another process may have taken the port meanwhile: try another.
		if attempt == 5 {
			log := s.Log()
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("PostgreSQL did not start: %w\n%s", err, log)
		}
	}
}

// initdb creates the cluster, with a random password for its role.
func (s *Server) initdb(ctx context.Context) error {
	password := rand.Text()
	pwfile := filepath.Join(s.dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o600); err != nil {
		return err
	}
	defer os.Remove(pwfile)
	if s.cred != nil {
		for _, p := range []string{s.dir, pwfile} {
			if err := os.Chown(p, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
				return err
			}
		}
	}
	// Password authentication over TCP; the socket, in the private dir, is
	// only reachable by the server's own account anyway.
	initdb := s.command(ctx, filepath.Join(s.Bindir, "initdb"), "-D", s.data, "-U", "videogen_e2e",
		"--pwfile="+pwfile, "--auth-host=scram-sha-256", "--auth-local=peer", "-E", "UTF8", "--locale=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	s.password = password
	return nil
}

// Restart stops the server (a fast shutdown, which ends every session) and
// starts it again on the same port and data.
func (s *Server) Restart(ctx context.Context) error {
	s.mu.Lock()
	stop := s.stop
	s.stop = nil
	s.mu.Unlock()
	if stop != nil {
		if err := stop(); err != nil {
			return fmt.Errorf("stopping PostgreSQL to restart it: %w", err)
		}
	}
	if err := s.run(ctx); err != nil {
		return fmt.Errorf("PostgreSQL did not start again: %w\n%s", err, s.Log())
	}
	return nil
}

// Close shuts the server down (and kills its process group if it does not
// stop) and removes its directory.
func (s *Server) Close() error {
	s.mu.Lock()
	stop := s.stop
	s.stop = nil
	s.mu.Unlock()
	var err error
	if stop != nil {
		err = stop()
	}
	if rmErr := os.RemoveAll(s.dir); err == nil {
		err = rmErr
	}
	return err
}

// Log is the server's log so far: a throwaway server's log is a few lines.
func (s *Server) Log() string {
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		return err.Error()
	}
	return string(data)
}

// run starts the server in the foreground, as this process's child in a
// process group of its own, and returns once it accepts connections.
func (s *Server) run(ctx context.Context) error {
	logFile, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	args := []string{"-D", s.data, "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + s.dir, "-c", "fsync=off"}
	for _, set := range s.settings {
		args = append(args, "-c", set)
	}
	// Not tied to ctx: the server must outlive the caller's context until
	// Close shuts it down properly.
	srv := s.command(context.WithoutCancel(ctx), s.postgres, args...)
	srv.Stdout, srv.Stderr = logFile, logFile
	if err := srv.Start(); err != nil {
		return err
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
	deadline := time.After(startTimeout)
	for {
		// Line 8 of postmaster.pid says "ready" once the server accepts
		// connections (what `pg_ctl -w` waits for).
		if pid, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid")); err == nil {
			if lines := strings.Split(string(pid), "\n"); len(lines) > 7 && strings.HasPrefix(lines[7], "ready") {
				s.mu.Lock()
				s.stop = stop
				s.URL = fmt.Sprintf("postgres://videogen_e2e:%s@127.0.0.1:%d/postgres?sslmode=disable", s.password, s.port)
				s.mu.Unlock()
				return nil
			}
		}
		select {
		case <-exited:
			// A server killed outright leaves its PID file, whose "ready"
			// would fool the next attempt.
			_ = os.Remove(filepath.Join(s.data, "postmaster.pid"))
			return errors.New("the server exited")
		case <-deadline:
			_ = stop()
			return fmt.Errorf("not ready within %s", startTimeout)
		case <-ctx.Done():
			_ = stop()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// command runs a PostgreSQL program as the server's account in its own
// process group, killed if this process dies first.
func (s *Server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
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
func installPostgres(ctx context.Context, logf func(string, ...any)) error {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return errors.New("no PostgreSQL server binaries and no apt-get to install them")
	}
	const policy = "/usr/sbin/policy-rc.d"
	if _, err := os.Stat(policy); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(policy, []byte("#!/bin/sh\nexit 101\n"), 0o755); err != nil { //nolint:gosec // an executable is the point
			return err
		}
		defer os.Remove(policy)
	}
	for _, args := range [][]string{
		{"update", "-qq"},
		{"install", "-y", "-qq", "--no-install-recommends", "postgresql"},
	} {
		logf("apt-get %s", strings.Join(args, " "))
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}
