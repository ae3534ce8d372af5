//go:build linux

package acctest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
)

func accOnly(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
}

// harnessConfig is one clip; a prompt with [mock:hold] keeps its task running
// until the test releases it.
func harnessConfig(mock *Mock, prompt string) string {
	return `terraform {
  required_providers {
    videogen = {
      source  = "videogen/videogen"
      version = "~> 0.1"
    }
  }
}
` + mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "clip" {
  model  = "videogen-1"
  prompt = %q
}
`, prompt)
}

// TestAccHarness_initApplyPlan: a plain init finds this checkout's provider
// offline, under the address the CLI in use resolves "videogen/videogen" to,
// at the version CHANGELOG.md names, and it applies and plans clean.
func TestAccHarness_initApplyPlan(t *testing.T) {
	accOnly(t)
	ctx := t.Context()
	mock := NewMock(t)
	wd := NewWorkdir(t)
	var initOut strings.Builder
	wd.TF.SetStdout(&initOut)
	wd.TF.SetStderr(&initOut)
	if err := wd.Write(harnessConfig(mock, "a paper boat")); err != nil {
		t.Fatal(err)
	}
	if err := wd.Init(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := Setup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile(filepath.Join(wd.Dir, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	wantLock := fmt.Sprintf("provider %q {\n  version     = %q", h.CLI.ProviderAddress(ProviderNamespace, ProviderType), h.Version)
	if !strings.Contains(string(lock), wantLock) {
		t.Fatalf("the lock file does not pin %s:\n%s", wantLock, lock)
	}
	// From the mirror, not through dev_overrides and their warning on every
	// command.
	if out := initOut.String(); !strings.Contains(out, "Installed videogen/videogen v"+h.Version) ||
		strings.Contains(out, "overrides") {
		t.Errorf("init did not install the provider from the mirror:\n%s", out)
	}
	wd.TF.SetStdout(nil)
	wd.TF.SetStderr(nil)

	if err := wd.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	clip := videoInState(t, wd)
	if clip.AttributeValues["status"] != "succeeded" {
		t.Fatalf("status = %v, want succeeded", clip.AttributeValues["status"])
	}
	changes, err := wd.Plan(ctx)
	if err != nil || changes {
		t.Fatalf("the plan after apply: changes %v, error %v; want none", changes, err)
	}
	if got := mock.Submissions(); got != 1 {
		t.Fatalf("the mock's ledger shows %d submissions, want 1", got)
	}
}

// TestAccHarness_interruptedApply signals Terraform while the provider waits
// for a held task, as Ctrl-C or a CI runner's cancel would: Terraform stops
// the provider, records the submitted task (tainted), and after untaint the
// next apply adopts that task instead of submitting another.
func TestAccHarness_interruptedApply(t *testing.T) {
	accOnly(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx := t.Context()
			mock := NewMock(t)
			wd := NewWorkdir(t)
			if err := wd.Write(harnessConfig(mock, "a held sunrise [mock:hold]")); err != nil {
				t.Fatal(err)
			}
			if err := wd.Init(ctx); err != nil {
				t.Fatal(err)
			}
			run := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
			taskID := awaitHeldTask(ctx, t, mock, run)
			if pids, err := run.ProviderPIDs(); err != nil || len(pids) == 0 {
				t.Fatalf("no provider process under Terraform while it applies: %v, %v", pids, err)
			}
			if err := run.Signal(sig); err != nil {
				t.Fatal(err)
			}
			out, err := run.Wait()
			if err == nil {
				t.Fatalf("the interrupted apply succeeded:\n%s", out)
			}
			if !strings.Contains(out, "Interrupt received") {
				t.Fatalf("Terraform did not handle %v as an interrupt:\n%s", sig, out)
			}
			clip := videoInState(t, wd)
			if clip.AttributeValues["task_id"] != taskID || !clip.Tainted {
				t.Fatalf("state holds task %v (tainted %v), want %s tainted", clip.AttributeValues["task_id"], clip.Tainted, taskID)
			}

			if !mock.FinishTask(taskID) {
				t.Fatalf("task %s was not pending", taskID)
			}
			if err := wd.TF.Untaint(ctx, "videogen_video.clip"); err != nil {
				t.Fatal(err)
			}
			if err := wd.Apply(ctx); err != nil {
				t.Fatal(err)
			}
			if clip := videoInState(t, wd); clip.AttributeValues["task_id"] != taskID || clip.AttributeValues["status"] != "succeeded" {
				t.Fatalf("after the second apply: task %v status %v, want %s succeeded", clip.AttributeValues["task_id"], clip.AttributeValues["status"], taskID)
			}
			if got := mock.Submissions(); got != 1 {
				t.Fatalf("the mock's ledger shows %d submissions, want 1", got)
			}
		})
	}
}

// TestAccHarness_killedProcesses: a provider killed outright fails the apply
// (Terraform reports the crash), and a Terraform killed outright leaves no
// provider process behind once Wait returns.
func TestAccHarness_killedProcesses(t *testing.T) {
	accOnly(t)
	cases := []struct {
		name   string
		kill   func(t *testing.T, run *Run, providers []int)
		output string
	}{
		{
			name: "provider",
			kill: func(t *testing.T, _ *Run, providers []int) {
				for _, pid := range providers {
					if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
				}
			},
			output: "plugin",
		},
		{
			name: "terraform",
			kill: func(t *testing.T, run *Run, _ []int) {
				if err := run.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			mock := NewMock(t)
			wd := NewWorkdir(t)
			if err := wd.Write(harnessConfig(mock, "a held sunset [mock:hold]")); err != nil {
				t.Fatal(err)
			}
			if err := wd.Init(ctx); err != nil {
				t.Fatal(err)
			}
			run := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
			awaitHeldTask(ctx, t, mock, run)
			providers, err := run.ProviderPIDs()
			if err != nil || len(providers) == 0 {
				t.Fatalf("no provider process under Terraform while it applies: %v, %v", providers, err)
			}
			tc.kill(t, run, providers)
			out, err := run.Wait()
			if err == nil {
				t.Fatalf("the apply succeeded although its %s was killed:\n%s", tc.name, out)
			}
			if !strings.Contains(out, tc.output) {
				t.Fatalf("the output lacks %q:\n%s", tc.output, out)
			}
			for _, pid := range providers {
				if running(pid) {
					t.Fatalf("provider process %d outlived the run", pid)
				}
			}
			if got := mock.Submissions(); got != 1 {
				t.Fatalf("the mock's ledger shows %d submissions, want 1", got)
			}
		})
	}
}

// awaitHeldTask waits until the apply has submitted its one task, which the
// mock holds running, and returns its ID.
func awaitHeldTask(ctx context.Context, t *testing.T, mock *Mock, run *Run) string {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// An apply that ends without submitting must not leave the wait hanging.
		_, _ = run.Wait()
		cancel()
	}()
	if err := mock.AwaitTasks(ctx, 1); err != nil {
		out, runErr := run.Wait()
		t.Fatalf("%v; the apply ended: %v\n%s", err, runErr, out)
	}
	// The provider reads the task at least once before it waits; after that
	// read the task is in the provider's hands and an interrupt has something
	// to stop.
	id := mock.Ledger().Tasks[0].TaskID
	if err := mock.AwaitGets(ctx, id, 1); err != nil {
		out, runErr := run.Wait()
		t.Fatalf("%v; the apply ended: %v\n%s", err, runErr, out)
	}
	return id
}

func videoInState(t *testing.T, wd *Workdir) *tfjson.StateResource {
	t.Helper()
	st, err := wd.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Values == nil {
		t.Fatal("the state is empty")
	}
	for _, r := range st.Values.RootModule.Resources {
		if r.Address == "videogen_video.clip" {
			return r
		}
	}
	t.Fatalf("no videogen_video.clip in state")
	return nil
}
