//go:build linux

package e2e

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/jackc/pgx/v5"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
)

// heldAfterClips is a clip that Terraform creates after every clip of
// examples/pipeline, and that the mock holds: once the provider waits for it,
// each pipeline clip's Create has answered.
const heldAfterClips = `
resource "videogen_video" "after" {
  model      = "videogen-1-fast"
  prompt     = "After the pipeline's clips: a curtain closing [mock:hold]"
  seconds    = "2"
  depends_on = [videogen_video.clip]
}
`

// TestJournalURL_freshRunnerAdoptsWhatAKilledRunnerLeft: runner A is killed
// outright (SIGKILL of its process group, as a cancelled or timed-out CI job
// is) after its clips finished, before the pg backend received a state that
// holds them. Runner B, a fresh working directory on another "machine", shares
// the state and, through journal_url, the task journal: it adopts every task
// instead of submitting it again.
func TestJournalURL_freshRunnerAdoptsWhatAKilledRunnerLeft(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	mock := acctest.NewMock(t)
	pgConn := startPostgres(t)

	a := newRunner(t, mock, pgConn, heldAfterClips)
	run := a.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
	// Terraform creates the held clip after the pipeline's clips.
	tasks, held := awaitHeld(t, mock, run, 1)
	clips := tasks - 1
	must(t, run.KillGroup())
	if out, err := run.Wait(); err == nil {
		t.Fatalf("runner A's killed apply succeeded:\n%s", out)
	}
	// The server ends the killed runner's sessions, and with them its locks
	// (the state's and the journal's run): wait until it has.
	awaitNoAdvisoryLocks(t, pgConn)
	if !mock.FinishTask(held) {
		t.Fatalf("task %s was not pending", held)
	}

	b := newRunner(t, mock, pgConn, heldAfterClips)
	var out strings.Builder
	b.TF.SetStdout(&out)
	// The plan already knows: billing is left to the apply, which adopts the task.
	after, err := b.PlanOut(ctx, "tfplan", "videogen_video.after")
	if err != nil || after == nil || after["billing"] != nil {
		t.Fatalf("runner B plans the held clip with billing %v (error %v), want it known after apply (adopted)\n%s",
			after["billing"], err, out.String())
	}
	err = b.TF.Apply(ctx, tfexec.DirOrPlan("tfplan"))
	b.TF.SetStdout(nil)
	if err != nil {
		t.Fatalf("runner B: %v\n%s", err, out.String())
	}
	expectSubmissions(t, mock, clips+1, "after runner B adopted runner A's tasks")
	taskIDs, files := outputs(t, b)
	if len(taskIDs) != clips {
		t.Fatalf("runner B's state holds %d pipeline clips, want %d", len(taskIDs), clips)
	}
	checkFiles(t, b, mock, taskIDs, files)
	if !strings.Contains(out.String(), "Clip May Adopt a Task of a Killed Run") {
		t.Errorf("runner B's apply does not say that it adopts a killed run's tasks:\n%s", out.String())
	}
	expectEmptyPlan(t, b, "runner B after its apply")
}

// TestJournalURL_liveRunnersOfTwoStatesGetTwoTasks: two runners apply the same
// clip at once, each for its own state (workspaces of the pg backend), on one
// journal_url. Neither takes the other's task: it belongs to another state, and
// its run is alive. Two clips declared, two billed.
func TestJournalURL_liveRunnersOfTwoStatesGetTwoTasks(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	mock := acctest.NewMock(t)
	pgConn := startPostgres(t)
	const sameClip = `
resource "videogen_video" "same" {
  model   = "videogen-1-fast"
  prompt  = "The same clip on two states [mock:hold]"
  seconds = "2"
}
`
	var runs []*acctest.Run
	for i, ws := range []string{"staging", "production"} {
		r := newRunner(t, mock, pgConn, sameClip)
		must(t, r.TF.WorkspaceNew(ctx, ws))
		// Only the held clip: the pipeline's clips would finish and end nothing here.
		must(t, r.WriteFile("clips.tf", ""))
		must(t, r.WriteFile("outputs.tf", ""))
		// The other runner's task belongs to another state, and its run is alive.
		var out strings.Builder
		r.TF.SetStdout(&out)
		after, err := r.PlanOut(ctx, "tfplan", "videogen_video.same")
		r.TF.SetStdout(nil)
		// The plan's own summary proves that its words were captured.
		if err != nil || after["billing"] != "new clip" || !strings.Contains(out.String(), "Plan: 1 to add") ||
			strings.Contains(out.String(), "Running Provider") || strings.Contains(out.String(), "Adopt") {
			t.Fatalf("runner %s plans billing %v (error %v), want a new clip and no word of the other's task:\n%s",
				ws, after["billing"], err, out.String())
		}
		run := r.Start(ctx, "apply", "-input=false", "-no-color", "tfplan")
		t.Cleanup(func() { _ = run.KillGroup() })
		awaitHeld(t, mock, run, i+1)
		runs = append(runs, run)
	}
	expectSubmissions(t, mock, 2, "with both runners waiting")
	for _, task := range mock.Ledger().Tasks {
		mock.FinishTask(task.TaskID)
	}
	for i, run := range runs {
		if out, err := run.Wait(); err != nil {
			t.Fatalf("runner %d: %v\n%s", i, err, out)
		}
	}
	expectSubmissions(t, mock, 2, "after both runners")
}

