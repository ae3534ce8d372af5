package provider

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
	"github.com/videogen/terraform-provider-videogen/internal/storetest"
)

// clipThenHeld is a clip, then a held clip that Terraform creates after it: once
// the provider waits for the second, Terraform has the first clip's Create
// answer, and a kill then is a kill after the clip finished.
func clipThenHeld(wait bool) string {
	return fmt.Sprintf(`
resource "videogen_video" "clip" {
  model               = "videogen-1"
  prompt              = "a lighthouse at dusk"
  wait_for_completion = %v
}

resource "videogen_video" "next" {
  model      = "videogen-1"
  prompt     = "the pipeline's next clip [mock:hold]"
  depends_on = [videogen_video.clip]
}
`, wait)
}

// awaitHeld is Run.AwaitHeld for a test: it returns the held task's ID.
func awaitHeld(t *testing.T, mock *acctest.Mock, run *acctest.Run, held int) string {
	t.Helper()
	_, id, err := run.AwaitHeld(t.Context(), mock, held)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func killGroup(t *testing.T, run *acctest.Run) {
	t.Helper()
	if err := run.KillGroup(); err != nil {
		t.Fatal(err)
	}
	if out, err := run.Wait(); err == nil {
		t.Fatalf("the killed apply succeeded:\n%s", out)
	}
}

// stateTasks maps the address of each videogen_video in the state to its task.
func stateTasks(t *testing.T, wd *acctest.Workdir) map[string]string {
	t.Helper()
	st, err := wd.State(t.Context())
	if err != nil {
		// A local state read cut short right after an interrupted apply (seen once,
		// with Terraform 1.16 on a loaded machine) is read again, and the file's
		// size said: a torn read and a torn file need different fixes.
		_, again := wd.State(t.Context())
		size := int64(-1)
		if fi, serr := os.Stat(filepath.Join(wd.Dir, "terraform.tfstate")); serr == nil {
			size = fi.Size()
		}
		t.Fatalf("%v\n(read again: %v; terraform.tfstate is %d bytes now)", err, again, size)
	}
	out := map[string]string{}
	if st.Values != nil {
		for _, r := range st.Values.RootModule.Resources {
			if r.Type == "videogen_video" {
				out[r.Address] = fmt.Sprint(r.AttributeValues["task_id"])
			}
		}
	}
	return out
}

// inFront serves a gateway in front of the mock, at a URL of its own: intercept
// answers a request itself by returning true, and every other request reaches
// the mock.
func inFront(t *testing.T, mock *acctest.Mock, intercept func(http.ResponseWriter, *http.Request) bool) string {
	t.Helper()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !intercept(w, r) {
			mock.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(front.Close)
	return front.URL
}

// TestAccJournal_remoteStateKilledAfterTheClipFinished: with a remote backend,
// Terraform uploads state only at the end of an apply (or every 20 seconds or
// so), so a job killed outright (SIGKILL of its process group) after a clip
// finished leaves the clip's task in no state. The journal keeps it until a
// state is proven to hold it, so the re-apply adopts it: 1 billed for 1 clip.
func TestAccJournal_remoteStateKilledAfterTheClipFinished(t *testing.T) {
	requireAcc(t)
	for _, wait := range []bool{true, false} {
		t.Run(fmt.Sprintf("wait_for_completion=%v", wait), func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t)
			backend := acctest.NewHTTPBackend(t)
			wd := cliWorkdir(t, mock, backend.Block()+clipThenHeld(wait))
			run := wd.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color")
			nextTask := awaitHeld(t, mock, run, 1)
			clipTask := ledgerTask(t, mock, 0).TaskID
			if !strings.Contains(run.Output(), "videogen_video.clip: Creation complete") {
				t.Fatalf("the clip's Create has not answered:\n%s", run.Output())
			}
			if strings.Contains(string(backend.State()), clipTask) {
				t.Logf("Terraform uploaded the state before the kill: the journal was not needed this time")
			}
			killGroup(t, run)
			// A killed job leaves the remote state locked; its user unlocks it.
			if err := wd.TF.ForceUnlock(t.Context(), backend.LockID()); err != nil {
				t.Fatal(err)
			}
			if !mock.FinishTask(nextTask) {
				t.Fatalf("task %s was not pending", nextTask)
			}
			out := applyOutput(t, wd)
			if n := mock.Submissions(); n != 2 {
				t.Fatalf("the ledger shows %d submissions for 2 clips after the re-apply, want 2:\n%s", n, out)
			}
			if got := stateTasks(t, wd); got["videogen_video.clip"] != clipTask || got["videogen_video.next"] != nextTask {
				t.Fatalf("the state holds %v, want the clip's task %s and the next one's %s", got, clipTask, nextTask)
			}
			if !wrapped("Clip May Adopt a Task of a Killed Run", clipTask, "died before any state was seen holding it").MatchString(out) {
				t.Fatalf("the re-apply does not say why it adopts task %s:\n%s", clipTask, out)
			}
			if changes, err := wd.Plan(t.Context()); err != nil || changes {
				t.Fatalf("the plan after: changes %v, error %v; want an empty plan", changes, err)
			}
		})
	}
}

