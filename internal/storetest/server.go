package storetest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/loopback"
)

// startTimeout bounds a server's start: generous, as the machines running
// the tests can be loaded; a server that never answers fails the test.
const startTimeout = 2 * time.Minute

// Server is a storage server a test (or the bench) started.
type Server struct {
	// Kind is "s3", "gs" or "azblob": the scheme of its URLs.
	Kind string
	// Endpoint is its base URL, http://127.0.0.1:port.
	Endpoint string
	// Bucket is the bucket (Azure: container) the server was started with.
	Bucket string
	// Env is what a client (this process's or a child's) needs: emulator
	// hosts, the test account's credentials, a region.
	Env map[string]string
	// query is the destination URL's query for the bucket.
	query string
	name  string
	log   *logBuffer
	stop  func()
}

// URL is the destination URL of key in the server's bucket.
func (s *Server) URL(key string) string {
	u := s.Kind + "://" + s.Bucket + "/" + strings.TrimPrefix(key, "/")
	if s.query != "" {
		u += "?" + s.query
	}
	return u
}

// Setenv sets Env for the rest of the test (t.Setenv, so the test cannot run
// in parallel with others).
func (s *Server) Setenv(t testing.TB) {
	t.Helper()
	for k, v := range s.Env {
		t.Setenv(k, v)
	}
}

// Environ is Env as KEY=value lines, for a child process's environment.
func (s *Server) Environ() []string {
	env := make([]string, 0, len(s.Env))
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// Log is what the server printed so far.
func (s *Server) Log() string { return s.log.String() }

// AwaitLogLine waits until a line of the server's log has every one of
// words, and returns it; or until ctx ends. A server logs a request once it
// has handled it, so a test learns from it that what the request did (or
// refused) is done, rather than guessing how long that takes. The log keeps
// its last 64 KiB: a line must be awaited before much more is logged.
func (s *Server) AwaitLogLine(ctx context.Context, words ...string) (string, error) {
	for {
		text, changed := s.log.snapshot()
		for _, line := range strings.Split(text, "\n") {
			all := true
			for _, w := range words {
				all = all && strings.Contains(line, w)
			}
			if all {
				return line, nil
			}
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no line of the %s log has %q: %w", s.name, words, ctx.Err())
		case <-changed:
		}
	}
}

// Stop ends the server. Its data directory is the caller's to remove.
func (s *Server) Stop() { s.stop() }

// Start starts a server of kind "s3" (versitygw), "gs" (fake-gcs-server) or
// "azblob" (Azurite) with its data in dir, building or installing it first
// when bin/tools under root lacks it, and makes its bucket. The caller stops
// it. Tests use StartS3, StartGCS and StartAzurite instead.
func Start(ctx context.Context, root, kind, dir string) (*Server, error) {
	var s *Server
	var err error
	switch kind {
	case "s3":
		s, err = startS3(ctx, root, dir)
	case "gs":
		s, err = startGCS(ctx, root, dir)
	case "azblob":
		s, err = startAzurite(ctx, root, dir)
	default:
		return nil, fmt.Errorf("storetest: no server for %q", kind)
	}
	if err != nil {
		return nil, fmt.Errorf("storetest: %w", err)
	}
	return s, nil
}

// start is StartS3, StartGCS and StartAzurite: a server for the test, stopped
// when it ends, with its log shown when it failed.
func start(t testing.TB, kind string) *Server {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := RepoRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	// Not the test's context: the server must outlive the test body until
	// its cleanup stops it.
	s, err := Start(context.WithoutCancel(t.Context()), root, kind, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("%s log:\n%s", s.name, s.Log())
		}
	})
	t.Logf("storetest: %s on %s", s.name, s.Endpoint)
	return s
}

// RepoRoot is the module's root directory at or above dir, where the
// GNUmakefile is.
func RepoRoot(dir string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "GNUmakefile")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("storetest: no GNUmakefile and go.mod above the working directory")
		}
		dir = parent
	}
}

