//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// heldClips is a working directory with local state and a journal_url
// journal, whose count held clips Terraform creates parallelism at a time.
func heldClips(t *testing.T, mock *acctest.Mock, pgConn string, count int) *acctest.Workdir {
	t.Helper()
	wd := acctest.NewWorkdir(t)
	must(t, wd.Write(`terraform {
  required_providers {
    videogen = {
      source = "videogen/videogen"
    }
  }
}
`+mock.ProviderBlock("journal_path = null", "journal_url = "+strconv.Quote(pgConn))+fmt.Sprintf(`
resource "videogen_video" "clip" {
  count  = %d
  model  = "videogen-1"
  prompt = "clip ${count.index} of a batch whose journal session ends [mock:hold]"
}
`, count)))
	must(t, wd.Init(t.Context()))
	return wd
}

// finishHeld finishes every task the mock holds.
func finishHeld(mock *acctest.Mock) {
	for _, task := range mock.Ledger().Tasks {
		mock.FinishTask(task.TaskID)
	}
}

// distinctTasks checks that the state holds want clips with a task each, no
// task twice, and that the ledger billed exactly those.
func distinctTasks(t *testing.T, wd *acctest.Workdir, mock *acctest.Mock, want int) {
	t.Helper()
	st, err := wd.State(t.Context())
	must(t, err)
	seen := map[string]bool{}
	for _, r := range st.Values.RootModule.Resources {
		if r.Type == "videogen_video" {
			seen[fmt.Sprint(r.AttributeValues["task_id"])] = true
		}
	}
	expectSubmissions(t, mock, want, "after the batch")
	for _, task := range mock.Ledger().Tasks {
		if !seen[task.TaskID] {
			t.Errorf("billed task %s is in no clip's state", task.TaskID)
		}
	}
	if len(seen) != want {
		t.Fatalf("the state holds %d distinct tasks, want %d", len(seen), want)
	}
}

// TestJournalURL_batchOutlivesAServerRestart: the database of journal_url
// restarts (a fast shutdown, which ends every session) while the first clips
// of a batch wait; the clips Terraform creates after them are noted on a new
// session, under the run's lock taken back, and the batch finishes in one
// apply: 4 billed for 4 clips. Before, every clip after the restart failed
// with "the connection that held this run's lock was lost".
func TestJournalURL_batchOutlivesAServerRestart(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	mock := acctest.NewMock(t)
	srv := startPostgresServer(t)
	wd := heldClips(t, mock, srv.URL, 4)
	run := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=2")
	t.Cleanup(func() { _ = run.KillGroup() })
	awaitHeld(t, mock, run, 2)
	srv.Restart()
	finishHeld(mock)
	awaitHeld(t, mock, run, 4)
	finishHeld(mock)
	if out, err := run.Wait(); err != nil {
		t.Fatalf("the apply across a restart of the journal's database: %v\n%s", err, out)
	}
	distinctTasks(t, wd, mock, 4)
}

// TestJournalURL_batchOutlivesIdleSessionTimeout: the server ends sessions
// idle for longer than idle_session_timeout (1 s here), shorter than each
// clip's wait. Clip after clip (-parallelism=1) the test waits until the
// server has ended a session that went idle after the journal's last change,
// then finishes the clip: the next clip is noted all the same, and the batch
// finishes in one apply, 3 billed for 3 clips. Before, the journal's session
// ended during the first wait, and every later clip failed.
func TestJournalURL_batchOutlivesIdleSessionTimeout(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	mock := acctest.NewMock(t)
	srv := startPostgresServer(t)
	admin, err := pgx.Connect(ctx, srv.URL)
	must(t, err)
	defer admin.Close(context.WithoutCancel(ctx))
	_, err = admin.Exec(ctx, `ALTER ROLE CURRENT_USER SET idle_session_timeout = '1s'`)
	must(t, err)
	const clips = 3
	wd := heldClips(t, mock, srv.URL, clips)
	run := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=1")
	t.Cleanup(func() { _ = run.KillGroup() })
	for i := 1; i <= clips; i++ {
		_, held := awaitHeld(t, mock, run, i)
		awaitIdleSessionEnded(t, srv.URL)
		if !mock.FinishTask(held) {
			t.Fatalf("task %s was not pending", held)
		}
	}
	if out, err := run.Wait(); err != nil {
		t.Fatalf("the apply with an idle_session_timeout shorter than a clip's wait: %v\n%s", err, out)
	}
	distinctTasks(t, wd, mock, clips)
}

// awaitIdleSessionEnded opens a session and waits until the server ends it
// for its idle_session_timeout: every session idle since before has reached
// the timeout too.
func awaitIdleSessionEnded(t *testing.T, pgConn string) {
	t.Helper()
	probe, err := pgx.Connect(t.Context(), pgConn)
	must(t, err)
	defer probe.Close(context.WithoutCancel(t.Context()))
	// Returns once the server's message that it ends the session arrives.
	err = probe.PgConn().WaitForNotification(t.Context())
	if err == nil || !strings.Contains(err.Error(), "idle-session timeout") {
		t.Fatalf("the probe session: %v; want the server to end it for its idle-session timeout", err)
	}
}