// TestAccJournal_killedAfterTheProviderEnded is the case as a CI job
// meets it: one clip with a remote backend, then a step that takes a while
// (terraform_data's local-exec). Terraform stops the videogen provider as soon
// as the clip is done, so the provider ends normally, and the job is killed
// (SIGKILL of its process group) during the step, before the backend received
// a state that holds the clip. Provider exit is not a saved state: the re-apply
// adopts the task, 1 billed for 1 clip.
func TestAccJournal_killedAfterTheProviderEnded(t *testing.T) {
	requireAcc(t)
	for _, wait := range []bool{true, false} {
		t.Run(fmt.Sprintf("wait_for_completion=%v", wait), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			mock := acctest.NewMock(t)
			backend := acctest.NewHTTPBackend(t)
			wd := cliWorkdir(t, mock, backend.Block()+fmt.Sprintf(`
resource "videogen_video" "clip" {
  model               = "videogen-1"
  prompt              = "a lighthouse at dusk"
  wait_for_completion = %v
}

# The pipeline's next step: it starts after the clip, and runs until the test
# removes the file "hold".
resource "terraform_data" "next_step" {
  depends_on = [videogen_video.clip]
  provisioner "local-exec" {
    command = "touch '${path.cwd}/reached' && while [ -e '${path.cwd}/hold' ]; do sleep 0.05; done"
  }
}
`, wait))
			if v, _, err := wd.TF.Version(ctx, true); err != nil || v.LessThan(version.Must(version.NewVersion("1.4.0"))) {
				t.Skipf("terraform_data needs Terraform 1.4 or later (CLI %v, %v)", v, err)
			}
			hold := filepath.Join(wd.Dir, "hold")
			if err := os.WriteFile(hold, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			run := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
			// Killed once the clip's Create has answered, the videogen provider has
			// exited, and the next step runs.
			for {
				pids, err := run.ProviderPIDs()
				_, reached := os.Stat(filepath.Join(wd.Dir, "reached"))
				if err == nil && len(pids) == 0 && reached == nil &&
					strings.Contains(run.Output(), "videogen_video.clip: Creation complete") {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatalf("the apply never got past the clip:\n%s", run.Output())
				case <-time.After(20 * time.Millisecond):
				}
				if out := run.Output(); strings.Contains(out, "Error") {
					t.Fatalf("the apply failed:\n%s", out)
				}
			}
			clipTask := ledgerTask(t, mock, 0).TaskID
			if strings.Contains(string(backend.State()), clipTask) {
				t.Logf("Terraform uploaded the state before the kill: the journal was not needed this time")
			}
			killGroup(t, run)
			if err := wd.TF.ForceUnlock(ctx, backend.LockID()); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(hold); err != nil {
				t.Fatal(err)
			}
			out := applyOutput(t, wd)
			if n := mock.Submissions(); n != 1 {
				t.Fatalf("the ledger shows %d submissions for 1 clip after the re-apply, want 1:\n%s", n, out)
			}
			if got := stateTasks(t, wd)["videogen_video.clip"]; got != clipTask {
				t.Fatalf("the state holds task %q, want the killed run's %s", got, clipTask)
			}
			if !wrapped("Clip May Adopt a Task of a Killed Run", clipTask, "answered it to Terraform").MatchString(out) {
				t.Fatalf("the re-apply does not say why it adopts task %s:\n%s", clipTask, out)
			}
			if changes, err := wd.Plan(ctx); err != nil || changes {
				t.Fatalf("the plan after: changes %v, error %v; want an empty plan", changes, err)
			}
		})
	}
}

// TestAccJournal_workspacesAdoptOnlyTheirOwnTasks: two workspaces of one
// directory share its journal. Each apply is killed after its submission was
// answered; each re-apply adopts its own workspace's task, never the other's:
// 2 billed for 2 clips, and every billed task is in a state.
func TestAccJournal_workspacesAdoptOnlyTheirOwnTasks(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	ctx := t.Context()
	mock := acctest.NewMock(t)
	wd := cliWorkdir(t, mock, cliVideo("one clip in each workspace [mock:hold]"))
	workspaces := []string{"blue", "green"}
	for i, ws := range workspaces {
		if err := wd.TF.WorkspaceNew(ctx, ws); err != nil {
			t.Fatal(err)
		}
		// The other workspace's task is no business of this one's plan.
		after, err := wd.PlanOut(ctx, "tfplan", "videogen_video.clip")
		if err != nil || after["billing"] != clip.BillingNewClip {
			t.Fatalf("workspace %s plans billing %v (error %v), want %q", ws, after["billing"], err, clip.BillingNewClip)
		}
		run := wd.Start(ctx, "apply", "-input=false", "-no-color", "tfplan")
		awaitHeld(t, mock, run, i+1)
		killGroup(t, run)
	}
	for _, task := range mock.Ledger().Tasks {
		mock.FinishTask(task.TaskID)
	}
	var held []string
	for _, ws := range workspaces {
		if err := wd.TF.WorkspaceSelect(ctx, ws); err != nil {
			t.Fatal(err)
		}
		out := applyOutput(t, wd)
		task := stateTasks(t, wd)["videogen_video.clip"]
		if task == "" || slices.Contains(held, task) {
			t.Fatalf("workspace %s holds task %q after its re-apply; the other holds %v:\n%s", ws, task, held, out)
		}
		held = append(held, task)
	}
	var billed []string
	for _, task := range mock.Ledger().Tasks {
		billed = append(billed, task.TaskID)
	}
	slices.Sort(held)
	slices.Sort(billed)
	if !slices.Equal(held, billed) {
		t.Fatalf("the ledger bills %v and the workspaces' states hold %v; want 2 tasks, each in a state", billed, held)
	}
}

// TestAccJournal_runThatEndedLeavesNothingToAdopt: the task of a run that ended
// normally stays in the journal until a state is seen holding it. The plan of a
// second, identical clip without refresh sees it in the first clip's prior
// state, which removes it before the apply could adopt it: a new clip, 2 tasks.
func TestAccJournal_runThatEndedLeavesNothingToAdopt(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	mock := acctest.NewMock(t)
	one := cliVideo("the same clip twice")
	wd := cliWorkdir(t, mock, one)
	if err := wd.Apply(t.Context()); err != nil {
		t.Fatal(err)
	}
	two := strings.Replace(one, `resource "videogen_video" "clip" {`, `resource "videogen_video" "clip" {
  count  = 2`, 1)
	if err := wd.Write(cliClip(mock, two)); err != nil {
		t.Fatal(err)
	}
	if err := wd.Apply(t.Context(), tfexec.Refresh(false)); err != nil {
		t.Fatal(err)
	}
	tasks := stateTasks(t, wd)
	if n := mock.Submissions(); n != 2 || tasks["videogen_video.clip[0]"] == tasks["videogen_video.clip[1]"] {
		t.Fatalf("the ledger shows %d submissions and the state %v; want 2 tasks, one per clip", n, tasks)
	}
}