var (
	// toolMu serializes the builds of one process; make's lock (in
	// store-server-path) those of several.
	toolMu sync.Mutex
	tools  = map[string]string{}
)

// tool returns the path of the server the GNUmakefile names server
// (VERSITYGW, FAKE_GCS_SERVER or AZURITE), building or installing it on first
// use: `make -s store-server-path SERVER=...` keeps its pinned version in one
// place. VIDEOGEN_<server> overrides the path.
func tool(ctx context.Context, root, server string) (string, error) {
	if p := os.Getenv("VIDEOGEN_" + server); p != "" {
		return p, nil
	}
	toolMu.Lock()
	defer toolMu.Unlock()
	if p, ok := tools[server]; ok {
		return p, nil
	}
	cmd := exec.CommandContext(ctx, "make", "-s", "--no-print-directory", "store-server-path", "SERVER="+server) //nolint:gosec // G204: the project's own make target
	cmd.Dir = root
	var stderr logBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("make store-server-path SERVER=%s (which builds it on first use) failed: %w\n%s", server, err, stderr.String())
	}
	p := strings.TrimSpace(string(out))
	if _, err := os.Stat(p); err != nil || !filepath.IsAbs(p) {
		return "", fmt.Errorf("make store-server-path SERVER=%s printed %q, not a built server\n%s", server, p, stderr.String())
	}
	tools[server] = p
	return p, nil
}

// run starts a server process at a free port until ready answers, trying
// up to five ports, and returns its endpoint, its log and how to stop it.
// command makes the process with the context it is given, which outlives
// ctx: the server runs until stopped.
func run(ctx context.Context, name string, command func(ctx context.Context, port int) *exec.Cmd,
	ready func(ctx context.Context, endpoint string) error) (string, *logBuffer, func(), error) {
	var lastErr error
	for range 5 {
		port, err := loopback.FreePort(ctx)
		if err != nil {
			return "", nil, nil, err
		}
		endpoint := "http://127.0.0.1:" + strconv.Itoa(port)
		log := &logBuffer{}
		cmd := command(context.WithoutCancel(ctx), port)
		cmd.Stdout, cmd.Stderr = log, log
		setProcAttr(cmd)
		if err := cmd.Start(); err != nil {
			return "", nil, nil, fmt.Errorf("starting %s: %w", name, err)
		}
		exited := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(exited)
		}()
		stop := func() {
			stopProcess(cmd)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				killProcess(cmd)
				<-exited
			}
		}
		err = waitReady(ctx, exited, endpoint, ready)
		if err == nil {
			return endpoint, log, stop, nil
		}
		stop()
		lastErr = fmt.Errorf("%w\n%s", err, log.String())
	}
	return "", nil, nil, fmt.Errorf("%s did not start: %w", name, lastErr)
}

func waitReady(ctx context.Context, exited <-chan struct{}, endpoint string, ready func(ctx context.Context, endpoint string) error) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for {
		attempt, done := context.WithTimeout(ctx, 10*time.Second)
		err := ready(attempt, endpoint)
		done()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("the server exited: %w", err)
		case <-ctx.Done():
			return fmt.Errorf("not ready within %s: %w", startTimeout, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// answers is a readiness check: any HTTP response from the endpoint.
func answers(ctx context.Context, endpoint string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// logBuffer keeps a server's output, bounded, for the failure message.
type logBuffer struct {
	mu      sync.Mutex
	buf     []byte
	changed chan struct{} // closed at the next write
}

const maxLog = 64 << 10

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if len(l.buf) > maxLog {
		l.buf = append([]byte("...\n"), l.buf[len(l.buf)-maxLog:]...)
	}
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return len(p), nil
}

// snapshot is the output so far and a channel closed at the next write.
func (l *logBuffer) snapshot() (string, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return string(l.buf), l.changed
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.buf)
}

// query encodes destination URL parameters.
func query(pairs ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		q.Set(pairs[i], pairs[i+1])
	}
	return q.Encode()
}
