//go:build linux

package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := acctest.Teardown(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
	}
	os.Exit(code)
}

// pipelineDir is the configuration under test, as a user's CI would check it out.
var pipelineDir = filepath.Join("..", "..", "examples", "pipeline")

// lockProbe is a clip that two runners add at the same time. The mock holds
// its task running until the test releases it, so the runner that applies it
// holds the state lock for as long as the test needs.
const lockProbe = `
resource "videogen_video" "lock_probe" {
  model   = "videogen-1-fast"
  prompt  = "Lock probe: a metronome ticking on a piano [mock:hold]"
  seconds = "2"
}
`

// cancelledClip is a clip whose run is cancelled while the mock holds its task.
const cancelledClip = `
resource "videogen_video" "cancelled" {
  model   = "videogen-1-fast"
  prompt  = "Cancelled run: a kite caught in a tree [mock:hold]"
  seconds = "2"
}
`

// TestPipeline applies examples/pipeline the way CI runners share state: in
// fresh working directories, with Terraform's pg backend on a real
// PostgreSQL server, against the mock service.
func TestPipeline(t *testing.T) {
	if os.Getenv("VIDEOGEN_E2E") == "" {
		t.Skip("end-to-end pipeline test: set VIDEOGEN_E2E=1 (make e2e does)")
	}
	ctx := t.Context()
	mock := acctest.NewMock(t)
	pgConn := startPostgres(t)
	newRunner := func(extra string) *acctest.Workdir {
		t.Helper()
		return newRunner(t, mock, pgConn, extra)
	}

	// Runner A builds every clip, with its file.
	a := newRunner("")
	must(t, a.Apply(ctx))
	if _, err := os.Stat(filepath.Join(a.Dir, "terraform.tfstate")); err == nil {
		t.Fatal("runner A wrote local state; the pg backend was not used")
	}
	tasksA, filesA := outputs(t, a)
	clips := len(tasksA)
	if clips < 2 || len(filesA) != clips {
		t.Fatalf("examples/pipeline should build several clips, each with its file: %d tasks, %d files", clips, len(filesA))
	}
	checkFiles(t, a, mock, tasksA, filesA)
	expectSubmissions(t, mock, clips, "after runner A")

	// Runner B, a fresh checkout on the same state: it changes no clip,
	// downloads every file again from the same tasks, and submits nothing.
	b := newRunner("")
	changes, err := b.Plan(ctx, tfexec.Out("tfplan"))
	if err != nil || !changes {
		t.Fatalf("runner B's plan should recreate the missing files: changes %v, error %v", changes, err)
	}
	plan, err := b.TF.ShowPlanFile(ctx, "tfplan")
	must(t, err)
	checkFilesOnlyPlan(t, plan, clips)
	must(t, b.TF.Apply(ctx, tfexec.DirOrPlan("tfplan")))
	tasksB, filesB := outputs(t, b)
	checkFiles(t, b, mock, tasksB, filesB)
	for name, f := range filesA {
		if tasksB[name] != tasksA[name] || filesB[name].SHA256 != f.SHA256 {
			t.Errorf("clip %s: runner B has task %s and SHA-256 %s, runner A task %s and %s",
				name, tasksB[name], filesB[name].SHA256, tasksA[name], f.SHA256)
		}
	}
	expectSubmissions(t, mock, clips, "after runner B")
	expectEmptyPlan(t, b, "runner B after its apply")

	// Runners C and D add the same clip. C's apply holds the state lock
	// while the mock holds its task; D's apply, meanwhile, fails cleanly on
	// the lock and submits nothing.
	c, d := newRunner(lockProbe), newRunner(lockProbe)
	applyC := c.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color", "-lock-timeout=0")
	if err := mock.AwaitTasks(ctx, clips+1); err != nil {
		out, runErr := applyC.Wait()
		t.Fatalf("%v; runner C's apply: %v\n%s", err, runErr, out)
	}
	if err := d.Apply(ctx, tfexec.LockTimeout("0s")); err == nil || !strings.Contains(err.Error(), "Error acquiring the state lock") {
		t.Fatalf("runner D's apply while C holds the lock: %v; want an error acquiring the state lock", err)
	}
	expectSubmissions(t, mock, clips+1, "while runner C holds the lock")
	probe := mock.Ledger().Tasks[clips]
	if !strings.HasPrefix(probe.Prompt, "Lock probe") || !mock.FinishTask(probe.TaskID) {
		t.Fatalf("task %d is not the held lock probe: %+v", clips, probe)
	}
	if out, err := applyC.Wait(); err != nil {
		t.Fatalf("runner C's apply: %v\n%s", err, out)
	}
	// D applies again after C: the clip is in the shared state now.
	must(t, d.Apply(ctx, tfexec.LockTimeout("0s")))
	expectSubmissions(t, mock, clips+1, "after runner D applied again")
	expectEmptyPlan(t, c, "runner C after both applies")

	// Runner E is cancelled by its CI (SIGTERM) while it waits for a new
	// clip: Terraform stops the provider, records the submitted task as
	// tainted and releases the lock. After untaint, the next run adopts that
	// task instead of paying for another.
	e := newRunner(lockProbe + cancelledClip)
	applyE := e.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
	if err := mock.AwaitTasks(ctx, clips+2); err != nil {
		out, runErr := applyE.Wait()
		t.Fatalf("%v; runner E's apply: %v\n%s", err, runErr, out)
	}
	cancelled := mock.Ledger().Tasks[clips+1]
	// Once the provider has read the task it is waiting on it.
	must(t, mock.AwaitGets(ctx, cancelled.TaskID, 1))
	must(t, applyE.Signal(syscall.SIGTERM))
	if out, err := applyE.Wait(); err == nil || !strings.Contains(out, "Interrupt received") {
		t.Fatalf("runner E's cancelled apply: error %v, want an interrupted run\n%s", err, out)
	}
	if _, err := c.Plan(ctx, tfexec.LockTimeout("0s")); err != nil {
		t.Fatalf("the lock was not released after runner E was cancelled: %v", err)
	}
	if st := resourceState(t, e, "videogen_video.cancelled"); st.AttributeValues["task_id"] != cancelled.TaskID || !st.Tainted {
		t.Fatalf("the shared state holds %v (tainted %v), want the cancelled run's task %s, tainted",
			st.AttributeValues["task_id"], st.Tainted, cancelled.TaskID)
	}
	must(t, e.TF.Untaint(ctx, "videogen_video.cancelled"))
	if !mock.FinishTask(cancelled.TaskID) {
		t.Fatalf("task %s was not pending", cancelled.TaskID)
	}
	must(t, e.Apply(ctx))
	if st := resourceState(t, e, "videogen_video.cancelled"); st.AttributeValues["status"] != "succeeded" {
		t.Fatalf("after the rerun the cancelled clip is %v, want succeeded", st.AttributeValues["status"])
	}
	expectSubmissions(t, mock, clips+2, "after runner E's rerun")
	probes := 0
	for _, task := range mock.Ledger().Tasks {
		if strings.HasPrefix(task.Prompt, "Lock probe") {
			probes++
		}
	}
	if probes != 1 {
		t.Fatalf("the lock probe was submitted %d times, want once", probes)
	}
}

