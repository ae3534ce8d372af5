//go:build linux

package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// TestJournalPostgres_concurrentRunsLoseNothing: runs on one journal_url
// database, each with its own session as each runner's provider has, write at
// once; every change locks the table against the other writers and writes only
// the rows it changed, so no record is lost. A live run's task is its own; a
// state seen holding a task removes it, whichever state it was written for.
func TestJournalPostgres_concurrentRunsLoseNothing(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	url := startPostgres(t)
	const runs, tasks = 6, 25
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	journals := make([]*journal.Journal, runs)
	for i := range journals {
		journals[i] = journal.NewPostgres(url, fmt.Sprintf("state-%d", i%2), time.Hour)
		wg.Add(1)
		go func(j *journal.Journal, i int) {
			defer wg.Done()
			for k := range tasks {
				ticket, err := j.Sending(ctx, "fp", time.Now())
				if err == nil {
					err = j.Sent(ctx, ticket, journal.Entry{TaskID: fmt.Sprintf("r%d-t%d", i, k), Fingerprint: "fp", SubmittedAt: time.Now()})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(journals[i], i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	reader := journal.NewPostgres(url, "state-0", time.Hour)
	matches, err := reader.Matching(ctx, "fp")
	must(t, err)
	live := 0
	for _, m := range matches {
		if m.Standing == journal.RunAlive {
			live++
		}
	}
	// Three runs wrote for state-0, each task held by its live run.
	if len(matches) != runs/2*tasks || live != len(matches) {
		t.Fatalf("state-0 has %d tasks (%d of live runs), want %d, all of live runs", len(matches), live, runs/2*tasks)
	}
	for _, j := range journals {
		must(t, j.End(ctx))
	}
	// Ended normally, a run has answered its tasks to Terraform, which may not
	// have saved them: they stay until a state is seen holding them.
	matches, err = reader.Matching(ctx, "fp")
	must(t, err)
	for _, m := range matches {
		if m.Standing != journal.AdoptableEnded {
			t.Fatalf("after the runs ended normally, task %s has standing %v, want AdoptableEnded", m.TaskID, m.Standing)
		}
	}
	other := journal.NewPostgres(url, "state-1", time.Hour)
	for i := range runs {
		for k := range tasks {
			must(t, other.Remove(ctx, fmt.Sprintf("r%d-t%d", i, k)))
		}
	}
	conn, err := pgx.Connect(ctx, url)
	must(t, err)
	defer conn.Close(context.WithoutCancel(ctx))
	var left int
	must(t, conn.QueryRow(ctx, `SELECT count(*) FROM videogen_journal.records`).Scan(&left))
	if left != 0 {
		t.Fatalf("%d records are left after every task was removed", left)
	}
}