// TestAccJournal_lostAnswerIsSaidAtPlan: a submission whose answer was lost (a
// gateway times out after forwarding it) may have created a task. The next
// plan of the same clip says so in billing and in a warning, before anything is
// sent, so that a pipeline that allows no charge (max_new_clips = 0) stops its
// apply with nothing submitted.
func TestAccJournal_lostAnswerIsSaidAtPlan(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	ctx := t.Context()
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.GatewayFailuresAfterSubmit = -1 })
	video := cliVideo("an answer lost on the way back")
	wd := cliWorkdir(t, mock, video, "submit_gateway_retries = 0")
	if err := wd.Apply(ctx); err == nil {
		t.Fatal("the apply whose answer was lost succeeded")
	}
	mock.SetGatewayFailuresAfterSubmit(0)

	var out strings.Builder
	wd.TF.SetStdout(&out)
	after, err := wd.PlanOut(ctx, "tfplan", "videogen_video.clip")
	wd.TF.SetStdout(nil)
	if err != nil {
		t.Fatal(err)
	}
	billing := after["billing"]
	if billing != clip.BillingMayBillTwice {
		t.Fatalf("the plan's billing is %v, want %q", billing, clip.BillingMayBillTwice)
	}
	if !wrapped("Warning: Clip May Be Billed Twice", "never learned whether the service created", "max_new_clips",
		"import it").MatchString(out.String()) {
		t.Fatalf("the plan does not warn of the lost answer:\n%s", out.String())
	}

	expectDoubtStopsAnUnattendedApply(t, wd, mock, video)
}

// expectDoubtStopsAnUnattendedApply applies clip body, whose plan says it may
// bill a second clip, with max_new_clips = 0: the apply stops, and the ledger
// keeps the one submission whose answer was lost.
func expectDoubtStopsAnUnattendedApply(t *testing.T, wd *acctest.Workdir, mock *acctest.Mock, body string) {
	t.Helper()
	if err := wd.Write(cliClip(mock, body, "submit_gateway_retries = 0", "max_new_clips = 0")); err != nil {
		t.Fatal(err)
	}
	if err := wd.Apply(t.Context()); err == nil || !wrapped("Too Many New Clips").MatchString(err.Error()) {
		t.Fatalf("the apply with max_new_clips = 0: %v; want Too Many New Clips", err)
	}
	if n := mock.Submissions(); n != 1 {
		t.Fatalf("the ledger shows %d submissions, want 1: nothing may be sent after the plan said the doubt", n)
	}
}

// TestAccJournal_unreachableJournalURLFailsThePlan: a journal_url database that
// cannot be reached fails the plan, naming journal_url, before anything is
// submitted, and no message shows the password. journal_path and journal_url
// together fail at plan too.
func TestAccJournal_unreachableJournalURLFailsThePlan(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	ctx := t.Context()
	mock := acctest.NewMock(t)
	refused, err := mockapi.RefusedURL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const password = "s3cret-Pw"
	url := strings.Replace(refused, "http://", "postgres://videogen:"+password+"@", 1) + "/terraform?sslmode=disable"
	wd := cliWorkdir(t, mock, cliVideo("noted first, or not sent"), "journal_path = null", "journal_url = \""+url+"\"")
	var out strings.Builder
	wd.TF.SetStdout(&out)
	wd.TF.SetStderr(&out)
	_, err = wd.Plan(ctx)
	wd.TF.SetStdout(nil)
	wd.TF.SetStderr(nil)
	text := out.String()
	if err == nil || !wrapped("Task Journal Not Reachable", "journal_url", "Nothing was submitted").MatchString(text) {
		t.Fatalf("the plan with an unreachable journal_url: %v; want it to fail naming journal_url:\n%s", err, text)
	}
	if strings.Contains(text, password) || strings.Contains(err.Error(), password) {
		t.Fatalf("the password is shown:\n%s", text)
	}
	if err := wd.Apply(ctx); err == nil || strings.Contains(err.Error(), password) {
		t.Fatalf("the apply with an unreachable journal_url: %v; want it to fail without the password", err)
	}
	if n := mock.Submissions(); n != 0 {
		t.Fatalf("the ledger shows %d submissions, want 0", n)
	}

	if err := wd.Write(cliClip(mock, cliVideo("noted first, or not sent"), "journal_url = \""+url+"\"")); err != nil {
		t.Fatal(err)
	}
	if _, err := wd.Plan(ctx); err == nil || !wrapped("journal_path", "journal_url").MatchString(err.Error()) ||
		strings.Contains(err.Error(), password) {
		t.Fatalf("the plan with journal_path and journal_url: %v; want a conflict that names both", err)
	}
	// The same with the URL in the environment, where it belongs.
	if err := wd.Write(cliClip(mock, cliVideo("noted first, or not sent"))); err != nil {
		t.Fatal(err)
	}
	if err := wd.Setenv("VIDEOGEN_JOURNAL_URL", url); err != nil {
		t.Fatal(err)
	}
	if _, err := wd.Plan(ctx); err == nil || !wrapped("Conflicting Task Journals", "VIDEOGEN_JOURNAL_URL").MatchString(err.Error()) ||
		strings.Contains(err.Error(), password) {
		t.Fatalf("the plan with journal_path and VIDEOGEN_JOURNAL_URL: %v; want a conflict that names both", err)
	}
	if n := mock.Submissions(); n != 0 {
		t.Fatalf("the ledger shows %d submissions, want 0", n)
	}
}

