//go:build linux

package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

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
	err := b.Apply(ctx)
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
		run := r.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
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