// runnerRole creates a role that may use the journal, for a run whose
// sessions a test ends and whose reconnects it refuses: NOLOGIN until
// allowed. It returns the role's URL and a function that sets whether it may
// log in.
func runnerRole(t *testing.T, admin *pgx.Conn, pgConn, name string) (string, func(bool)) {
	t.Helper()
	ctx := t.Context()
	// The schema and table, created by the server's own role.
	_, err := journal.NewPostgres(pgConn, "setup", time.Hour).Matching(ctx, "none")
	must(t, err)
	for _, q := range []string{
		`CREATE ROLE ` + name + ` LOGIN PASSWORD 'runner-secret'`,
		`GRANT USAGE ON SCHEMA videogen_journal TO ` + name,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON videogen_journal.records TO ` + name,
	} {
		_, err := admin.Exec(ctx, q)
		must(t, err)
	}
	u, err := url.Parse(pgConn)
	must(t, err)
	u.User = url.UserPassword(name, "runner-secret")
	login := func(may bool) {
		t.Helper()
		q := `ALTER ROLE ` + name + ` NOLOGIN`
		if may {
			q = `ALTER ROLE ` + name + ` LOGIN`
		}
		_, err := admin.Exec(ctx, q)
		must(t, err)
	}
	return u.String(), login
}

// endSessions ends every session of the role, as a restart or failover does,
// and waits until the server has released their locks.
func endSessions(t *testing.T, admin *pgx.Conn, role string) {
	t.Helper()
	ctx := t.Context()
	_, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1`, role)
	must(t, err)
	for {
		var n int
		must(t, admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1`, role).Scan(&n))
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d sessions of %s are still there", n, role)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// sessionLost is the start of both lock orders: on a PostgreSQL server of
// its own, run A (the role runner_a) notes task_a for the request fp, then
// its session ends, as a restart or failover ends it; when mayLogIn is
// false, A may not log in again until the test calls login(true). It
// returns the server's URL (its own role's, for run B), A and login.
func sessionLost(t *testing.T, mayLogIn bool) (string, *journal.Journal, func(bool)) {
	t.Helper()
	ctx := t.Context()
	srv := startPostgresServer(t)
	admin, err := pgx.Connect(ctx, srv.URL)
	must(t, err)
	t.Cleanup(func() { _ = admin.Close(context.WithoutCancel(ctx)) })
	aURL, login := runnerRole(t, admin, srv.URL, "runner_a")
	a := journal.NewPostgres(aURL, "s", time.Hour)
	ticket, err := a.Sending(ctx, "fp", time.Now())
	must(t, err)
	must(t, a.Sent(ctx, ticket, journal.Entry{TaskID: "task_a", Fingerprint: "fp", SubmittedAt: time.Now()}))
	if !mayLogIn {
		login(false)
	}
	endSessions(t, admin, "runner_a")
	return srv.URL, a, login
}

// TestJournalPostgres_lockLostThenTakenOver: run A's session ends and, before
// A connects again (its role may not log in meanwhile), run B finds A's lock
// free, takes A for a killed run and adopts its task. A takes its lock back on
// a new session and finds out before it submits again: its next note fails
// naming the task B took. Before, A's every change failed with "the
// connection that held this run's lock was lost", saying nothing of B.
func TestJournalPostgres_lockLostThenTakenOver(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	srvURL, a, aLogin := sessionLost(t, false)
	b := journal.NewPostgres(srvURL, "s", time.Hour)
	matches, err := b.Matching(ctx, "fp")
	must(t, err)
	if len(matches) != 1 || matches[0].Standing == journal.RunAlive {
		t.Fatalf("B finds %+v, want task_a of a run whose lock is free", matches)
	}
	must(t, b.Claim(ctx, matches[0].Entry))

	aLogin(true)
	_, err = a.Sending(ctx, "fp-next", time.Now())
	if err == nil || !acctest.Wrapped("journal's session", "task_a", "taken over", "submits nothing more").MatchString(err.Error()) {
		t.Fatalf("A's next note after B took its task: %v; want an error that says the session ended and B took task_a", err)
	}
	if _, err := a.Doubts(ctx, "fp-next"); err == nil {
		t.Fatal("A's journal works again after it found its task taken over")
	}
	must(t, b.End(ctx))
}

// TestJournalPostgres_lockTakenBackFirst: run A's session ends, A connects
// again and takes its lock back before run B looks: B finds A alive and
// leaves its task alone, and A goes on noting. Before, A's changes failed.
func TestJournalPostgres_lockTakenBackFirst(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	srvURL, a, _ := sessionLost(t, true)
	// A's next change (or its watcher, whichever comes first) connects again.
	_, err := a.Doubts(ctx, "fp")
	must(t, err)
	b := journal.NewPostgres(srvURL, "s", time.Hour)
	matches, err := b.Matching(ctx, "fp")
	must(t, err)
	if len(matches) != 1 || matches[0].Standing != journal.RunAlive {
		t.Fatalf("B finds %+v, want task_a of a live run", matches)
	}
	ticket, err := a.Sending(ctx, "fp-next", time.Now())
	must(t, err)
	must(t, a.Sent(ctx, ticket, journal.Entry{TaskID: "task_next", Fingerprint: "fp-next", SubmittedAt: time.Now()}))
	must(t, a.End(ctx))
}