// TestAccJournal_unreadableJournalSubmitsNothing: a journal_path whose log is
// missing (the file copied without it) may hold a task a killed run left for
// this very clip: the plan and the apply fail saying so, and nothing is
// submitted, instead of a warning that the journal "could not be written"
// and a clip billed again. A journal that cannot be written still only warns
// (TestAccJournal_destroyWithUnwritableJournalSaysSo).
func TestAccJournal_unreadableJournalSubmitsNothing(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	ctx := t.Context()
	mock := acctest.NewMock(t)
	p := filepath.Join(t.TempDir(), "pending-tasks.json")
	if err := journal.New(p, "state", journal.DefaultMaxAge).Sent(ctx, "", journal.Entry{TaskID: "task_killed", Fingerprint: "f"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p + ".log"); err != nil {
		t.Fatal(err)
	}
	wd := cliWorkdir(t, mock, cliVideo("a journal without its log"), "journal_path = "+strconv.Quote(p))
	var out strings.Builder
	wd.TF.SetStdout(&out)
	wd.TF.SetStderr(&out)
	_, err := wd.Plan(ctx)
	wd.TF.SetStdout(nil)
	wd.TF.SetStderr(nil)
	if err == nil || !wrapped("Task Journal Not Readable", "Nothing was submitted", "restore", "which is missing").MatchString(out.String()) {
		t.Fatalf("the plan with a journal whose log is missing: %v; want it to fail saying the journal cannot be read:\n%s", err, out.String())
	}
	if err := wd.Apply(ctx); err == nil || !wrapped("Task Journal Not Readable").MatchString(err.Error()) {
		t.Fatalf("the apply with a journal whose log is missing: %v; want it to fail saying the journal cannot be read", err)
	}
	if n := mock.Submissions(); n != 0 {
		t.Fatalf("the ledger shows %d submissions, want 0", n)
	}
}

// TestAccJournal_destroyWithUnwritableJournalSaysSo: destroying a clip whose
// task the journal cannot forget says which task a later identical clip of
// this state would adopt.
func TestAccJournal_destroyWithUnwritableJournalSaysSo(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	mock := acctest.NewMock(t)
	p := filepath.Join(t.TempDir(), "pending-tasks.json")
	wd := cliWorkdir(t, mock, cliVideo("a clip the journal cannot forget"), "journal_path = "+strconv.Quote(p))
	if err := wd.Apply(t.Context()); err != nil {
		t.Fatal(err)
	}
	taskID := ledgerTask(t, mock, 0).TaskID
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	out := applyOutput(t, wd, tfexec.Destroy(true))
	if !wrapped("Task Left in the Task Journal", "Task "+taskID+" left Terraform state").MatchString(out) {
		t.Fatalf("the destroy does not say that task %s stays in the journal:\n%s", taskID, out)
	}
	if n := mock.Submissions(); n != 1 {
		t.Fatalf("the ledger shows %d submissions, want 1", n)
	}
}

// TestAccJournal_handedOverTaskSurvivesAKill: the replacement of a clip whose
// wait was cut short takes its task over. Once Delete has removed the tainted
// clip, no state holds the task until the replacement is saved, so Delete notes
// it in the journal first: a run killed while the replacement waits leaves it
// to the next apply, which adopts it. 1 billed for 1 clip.
func TestAccJournal_handedOverTaskSurvivesAKill(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	ctx := t.Context()
	mock := acctest.NewMock(t)
	wd := cliWorkdir(t, mock, cliVideo("a dawn handed over [mock:hold]"))
	run, taskIDs := startHeldApply(t, mock, wd, 1)
	taskID := taskIDs[0]
	if err := run.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if out, err := run.Wait(); err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	task, _ := mock.Ledger().Task(taskID)
	// The plan's refresh reads the task, then the replacement's take-over, then its wait.
	run = wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
	if err := mock.AwaitGets(ctx, taskID, task.GetCount+3); err != nil {
		out, _ := run.Wait()
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(run.Output(), "Destruction complete") {
		t.Fatalf("the tainted clip was not destroyed before the replacement waited:\n%s", run.Output())
	}
	killGroup(t, run)
	if got := stateTasks(t, wd); len(got) != 0 {
		// The CLI had not saved the tainted clip's destruction before the kill
		// (OpenTofu 1.12.6 never does; Terraform may not, by timing). Remove the
		// clip from state as such a save would have, so that every CLI leaves
		// the task to the journal alone, which is what this test is about.
		rm := wd.Start(ctx, "state", "rm", "-lock=false", "videogen_video.clip")
		if out, err := rm.Wait(); err != nil {
			t.Fatalf("state rm after the kill: %v\n%s", err, out)
		}
		if got := stateTasks(t, wd); len(got) != 0 {
			t.Fatalf("the state holds %v after state rm; the test needs the task in no state", got)
		}
	}
	if !mock.FinishTask(taskID) {
		t.Fatalf("task %s was not pending any more", taskID)
	}
	finishResubmission(ctx, mock)
	out := applyOutput(t, wd)
	if n := mock.Submissions(); n != 1 {
		t.Fatalf("the ledger shows %d submissions for 1 clip, want 1:\n%s", n, out)
	}
	if got := stateTasks(t, wd)["videogen_video.clip"]; got != taskID {
		t.Fatalf("the state holds task %q, want the handed-over %s", got, taskID)
	}
}

// TestAccJournal_noteFailingAfterTheAnswerWarns: the journal noted the
// submission, but cannot note the task the service answered with. The task
// exists and goes to state, so the apply warns, naming the task, and goes on:
// no error, nothing submitted twice.
func TestAccJournal_noteFailingAfterTheAnswerWarns(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	mock := acctest.NewMock(t)
	p := filepath.Join(t.TempDir(), "pending-tasks.json")
	// In front of the mock: the submission arrives after its note was written,
	// and the journal is unwritable from then on.
	front := inFront(t, mock, func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost {
			_ = os.Remove(p)
			_ = os.Mkdir(p, 0o700)
		}
		return false
	})
	wd := cliWorkdir(t, mock, cliVideo("noted before the answer, not after"), "journal_path = "+strconv.Quote(p),
		"base_url = "+strconv.Quote(front))
	out := applyOutput(t, wd)
	taskID := ledgerTask(t, mock, 0).TaskID
	if !wrapped("Task Not Noted in the Task Journal", "Task "+taskID+" exists and this apply records it in state",
		"look for task "+taskID).MatchString(out) {
		t.Fatalf("the apply does not say that task %s was not noted:\n%s", taskID, out)
	}
	if n := mock.Submissions(); n != 1 {
		t.Fatalf("the ledger shows %d submissions, want 1", n)
	}
	if got := stateTasks(t, wd)["videogen_video.clip"]; got != taskID {
		t.Fatalf("the state holds task %q, want %s", got, taskID)
	}
}

// TestAccJournal_handedOverTaskKeptOnAnUnprovenNotFound: the replacement of a
// clip whose wait was cut short reads the task it takes over. A gateway that
// answers that read 404 and will not give the model list either proves
// nothing: a wrong address answers 404 for every task. So the task is not
// dropped (once Delete has removed the tainted clip, the journal is all that
// holds it) and nothing is submitted; the apply fails naming base_url, and once
// the gateway answers again the next apply adopts the task. 1 billed for 1 clip.
func TestAccJournal_handedOverTaskKeptOnAnUnprovenNotFound(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	ctx := t.Context()
	mock := acctest.NewMock(t)
	var lost atomic.Bool
	gateway := inFront(t, mock, func(w http.ResponseWriter, r *http.Request) bool {
		if !lost.Load() {
			return false
		}
		// A gateway whose routes lost the service: the model list is refused, so
		// the plan goes on with a warning, and every task is "not found".
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/models") {
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"error":{"message":"forbidden","type":"permission_error"}}`))
			return true
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"message":"no route","type":"not_found_error"}}`))
		return true
	})
	wd := cliWorkdir(t, mock, cliVideo("a dawn behind a gateway [mock:hold]"), "base_url = "+strconv.Quote(gateway))
	run, taskIDs := startHeldApply(t, mock, wd, 1)
	taskID := taskIDs[0]
	if err := run.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if out, err := run.Wait(); err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	// Planned while the gateway works: the replacement resumes the task.
	out, err := wd.Start(ctx, "plan", "-out=resume.tfplan", "-input=false", "-no-color").Wait()
	if err != nil || !strings.Contains(out, clip.BillingResumes) {
		t.Fatalf("the plan does not resume task %s (error %v):\n%s", taskID, err, out)
	}
	lost.Store(true)
	out, err = wd.Start(ctx, "apply", "-input=false", "-no-color", "resume.tfplan").Wait()
	if err == nil || !wrapped("Unable to Create Video", "base_url", "nothing was submitted").MatchString(out) {
		t.Fatalf("want the apply to fail naming base_url before submitting (error %v):\n%s", err, out)
	}
	if n := mock.Ledger().Requests["POST /v1/video/generations"]; n != 1 {
		t.Fatalf("the mock received %d submissions, want only the first apply's:\n%s", n, out)
	}
	lost.Store(false)
	if !mock.FinishTask(taskID) {
		t.Fatalf("task %s was not pending any more", taskID)
	}
	finishResubmission(ctx, mock)
	out = applyOutput(t, wd)
	if n := mock.Submissions(); n != 1 {
		t.Fatalf("the ledger shows %d submissions for 1 clip, want 1:\n%s", n, out)
	}
	if got := stateTasks(t, wd)["videogen_video.clip"]; got != taskID {
		t.Fatalf("the state holds task %q, want the handed-over %s:\n%s", got, taskID, out)
	}
}

