//go:build linux

package acctest

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeRun starts, in place of Terraform, a shell that starts a fake provider
// plugin (a copy of sleep under the plugin's name) one level further down, as
// go-plugin's children are, and reports when it has.
func fakeRun(t *testing.T, ctx context.Context) *Run {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("process groups and /proc: Linux only")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on PATH")
	}
	dir := t.TempDir()
	plugin := filepath.Join(dir, PluginFile("0.0.0"))
	copyFile(t, sleep, plugin)
	w, err := (&Harness{CLI: CLI{Path: "/bin/sh"}}).Workdir(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := w.Start(ctx, "-c", `sh -c '"$1" 300 & wait' inner "$1" & echo started; wait`, "outer", plugin)
	return r
}

// awaitPlugin polls /proc until the fake plugin has started: nothing tells
// the test when the shell's child has exec'd. Only the wait is polled; no
// assertion depends on how long it takes.
func awaitPlugin(t *testing.T, r *Run) int {
	t.Helper()
	for {
		pids, err := r.ProviderPIDs()
		if err != nil {
			t.Fatal(err)
		}
		if len(pids) == 1 && strings.Contains(r.Output(), "started") {
			return pids[0]
		}
		if len(pids) > 1 {
			t.Fatalf("want one plugin process, found %v", pids)
		}
		select {
		case <-r.done:
			out, err := r.Wait()
			t.Fatalf("the run ended before its plugin started: %v\n%s", err, out)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestRunKillingTerraformLeavesNoPlugin(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			r := fakeRun(t, t.Context())
			plugin := awaitPlugin(t, r)
			if err := r.Signal(sig); err != nil {
				t.Fatal(err)
			}
			out, err := r.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("Wait returned %v, want the signal's exit error", err)
			}
			if !strings.Contains(out, "started") {
				t.Errorf("the output %q lacks what the shell printed", out)
			}
			if running(plugin) {
				t.Fatalf("plugin %d outlived the killed run", plugin)
			}
			if err := r.Signal(syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
				t.Fatalf("Signal after the end returned %v, want os.ErrProcessDone", err)
			}
		})
	}
}

func TestRunCancelKillsTheGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	r := fakeRun(t, ctx)
	plugin := awaitPlugin(t, r)
	cancel()
	if _, err := r.Wait(); err == nil {
		t.Fatal("a cancelled run reported success")
	}
	if running(plugin) {
		t.Fatalf("plugin %d outlived the cancelled run", plugin)
	}
}

func TestRunThatCannotStart(t *testing.T) {
	w, err := (&Harness{CLI: CLI{Path: filepath.Join(t.TempDir(), "no-such-cli")}}).Workdir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := w.Start(t.Context(), "version")
	if _, err := r.Wait(); err == nil || !strings.Contains(err.Error(), "starting") {
		t.Fatalf("Wait returned %v, want a start error", err)
	}
	if pids, err := r.ProviderPIDs(); err == nil || len(pids) != 0 {
		t.Fatalf("ProviderPIDs returned %v, %v; want the start error", pids, err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o700) //nolint:gosec // an executable is the point
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
