package acctest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
)

// Run is a CLI command running in the background, for what terraform-exec
// cannot do: signal it while it works, as Ctrl-C, a CI runner's cancel or the
// OOM killer would. Terraform runs in a process group of its own, with its
// provider plugins; when Terraform exits (or ctx ends), the group is killed,
// so no plugin outlives the run.
type Run struct {
	cmd  *exec.Cmd
	out  lockedBuffer
	done chan struct{}
	err  error
}

// Start starts the CLI with args in w (for example "apply", "-auto-approve",
// "-input=false") with w's environment, TF_IN_AUTOMATION=1 and no stdin. The
// settings made on w.TF (SetLog, SetStdout, ...) do not apply. A failure to
// start is returned by Wait.
func (w *Workdir) Start(ctx context.Context, args ...string) *Run {
	return w.StartVia(ctx, nil, args...)
}

// StartVia is Start with the CLI run through a command that runs its
// arguments (via, then the CLI and args), such as setpriv or unshare: the CLI
// and its provider plugins as another user, or in a namespace of their own.
func (w *Workdir) StartVia(ctx context.Context, via []string, args ...string) *Run {
	r := &Run{done: make(chan struct{})}
	argv := append(append(append([]string{}, via...), w.h.CLI.Path), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...) //nolint:gosec // running the CLI with the caller's arguments is the point
	cmd.Dir = w.Dir
	cmd.Env = append(envList(w.env), "TF_IN_AUTOMATION=1")
	startInGroup(cmd)
	cmd.Cancel = func() error {
		_ = killGroup(cmd.Process.Pid)
		return cmd.Process.Kill()
	}
	r.cmd = cmd
	// A pipe of our own rather than an io.Writer: exec would wait for the
	// writer's copy to end, which an orphaned plugin holding the pipe open
	// delays until it is killed, and it is killed only after Wait.
	pr, pw, err := os.Pipe()
	if err == nil {
		cmd.Stdout, cmd.Stderr = pw, pw
		err = cmd.Start()
		pw.Close()
	}
	if err != nil {
		if pr != nil {
			pr.Close()
		}
		r.err = fmt.Errorf("starting %s: %w", w.h.CLI.Path, err)
		close(r.done)
		return r
	}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(&r.out, pr)
		pr.Close()
		close(copied)
	}()
	go func() {
		r.err = cmd.Wait()
		_ = killGroup(cmd.Process.Pid)
		<-copied
		close(r.done)
	}()
	return r
}

// Signal sends sig as a user or a CI runner would. os.Interrupt goes to the
// whole process group, as Ctrl-C in a terminal sends it: the provider plugins
// ignore it, and Terraform 1.0, which runs as two processes (a parent that
// only catches the child's panics), reads it in the child. Any other signal
// goes to the Terraform process alone, as `kill PID` sends it.
func (r *Run) Signal(sig os.Signal) error {
	select {
	case <-r.done:
		return fmt.Errorf("the run has ended: %w", os.ErrProcessDone)
	default:
	}
	if sig == os.Interrupt {
		return interruptGroup(r.cmd.Process)
	}
	return r.cmd.Process.Signal(sig)
}

// KillGroup sends SIGKILL to Terraform and its provider plugins at once, as
// a CI runner that cancels or times out a job, or a preempted machine, ends
// them, and returns once none of them runs. Nothing of the run gets to clean
// up: Terraform saves no state and the providers end nothing.
func (r *Run) KillGroup() error {
	select {
	case <-r.done:
		return fmt.Errorf("the run has ended: %w", os.ErrProcessDone)
	default:
	}
	return killGroup(r.cmd.Process.Pid)
}

// PID is the Terraform process's ID (0 if it did not start).
func (r *Run) PID() int {
	if r.cmd.Process == nil {
		return 0
	}
	return r.cmd.Process.Pid
}

// ProviderPIDs lists the running provider plugin processes that Terraform
// started (terraform-provider-videogen*), in ascending order. It needs Linux's
// /proc.
func (r *Run) ProviderPIDs() ([]int, error) {
	pid := r.PID()
	if pid == 0 {
		return nil, r.err
	}
	pids, err := providerDescendants(pid)
	sort.Ints(pids)
	return pids, err
}

// Wait waits for the run to end and returns everything it wrote to stdout
// and stderr, and its error (an *exec.ExitError for a non-zero exit or a
// signal).
func (r *Run) Wait() (string, error) {
	<-r.done
	return r.out.String(), r.err
}

// Output is what the run has written so far.
func (r *Run) Output() string { return r.out.String() }

func envList(env map[string]string) []string {
	list := make([]string, 0, len(env))
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	sort.Strings(list)
	return list
}

// lockedBuffer collects stdout and stderr, which exec copies from two goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// AwaitHeld waits until the mock has accepted the held-th held task (a prompt
// with [mock:hold]) and the run's provider has read it: it is waiting for it, so
// every clip that Terraform created before it has had its Create answered, and
// a signal from then on finds the run there. It returns the number of tasks
// the mock had accepted then and the held task's ID. It fails when the run ends
// first, with the run's output.
func (r *Run) AwaitHeld(ctx context.Context, m *Mock, held int) (int, string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-r.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	fail := func(err error) (int, string, error) {
		select {
		case <-r.done:
			return 0, "", fmt.Errorf("%w; the run ended:\n%s", err, r.Output())
		default:
			return 0, "", err
		}
	}
	for n, seen := 1, 0; ; n++ {
		if err := m.AwaitTasks(ctx, n); err != nil {
			return fail(err)
		}
		task := m.Ledger().Tasks[n-1]
		if !strings.Contains(task.Prompt, "[mock:hold]") {
			continue
		}
		if seen++; seen < held {
			continue
		}
		if err := m.AwaitGets(ctx, task.TaskID, 1); err != nil {
			return fail(err)
		}
		return n, task.TaskID, nil
	}
}