func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv("VIDEOGEN_E2E") == "" {
		t.Skip("end-to-end test: set VIDEOGEN_E2E=1 (make e2e does)")
	}
}

// awaitHeld is Run.AwaitHeld for a test.
func awaitHeld(t *testing.T, mock *acctest.Mock, run *acctest.Run, held int) (int, string) {
	t.Helper()
	n, id, err := run.AwaitHeld(t.Context(), mock, held)
	must(t, err)
	return n, id
}

// awaitNoAdvisoryLocks polls the server until no session holds an advisory
// lock: the server ends a killed client's session once it reads the closed
// socket, and only then releases its locks.
func awaitNoAdvisoryLocks(t *testing.T, pgConn string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), pgConn)
	must(t, err)
	defer conn.Close(context.WithoutCancel(t.Context()))
	for {
		var n int
		must(t, conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'`).Scan(&n))
		if n == 0 {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("%d advisory locks are still held", n)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestJournalURL_passwordNeverShown runs a runner with TF_LOG=TRACE whose
// journal_url holds a distinctive password (a role of its own, apart from the
// state's), through an apply and a plan whose password the server refuses, and
// searches everything Terraform wrote for either password.
func TestJournalURL_passwordNeverShown(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	mock := acctest.NewMock(t)
	pgConn := startPostgres(t)
	const password, wrong = "jrnl-TRACE-canary-8c41e2", "jrnl-TRACE-wrong-07d3aa"
	admin, err := pgx.Connect(ctx, pgConn)
	must(t, err)
	defer admin.Close(context.WithoutCancel(ctx))
	for _, q := range []string{
		`CREATE ROLE journal LOGIN PASSWORD '` + password + `'`,
		`GRANT CREATE ON DATABASE postgres TO journal`,
	} {
		_, err := admin.Exec(ctx, q)
		must(t, err)
	}
	u, err := url.Parse(pgConn)
	must(t, err)
	u.User = url.UserPassword("journal", password)
	journalURL := u.String()

	wd := newRunner(t, mock, pgConn, "")
	must(t, wd.Setenv("VIDEOGEN_JOURNAL_URL", journalURL))
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	must(t, wd.TF.SetLog("TRACE"))
	must(t, wd.TF.SetLogPath(logPath))
	var transcript strings.Builder
	wd.TF.SetStdout(&transcript)
	wd.TF.SetStderr(&transcript)
	must(t, wd.TF.Apply(ctx))
	_, err = wd.State(ctx)
	must(t, err)
	var count int
	must(t, admin.QueryRow(ctx, `SELECT count(*) FROM videogen_journal.records`).Scan(&count))
	if count == 0 {
		t.Fatal("the journal in the database is empty: the journal_url was not used, and the test would prove nothing")
	}

	submitted := mock.Submissions()
	// A clip to create, and a password the server refuses: the plan fails naming journal_url.
	must(t, wd.WriteFile("extra.tf", `
resource "videogen_video" "more" {
  model  = "videogen-1-fast"
  prompt = "one more clip"
}
`))
	u.User = url.UserPassword("journal", wrong)
	must(t, wd.Setenv("VIDEOGEN_JOURNAL_URL", u.String()))
	_, err = wd.Plan(ctx, tfexec.Out("tfplan"))
	if err == nil || !strings.Contains(transcript.String(), "journal_url") {
		t.Fatalf("the plan with a refused journal_url: %v; want it to fail naming journal_url\n%s", err, transcript.String())
	}
	logs, err := os.ReadFile(logPath)
	must(t, err)
	all := transcript.String() + string(logs)
	if !strings.Contains(all, "videogen API request") {
		t.Fatal("the TRACE log has no provider request logs; the test would prove nothing")
	}
	for _, secret := range []string{password, wrong} {
		if i := strings.Index(all, secret); i >= 0 {
			t.Errorf("a journal_url password appears in Terraform's output or logs: ...%s...", all[max(0, i-200):min(len(all), i+60)])
		}
	}
	expectSubmissions(t, mock, submitted, "after the refused plan")
}
