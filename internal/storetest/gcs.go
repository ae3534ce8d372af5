package storetest

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"cloud.google.com/go/storage"
	"google.golang.org/api/option"
)

// StartGCS starts fake-gcs-server over plain HTTP, keeping objects in a
// temporary directory, with one bucket, "clips", for the test. Its Env sets
// STORAGE_EMULATOR_HOST, which Google's clients (and gocloud's) take as the
// emulator to use without credentials.
func StartGCS(t testing.TB) *Server {
	t.Helper()
	return start(t, "gs")
}

func startGCS(ctx context.Context, root, dir string) (*Server, error) {
	bin, err := tool(ctx, root, "FAKE_GCS_SERVER")
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "fake-gcs-server")
	endpoint, log, stop, err := run(ctx, "fake-gcs-server", func(ctx context.Context, port int) *exec.Cmd {
		host := "127.0.0.1:" + strconv.Itoa(port)
		// Info logs a line for each request once it was answered, which
		// tells a test (AwaitLogLine) that the server took an upload's chunk.
		//nolint:gosec // G204: the server make store-server-path built
		cmd := exec.CommandContext(ctx, bin, "-scheme", "http", "-host", "127.0.0.1", "-port", strconv.Itoa(port),
			"-backend", "filesystem", "-filesystem-root", data,
			"-public-host", host, "-external-url", "http://"+host, "-log-level", "info")
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
		return cmd
	}, func(ctx context.Context, endpoint string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/storage/v1/b", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET /storage/v1/b: %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s := &Server{
		Kind:     "gs",
		Endpoint: endpoint,
		Bucket:   "clips",
		Env:      map[string]string{"STORAGE_EMULATOR_HOST": strings.TrimPrefix(endpoint, "http://")},
		name:     "fake-gcs-server",
		log:      log,
		stop:     stop,
	}
	c, err := s.gcsClient(ctx)
	if err == nil {
		err = c.Bucket(s.Bucket).Create(ctx, "videogen-test", nil)
		_ = c.Close()
	}
	if err != nil {
		stop()
		return nil, fmt.Errorf("creating the bucket on fake-gcs-server: %w\n%s", err, log.String())
	}
	return s, nil
}

// GCSClient is a Cloud Storage client of the server: the store's own client,
// to check what a test wrote. It is closed when the test ends.
func (s *Server) GCSClient(t testing.TB) *storage.Client {
	t.Helper()
	c, err := s.gcsClient(context.WithoutCancel(t.Context()))
	if err != nil {
		t.Fatalf("storetest: a Cloud Storage client for %s: %v", s.Endpoint, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func (s *Server) gcsClient(ctx context.Context) (*storage.Client, error) {
	return storage.NewClient(ctx, option.WithEndpoint(s.Endpoint+"/storage/v1/"), option.WithoutAuthentication())
}