// TestAccJournal_killedRunsTaskKeepsItsAPI: a run killed outright leaves its
// task in the journal only. If api changes before the next apply, that task
// cannot be taken over through the other API, whose paths do not know it:
// the plan names it and says that a new clip is submitted, and the task stays
// in the journal, so that once api is set back the next apply adopts it. 1
// billed for 1 clip; before, the other API's 404 dropped it from the journal.
func TestAccJournal_killedRunsTaskKeepsItsAPI(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	ctx := t.Context()
	mock := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos))
	backend := acctest.NewHTTPBackend(t)
	body := backend.Block() + cliVideo("a heron the kill left behind [mock:hold]")
	wd := cliWorkdir(t, mock, body)
	run := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
	taskID := awaitHeld(t, mock, run, 1)
	killGroup(t, run)
	if err := wd.TF.ForceUnlock(ctx, backend.LockID()); err != nil {
		t.Fatal(err)
	}
	if got := stateTasks(t, wd); len(got) != 0 {
		t.Fatalf("the state holds %v after the kill; the test needs the task in no state", got)
	}
	if !mock.FinishTask(taskID) {
		t.Fatalf("task %s was not pending any more", taskID)
	}
	finishResubmission(ctx, mock)
	// The mock serves only the API that made the task: the submission through the
	// other one fails, which is not what this test is about.
	if err := wd.Write(cliClip(mock, body, `api = "video-generations"`)); err != nil {
		t.Fatal(err)
	}
	out, _ := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color").Wait()
	if !wrapped("Clip Has a Task of Another API", "task "+taskID, `through the "openai-videos" API`,
		`set api back to "openai-videos"`).MatchString(out) {
		t.Errorf("the apply through the other API does not name task %s:\n%s", taskID, out)
	}
	if err := wd.Write(cliClip(mock, body)); err != nil {
		t.Fatal(err)
	}
	out = applyOutput(t, wd)
	if n := mock.Submissions(); n != 1 {
		t.Fatalf("the ledger shows %d submissions for 1 clip, want 1:\n%s", n, out)
	}
	if got := stateTasks(t, wd)["videogen_video.clip"]; got != taskID {
		t.Fatalf("the state holds task %q, want the killed run's %s:\n%s", got, taskID, out)
	}
}