// newRunner is a CI runner: a fresh working directory holding nothing but
// examples/pipeline's configuration (and extra, when set), initialised on the pg
// backend at pgConn, with the provider's settings in the environment, the task
// journal in the same database among them, as the pipeline guide sets it up.
func newRunner(t *testing.T, mock *acctest.Mock, pgConn, extra string) *acctest.Workdir {
	t.Helper()
	wd := acctest.NewWorkdir(t)
	files, err := filepath.Glob(filepath.Join(pipelineDir, "*.tf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no configuration in %s: %v", pipelineDir, err)
	}
	for _, f := range files {
		content, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		must(t, wd.WriteFile(filepath.Base(f), string(content)))
	}
	if extra != "" {
		must(t, wd.WriteFile("extra.tf", extra))
	}
	must(t, wd.Setenv("VIDEOGEN_BASE_URL", mock.URL))
	must(t, wd.Setenv("VIDEOGEN_API_KEY", mockapi.DefaultAPIKey))
	must(t, wd.Setenv("VIDEOGEN_JOURNAL_URL", pgConn))
	must(t, wd.Setenv("PG_CONN_STR", pgConn))
	must(t, wd.Init(t.Context()))
	return wd
}

// clipFile is one entry of examples/pipeline's `files` output.
type clipFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size_bytes"`
	SHA256 string `json:"sha256"`
}

