package provider

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
)

// A clip whose task failed was never billed: replacing it says nothing of a clip
// that stays billed, at plan or at apply.
func TestAccVideoResource_failedClipIsNotSaidToStayBilled(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	mock := acctest.NewMock(t)
	wd := cliWorkdir(t, mock, cliVideo("a storm that never comes [mock:fail]"))
	var out strings.Builder
	wd.TF.SetStdout(&out)
	wd.TF.SetStderr(&out)
	if err := wd.Apply(t.Context()); err == nil {
		t.Fatalf("the apply of a failing clip succeeded:\n%s", out.String())
	}
	wd.TF.SetStdout(nil)
	wd.TF.SetStderr(nil)
	if err := wd.Write(cliClip(mock, cliVideo("a storm that comes"))); err != nil {
		t.Fatal(err)
	}
	replaced := applyOutput(t, wd)
	for _, said := range []string{"Video Removed From State Only", "stays billed", "Replaced Clip Stays Billed"} {
		if wrapped(said).MatchString(replaced) {
			t.Errorf("replacing a failed clip says %q:\n%s", said, replaced)
		}
	}
	if err := mock.ExpectSubmissions(2)(nil); err != nil {
		t.Error(err)
	}
}

// After a run is killed outright, a plain apply adopts the still running task from
// the journal and waits for it; once it succeeds, state says it is billed, without
// waiting for a refresh to say so.
func TestAccVideoResource_resumedClipIsBilledOnceItSucceeds(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	mock := acctest.NewMock(t)
	wd := cliWorkdir(t, mock, cliVideo("a killed sunrise [mock:hold]"))
	run, taskIDs := startHeldApply(t, mock, wd, 1)
	taskID := taskIDs[0]
	if err := run.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = run.Wait()
	gets := mock.Ledger().Tasks[0].GetCount
	resume := wd.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color")
	// The resumed wait has read the task, still running, before it finishes.
	if err := mock.AwaitGets(t.Context(), taskID, gets+2); err != nil {
		t.Fatal(err)
	}
	if !mock.FinishTask(taskID) {
		t.Fatalf("task %s was not pending any more", taskID)
	}
	if out, err := resume.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	st, err := wd.State(t.Context())
	if err != nil || len(st.Values.RootModule.Resources) != 1 {
		t.Fatalf("state: %v, %v", st, err)
	}
	v := st.Values.RootModule.Resources[0].AttributeValues
	if v["task_id"] != taskID || v["status"] != "succeeded" || v["billing"] != clip.BillingBilled {
		t.Fatalf("after the resuming apply: task %v, status %v, billing %q; want task %s succeeded and %q",
			v["task_id"], v["status"], v["billing"], taskID, clip.BillingBilled)
	}
	if err := mock.ExpectSubmissions(1)(nil); err != nil {
		t.Error(err)
	}
}

// One task imported into a second address of the same state is said at the next
// plan, naming the task; nothing is submitted.
func TestAccVideoResource_taskHeldTwiceWarns(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	mock := acctest.NewMock(t)
	one := `
resource "videogen_video" "one" {
  model  = "videogen-1"
  prompt = "held twice"
}
`
	wd := cliWorkdir(t, mock, one)
	if err := wd.Apply(t.Context()); err != nil {
		t.Fatal(err)
	}
	taskID := ledgerTask(t, mock, 0).TaskID
	if err := wd.Write(cliClip(mock, one+strings.ReplaceAll(one, `"one"`, `"two"`))); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	wd.TF.SetStdout(&out)
	wd.TF.SetStderr(&out)
	if err := wd.TF.Import(t.Context(), "videogen_video.two", taskID); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if _, err := wd.Plan(t.Context()); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if n := strings.Count(out.String(), "Warning: Task Held by Two Resources"); n != 1 ||
		!wrapped("Task "+taskID, "is held by this videogen_video and by another one", "terraform state rm").MatchString(out.String()) {
		t.Fatalf("the plan after importing task %s a second time shows %d warnings naming it, want one:\n%s", taskID, n, out.String())
	}
	if err := mock.ExpectSubmissions(1)(nil); err != nil {
		t.Error(err)
	}
}