// TestAccJournal_targetedApplyGetsItsOwnTask: one clip applied, then a second,
// identical one applied with -target on it alone. Terraform neither reads nor
// plans the first, so no plan of that apply sees its task in a state; the
// second clip must still get a task of its own: 2 billed for 2 clips, 2
// distinct tasks, no adoption warning, and no task held twice at the next plan.
func TestAccJournal_targetedApplyGetsItsOwnTask(t *testing.T) {
	requireAcc(t)
	const one = `
resource "videogen_video" "clip" {
  model  = "videogen-1"
  prompt = "a targeted twin"
}
`
	counted := strings.Replace(one, "{\n", "{\n  count  = 1\n", 1)
	for _, tc := range []struct {
		name, before, after, first, target string
	}{
		{"count", counted, strings.Replace(counted, "count  = 1", "count  = 2", 1), "videogen_video.clip[0]", "videogen_video.clip[1]"},
		{"second resource", one, one + strings.Replace(one, `"clip"`, `"twin"`, 1), "videogen_video.clip", "videogen_video.twin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t)
			wd := cliWorkdir(t, mock, tc.before)
			applyOutput(t, wd)
			if err := wd.Write(cliClip(mock, tc.after)); err != nil {
				t.Fatal(err)
			}
			out := applyOutput(t, wd, tfexec.Target(tc.target))
			tasks := stateTasks(t, wd)
			first := tasks[tc.first]
			if n := mock.Submissions(); n != 2 || len(tasks) != 2 || first == "" || tasks[tc.target] == "" ||
				first == tasks[tc.target] {
				t.Fatalf("after the targeted apply the ledger shows %d submissions and the state %v; want 2 tasks, "+
					"one per clip:\n%s", n, tasks, out)
			}
			if strings.Contains(out, "Clip May Adopt") {
				t.Fatalf("the targeted apply offers the first clip's task %s to the new one:\n%s", first, out)
			}
			var plan strings.Builder
			wd.TF.SetStdout(&plan)
			wd.TF.SetStderr(&plan)
			changes, err := wd.Plan(t.Context())
			wd.TF.SetStdout(nil)
			wd.TF.SetStderr(nil)
			if err != nil || changes || strings.Contains(plan.String(), "Task Held by Two Resources") {
				t.Fatalf("the plan after: changes %v, error %v; want an empty plan with no task held twice:\n%s",
					changes, err, plan.String())
			}
			if n := mock.Submissions(); n != 2 {
				t.Fatalf("the ledger shows %d submissions at the end, want 2", n)
			}
		})
	}
}

// targetedTwin is the clip of the count case of
// TestAccJournal_targetedApplyGetsItsOwnTask.
const targetedTwin = `
resource "videogen_video" "clip" {
  count  = %d
  model  = "videogen-1"
  prompt = "a targeted twin"
}
`

// onBackend is a remote backend a test keeps its state on.
type onBackend struct {
	block   string        // the terraform block naming it
	saved   func() []byte // the state as the backend keeps it
	secrets []string      // never shown
	// lacks are the words of init's error when this CLI cannot use the block
	// (besides a build without the backend): the test skips then.
	lacks []string
}

// targetedTwinOnBackend runs the count case of
// TestAccJournal_targetedApplyGetsItsOwnTask in wd on backend b: count = 1
// applied, then count = 2 applied with -target on the new clip, after
// between (when given) ran its own steps on the count = 2 configuration. The
// targeted apply does not read the first clip, so only the state the provider
// reads from the backend proves that its task is held: the ledger shows
// exactly 2 submissions, 2 distinct tasks, both in the saved state, no
// adoption warning, and no secret is shown. A CLI built without the backend
// (the Terraform 1.16 the Makefile builds) skips.
func targetedTwinOnBackend(t *testing.T, mock *acctest.Mock, wd *acctest.Workdir, b onBackend, between func()) {
	t.Helper()
	if err := wd.Write(cliClip(mock, b.block+fmt.Sprintf(targetedTwin, 1))); err != nil {
		t.Fatal(err)
	}
	var init strings.Builder
	wd.TF.SetStderr(&init)
	err := wd.Init(t.Context())
	wd.TF.SetStderr(nil)
	if err != nil {
		for _, words := range append(b.lacks, "Unsupported backend type") {
			if strings.Contains(init.String()+err.Error(), words) {
				t.Skipf("this CLI cannot keep the state there (%s): %v", words, err)
			}
		}
		t.Fatalf("%v\n%s", err, init.String())
	}
	applyOutput(t, wd)
	if err := wd.Write(cliClip(mock, b.block+fmt.Sprintf(targetedTwin, 2))); err != nil {
		t.Fatal(err)
	}
	if between != nil {
		between()
	}
	out := applyOutput(t, wd, tfexec.Target("videogen_video.clip[1]"))
	if n := mock.Submissions(); n != 2 {
		t.Fatalf("after the targeted apply the ledger shows %d submissions, want 2:\n%s", n, out)
	}
	first, second := ledgerTask(t, mock, 0).TaskID, ledgerTask(t, mock, 1).TaskID
	if strings.Contains(out, "Clip May Adopt") || first == second {
		t.Fatalf("the targeted apply offers the first clip's task %s to the new one:\n%s", first, out)
	}
	for _, secret := range b.secrets {
		if strings.Contains(out, secret) {
			t.Fatalf("the targeted apply shows a secret of the backend:\n%s", out)
		}
	}
	if saved := b.saved(); !bytes.Contains(saved, []byte(strconv.Quote(first))) ||
		!bytes.Contains(saved, []byte(strconv.Quote(second))) {
		t.Fatalf("the saved state does not hold both tasks %s and %s:\n%s\n%s", first, second, saved, out)
	}
}