func outputs(t *testing.T, wd *acctest.Workdir) (tasks map[string]string, files map[string]clipFile) {
	t.Helper()
	out, err := wd.TF.Output(t.Context())
	must(t, err)
	must(t, json.Unmarshal(out["task_ids"].Value, &tasks))
	must(t, json.Unmarshal(out["files"].Value, &files))
	return tasks, files
}

// checkFiles checks that every file exists with the recorded size and
// SHA-256, and holds its own task's clip: the mock gives every task
// different bytes, so a file that got another clip's would show here.
func checkFiles(t *testing.T, wd *acctest.Workdir, mock *acctest.Mock, tasks map[string]string, files map[string]clipFile) {
	t.Helper()
	for name, f := range files {
		path := f.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(wd.Dir, path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 || int64(len(data)) != f.Size {
			t.Fatalf("%s: %s has %d bytes and SHA-256 %s; the state says %d bytes and %s", name, path, len(data), got, f.Size, f.SHA256)
		}
		if clip, ok := mock.Clip(tasks[name]); !ok || !bytes.Equal(data, clip) {
			t.Fatalf("%s: %s is not the clip of its task %s", name, path, tasks[name])
		}
	}
}

// checkFilesOnlyPlan checks that a plan changes no clip and creates every file.
func checkFilesOnlyPlan(t *testing.T, plan *tfjson.Plan, clips int) {
	t.Helper()
	var videos, files int
	for _, rc := range plan.ResourceChanges {
		switch {
		case rc.Type == "videogen_video" && rc.Change.Actions.NoOp():
			videos++
		case rc.Type == "videogen_video_file" && slices.Contains(rc.Change.Actions, tfjson.ActionCreate):
			files++
		default:
			t.Errorf("unexpected change in runner B's plan: %s %v", rc.Address, rc.Change.Actions)
		}
	}
	if videos != clips || files != clips {
		t.Fatalf("runner B's plan keeps %d videos and creates %d files, want %d of each", videos, files, clips)
	}
}

func expectSubmissions(t *testing.T, mock *acctest.Mock, want int, when string) {
	t.Helper()
	if got := mock.Submissions(); got != want {
		t.Fatalf("%s the mock's ledger shows %d submitted tasks, want %d", when, got, want)
	}
}

func expectEmptyPlan(t *testing.T, wd *acctest.Workdir, who string) {
	t.Helper()
	if changes, err := wd.Plan(t.Context(), tfexec.LockTimeout("0s")); err != nil || changes {
		t.Fatalf("the plan of %s: changes %v, error %v; want none", who, changes, err)
	}
}

func resourceState(t *testing.T, wd *acctest.Workdir, addr string) *tfjson.StateResource {
	t.Helper()
	st, err := wd.State(t.Context())
	must(t, err)
	if st.Values != nil {
		for _, r := range st.Values.RootModule.Resources {
			if r.Address == addr {
				return r
			}
		}
	}
	t.Fatalf("%s is not in the state", addr)
	return nil
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