// twoHeldClips is two clips whose create waits a SIGINT cuts short: both are
// tainted, and their tasks have finished since.
func twoHeldClips(t *testing.T, mock *acctest.Mock, promptOne string) (*acctest.Workdir, []string) {
	t.Helper()
	clips := func(one string) string {
		return fmt.Sprintf(`
resource "videogen_video" "one" {
  model  = "videogen-1"
  prompt = %q
}
resource "videogen_video" "two" {
  model  = "videogen-1"
  prompt = "the second clip [mock:hold]"
}
`, one)
	}
	wd := cliWorkdir(t, mock, clips("the first clip [mock:hold]"))
	run, taskIDs := startHeldApply(t, mock, wd, 2)
	if err := run.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_, _ = run.Wait()
	// Both finish before the next apply, which resumes or abandons them.
	for _, id := range taskIDs {
		mock.FinishTask(id)
	}
	if err := wd.Write(cliClip(mock, clips(promptOne))); err != nil {
		t.Fatal(err)
	}
	return wd, taskIDs
}

// Two clips whose waits were cut short, resumed one after the other: neither task
// was abandoned, and nothing says so.
func TestAccVideoResource_resumedTasksAreNotSaidAbandoned(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	mock := acctest.NewMock(t)
	wd, _ := twoHeldClips(t, mock, "the first clip [mock:hold]")
	if out := applyOutput(t, wd, tfexec.Parallelism(1)); wrapped("Unfinished Task Abandoned").MatchString(out) {
		t.Errorf("an apply that resumed both tasks says one was abandoned:\n%s", out)
	}
	if err := mock.ExpectSubmissions(2)(nil); err != nil {
		t.Error(err)
	}
}

// One of two cut-short clips asks for another clip now: its own task is said
// abandoned, by its own Delete, once; the other clip's resumed task is not.
func TestAccVideoResource_abandonedTaskIsSaidOnItsOwnClip(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	mock := acctest.NewMock(t)
	wd, taskIDs := twoHeldClips(t, mock, "the first clip, told again")
	out := applyOutput(t, wd)
	one, two := ledgerTask(t, mock, 0), ledgerTask(t, mock, 1)
	first := one.TaskID
	if !strings.Contains(one.Prompt, "first") {
		first = two.TaskID
	}
	second := taskIDs[0]
	if second == first {
		second = taskIDs[1]
	}
	// Terraform shows no address for a Delete's warning: it names the clip's task
	// and prompt.
	if n := strings.Count(out, "Warning: Unfinished Task Abandoned"); n != 1 ||
		!wrapped("Unfinished Task Abandoned", "Task "+first, `(the clip of prompt "the first clip [mock:hold]")`).MatchString(out) ||
		wrapped("Task "+second+" (the clip").MatchString(out) || wrapped("with videogen_video.two").MatchString(out) {
		t.Fatalf("want one warning naming videogen_video.one's task %s (not %s); got %d:\n%s", first, second, n, out)
	}
	if err := mock.ExpectSubmissions(3)(nil); err != nil {
		t.Error(err)
	}
}

// Identical new clips applied together, more of them than Terraform applies at
// once: the tasks the first ones submit in this apply are in the journal when
// the later ones are planned again, and must not turn their "new clip" into
// "known after apply" (Terraform would stop the apply as inconsistent).
func TestAccVideoResource_identicalClipsBeyondParallelism(t *testing.T) {
	mock := acctest.NewMock(t)
	var config strings.Builder
	config.WriteString(mock.ProviderBlock())
	for i := range 12 {
		prompt := "one of six identical clips"
		if i >= 6 {
			prompt = fmt.Sprintf("clip %d", i)
		}
		fmt.Fprintf(&config, "resource \"videogen_video\" \"c%d\" {\n  model  = \"videogen-1\"\n  prompt = %q\n}\n", i, prompt)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config.String(), Check: mock.ExpectSubmissions(12)},
			mock.NothingNewStep(config.String(), 12),
		},
	})
}