// readAllOf is all of an object a store's client reads, closed after.
func readAllOf(t *testing.T, r io.ReadCloser) []byte {
	t.Helper()
	defer func() { _ = r.Close() }()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAccJournal_targetedApplyOnAnHTTPBackendGetsItsOwnTask: the count = 2
// case of TestAccJournal_targetedApplyGetsItsOwnTask with the state kept by
// Terraform's http backend on loopback, behind HTTP basic authentication;
// the provider reads the state with the backend's address and credentials.
// First a targeted plan while the server refuses the provider's own read
// (telling it by its User-Agent): a state the provider cannot read proves
// nothing, so the plan can tell neither that the first clip holds the task
// nor that a killed run left it, and fails for the new, identical clip,
// naming the task and saying to apply without -target; nothing is billed
// (what every backend the provider does not read gets). Then the targeted
// apply, the read answered: 2 distinct tasks, 2 billed, no adoption warning,
// no password shown.
func TestAccJournal_targetedApplyOnAnHTTPBackendGetsItsOwnTask(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	mock := acctest.NewMock(t)
	backend := acctest.NewHTTPBackend(t)
	password := rand.Text()
	var refuseReader atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		switch {
		case !ok || user != "videogen" || pass != password:
			http.Error(w, "who are you", http.StatusUnauthorized)
		case refuseReader.Load() && r.UserAgent() == journal.StateReaderUserAgent:
			http.Error(w, "not now", http.StatusServiceUnavailable)
		default:
			backend.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(front.Close)
	wd := acctest.NewWorkdir(t)
	block := fmt.Sprintf(`
terraform {
  backend "http" {
    address        = %[1]q
    lock_address   = %[1]q
    unlock_address = %[1]q
    username       = "videogen"
    password       = %[2]q
  }
}
`, front.URL+"/state", password)
	targetedTwinOnBackend(t, mock, wd, onBackend{block: block, saved: backend.State, secrets: []string{password}}, func() {
		refuseReader.Store(true)
		defer refuseReader.Store(false)
		var plan strings.Builder
		wd.TF.SetStdout(&plan)
		wd.TF.SetStderr(&plan)
		_, err := wd.Plan(t.Context(), tfexec.Target("videogen_video.clip[1]"))
		wd.TF.SetStdout(nil)
		wd.TF.SetStderr(nil)
		if err == nil || !wrapped("Targeted Plan Cannot Tell Whose Task This Is", "task "+ledgerTask(t, mock, 0).TaskID,
			"run with -target", "cannot read this backend's saved state", "Nothing was submitted",
			"apply without -target").MatchString(plan.String()) || wrapped("Clip May Adopt").MatchString(plan.String()) {
			t.Fatalf("the targeted plan, the state unread: %v; want it to fail, naming the task a resource it does "+
				"not read may hold, and to say to apply without -target:\n%s", err, plan.String())
		}
		if n := mock.Submissions(); n != 1 {
			t.Fatalf("the ledger shows %d submissions after a plan, want 1", n)
		}
	})
}

// TestAccJournal_targetedApplyOnAnS3BackendGetsItsOwnTask: the count = 2
// case of TestAccJournal_targetedApplyGetsItsOwnTask with the state kept by
// Terraform's s3 backend on versitygw (loopback), its credentials only in the
// environment, as the standard AWS chain finds them: 2 distinct tasks, 2
// billed, no adoption warning. Terraform before 1.6 names the endpoint and
// path style one way, later versions and OpenTofu another.
func TestAccJournal_targetedApplyOnAnS3BackendGetsItsOwnTask(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	srv := storetest.StartS3(t)
	mock := acctest.NewMock(t)
	wd := acctest.NewWorkdir(t)
	for k, v := range srv.Env {
		if err := wd.Setenv(k, v); err != nil {
			t.Fatal(err)
		}
	}
	v, _, err := wd.TF.Version(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	endpoint := fmt.Sprintf("endpoints = { s3 = %q }\n    use_path_style = true\n    skip_requesting_account_id = true", srv.Endpoint)
	if v.LessThan(version.Must(version.NewVersion("1.6.0"))) {
		endpoint = fmt.Sprintf("endpoint = %q\n    force_path_style = true", srv.Endpoint)
	}
	const key = "videogen/terraform.tfstate"
	block := fmt.Sprintf(`
terraform {
  backend "s3" {
    bucket = %q
    key    = %q
    region = %q
    %s
    skip_credentials_validation = true
    skip_metadata_api_check     = true
    skip_region_validation      = true
  }
}
`, srv.Bucket, key, storetest.S3Region, endpoint)
	targetedTwinOnBackend(t, mock, wd, onBackend{block: block, secrets: []string{srv.Env["AWS_SECRET_ACCESS_KEY"]},
		saved: func() []byte {
			obj, err := srv.S3Client().GetObject(t.Context(), &s3.GetObjectInput{Bucket: &srv.Bucket, Key: aws.String(key)})
			if err != nil {
				t.Fatal(err)
			}
			return readAllOf(t, obj.Body)
		}}, nil)
}

// TestAccJournal_targetedApplyOnAGCSBackendGetsItsOwnTask: the count = 2 case
// of TestAccJournal_targetedApplyGetsItsOwnTask with the state kept by
// Terraform's gcs backend on fake-gcs-server (loopback), reached through its
// storage_custom_endpoint with an access_token: 2 distinct tasks, 2 billed,
// no adoption warning, the token never shown. A CLI whose gcs backend has no
// storage_custom_endpoint (Terraform 1.0) cannot reach a server but Google's.
func TestAccJournal_targetedApplyOnAGCSBackendGetsItsOwnTask(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	srv := storetest.StartGCS(t)
	mock := acctest.NewMock(t)
	wd := acctest.NewWorkdir(t)
	token := rand.Text()
	block := fmt.Sprintf(`
terraform {
  backend "gcs" {
    bucket                  = %q
    prefix                  = "videogen"
    storage_custom_endpoint = %q
    access_token            = %q
  }
}
`, srv.Bucket, srv.Endpoint+"/storage/v1/", token)
	targetedTwinOnBackend(t, mock, wd, onBackend{block: block, secrets: []string{token},
		lacks: []string{`"storage_custom_endpoint" is not expected`},
		saved: func() []byte {
			r, err := srv.GCSClient(t).Bucket(srv.Bucket).Object("videogen/default.tfstate").NewReader(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return readAllOf(t, r)
		}}, nil)
}

// TestAccJournal_siblingProvidersGetATaskEach: provider aliases on one service,
// each with an identical clip, in one apply. The first clip's submission is
// noted in the shared journal and its answer is held back until every other
// clip has sent its own; those clips start only once the first submission is
// on its way (they depend on a gate clip whose answer waits for it), so their
// Creates, and Terraform's plans of them at apply, meet the note of a
// provider process of the same apply that still runs. That note is no doubt:
// the apply succeeds, each clip gets a task of its own, nothing says a clip
// may be billed twice, and the billing the plan said stays.
func TestAccJournal_siblingProvidersGetATaskEach(t *testing.T) {
	requireAcc(t)
	for _, aliases := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d aliases", aliases), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			mock := acctest.NewMock(t)
			firstSent := make(chan struct{})
			othersSent := make(chan struct{})
			var twins atomic.Int32
			wait := func(r *http.Request, ch chan struct{}) bool {
				select {
				case <-ch:
					return true
				case <-r.Context().Done():
				case <-ctx.Done():
				}
				return false
			}
			// othersSentOrFailed waits until every twin was sent, or until
			// Terraform logs that a resource failed: it says why only at the
			// end, once every submission in flight was answered.
			coreLog := filepath.Join(t.TempDir(), "terraform.log")
			othersSentOrFailed := func(r *http.Request) {
				for {
					select {
					case <-othersSent:
						return
					case <-r.Context().Done():
						return
					case <-time.After(20 * time.Millisecond):
					}
					if data, _ := os.ReadFile(coreLog); bytes.Contains(data, []byte("[ERROR] vertex")) {
						return
					}
				}
			}
			front := inFront(t, mock, func(w http.ResponseWriter, r *http.Request) bool {
				if r.Method != http.MethodPost {
					return false
				}
				body, err := io.ReadAll(r.Body)
				if err != nil {
					return false
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				switch {
				case bytes.Contains(body, []byte("the gate")):
					// Answered once the first twin's submission reached the service.
					if !wait(r, firstSent) {
						http.Error(w, "the test ended", http.StatusServiceUnavailable)
						return true
					}
				case bytes.Contains(body, []byte("one twin per alias")):
					// Every twin's submission reaches the service at once; its answer waits.
					rec := httptest.NewRecorder()
					mock.ServeHTTP(rec, r)
					switch n := twins.Add(1); {
					case n == 1:
						close(firstSent)
					case int(n) == aliases:
						close(othersSent)
					}
					othersSentOrFailed(r)
					for k, v := range rec.Header() {
						w.Header()[k] = v
					}
					w.WriteHeader(rec.Code)
					_, _ = w.Write(rec.Body.Bytes())
					return true
				}
				return false
			})
			lines := []string{"base_url = " + strconv.Quote(front), `request_timeout = "10m"`}
			body := `
resource "videogen_video" "gate" {
  model               = "videogen-1"
  prompt              = "the gate"
  wait_for_completion = false
}

resource "videogen_video" "twin0" {
  model  = "videogen-1"
  prompt = "one twin per alias"
}
`
			for i := 1; i < aliases; i++ {
				body += mock.ProviderBlock(append(lines, fmt.Sprintf("alias = %q", fmt.Sprint("a", i)))...) +
					fmt.Sprintf(`
resource "videogen_video" "twin%d" {
  provider   = videogen.a%d
  model      = "videogen-1"
  prompt     = "one twin per alias"
  depends_on = [videogen_video.gate]
}
`, i, i)
			}
			wd := cliWorkdir(t, mock, body, lines...)
			for i := range aliases {
				after, err := wd.PlanOut(ctx, "tfplan", fmt.Sprintf("videogen_video.twin%d", i))
				if err != nil || after["billing"] != clip.BillingNewClip {
					t.Fatalf("twin%d plans billing %v (error %v), want %q", i, after["billing"], err, clip.BillingNewClip)
				}
			}
			run := wd.StartVia(ctx, []string{"env", "TF_LOG_CORE=ERROR", "TF_LOG_PATH=" + coreLog},
				"apply", "-input=false", "-no-color", "tfplan")
			out, err := run.Wait()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, said := range []string{"Clip May Be Billed Twice", "Earlier Submission May Have Created", "Running Provider"} {
				if strings.Contains(out, said) {
					t.Fatalf("the apply says %q of a sibling provider's submission:\n%s", said, out)
				}
			}
			tasks := stateTasks(t, wd)
			seen := map[string]bool{}
			for i := range aliases {
				task := tasks[fmt.Sprintf("videogen_video.twin%d", i)]
				if task == "" || seen[task] {
					t.Fatalf("the state holds %v; want a task of its own for each of %d twins", tasks, aliases)
				}
				seen[task] = true
			}
			if n := mock.Submissions(); n != aliases+1 {
				t.Fatalf("the ledger shows %d submissions for %d clips, want %d", n, aliases+1, aliases+1)
			}
		})
	}
}
