//go:build linux

package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// TestJournalPostgres_concurrentRunsLoseNothing: runs on one journal_url
// database, each with its own session as each runner's provider has, write at
// once; every change locks the rows it reads and writes only the rows it
// changed, so no record is lost. A live run's task is its own; a
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

// TestJournalPostgres_deadRunIsDeadToOverlappingTests: a runner that tests a
// dead run's lock while another runner tests it too (a plan beside an apply)
// still finds the run dead and offers its task, instead of taking the other
// test's lock for the run's and submitting the clip again.
func TestJournalPostgres_deadRunIsDeadToOverlappingTests(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	url := startPostgres(t)
	killed := journal.NewPostgres(url, "s", time.Hour)
	must(t, killed.Sent(ctx, "", journal.Entry{TaskID: "killed-0", Fingerprint: "fp", SubmittedAt: time.Now()}))
	conn, err := pgx.Connect(ctx, url)
	must(t, err)
	defer conn.Close(context.WithoutCancel(ctx))
	// The killed runner's session ends, as the server ends a killed process's.
	_, err = conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()`)
	must(t, err)
	awaitNoAdvisoryLocks(t, url)
	reader := journal.NewPostgres(url, "s", time.Hour)
	matches, err := reader.Matching(ctx, "fp")
	must(t, err)
	if len(matches) != 1 || matches[0].Standing != journal.Adoptable {
		t.Fatalf("Matching = %+v, want the killed run's task, adoptable", matches)
	}
	// Another runner, in the middle of its own test, holds the run's lock as
	// a test does (the key is the journal's runKey of the run).
	sum := sha256.Sum256([]byte("videogen-journal-run:" + matches[0].Run))
	key := int64(binary.BigEndian.Uint64(sum[:8])) //nolint:gosec // the journal's key, overflow intended
	var free bool
	must(t, conn.QueryRow(ctx, `SELECT pg_try_advisory_lock_shared($1)`, key).Scan(&free))
	if !free {
		t.Fatal("the dead run's lock is held")
	}
	matches, err = reader.Matching(ctx, "fp")
	must(t, err)
	if len(matches) != 1 || matches[0].Standing != journal.Adoptable {
		t.Fatalf("while another runner tests the dead run's lock, Matching = %+v, want its task adoptable", matches)
	}
}

// TestJournalPostgres_sessionOfAVanishedRunnerEndsSoon: a runner whose machine
// vanishes (a hosted runner reclaimed: no FIN reaches the server) leaves its
// session, and with it its run's lock, until the server's TCP keepalive gives
// up on it: two hours by the operating system's default, during which a fresh
// runner takes the dead run's tasks for a live run's and submits the clips
// again. The journal's session asks the server to probe it after 30 s idle;
// this reads the server's keepalive timer of the session from /proc/net/tcp
// (in clock ticks of 1/100 s).
func TestJournalPostgres_sessionOfAVanishedRunnerEndsSoon(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	pgURL := startPostgres(t)
	u, err := url.Parse(pgURL)
	must(t, err)
	j := journal.NewPostgres(pgURL, "s", time.Hour)
	must(t, j.Sent(ctx, "", journal.Entry{TaskID: "t", Fingerprint: "fp", SubmittedAt: time.Now()}))
	defer j.End(context.WithoutCancel(ctx)) //nolint:errcheck // the server goes with the test
	port, err := strconv.Atoi(u.Port())
	must(t, err)
	// The server's side of the session, established: its timer is the
	// retransmission's (01) until the journal's last answer is acknowledged
	// (a delayed ACK), then the keepalive's (02).
	local := fmt.Sprintf("0100007F:%04X", port)
	var timers []string
	for deadline := time.Now().Add(10 * time.Second); ; {
		data, err := os.ReadFile("/proc/net/tcp")
		must(t, err)
		timers = nil
		for _, line := range strings.Split(string(data), "\n")[1:] {
			if f := strings.Fields(line); len(f) > 5 && f[1] == local && f[3] == "01" {
				timers = append(timers, f[5])
			}
		}
		if len(timers) != 1 || strings.HasPrefix(timers[0], "02:") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(timers) != 1 {
		t.Fatalf("the server has %d sessions on port %d (%v), want the journal's one", len(timers), port, timers)
	}
	kind, when, _ := strings.Cut(timers[0], ":")
	ticks, err := strconv.ParseInt(when, 16, 64)
	if err != nil || kind != "02" || ticks > 60*100 {
		t.Fatalf("the server's timer of the journal's session is %s (kind 02 is keepalive, then clock ticks): "+
			"want a keepalive probe within 60 s", timers[0])
	}
}

// TestJournalPostgres_parallelClipsLoseNothing: two runs of one state note the
// submissions of 40 clips each on one database at once, every clip in a
// goroutine of its own, as the clips of two parallel applies do (each clip looks for doubts and tasks to adopt, notes
// its submission, then its task). Every task is then found once, by its
// request, as a task of a run that ended, and no note is left as a doubt;
// removing them all leaves the journal empty. Each clip's answer also proved
// the server deduplicates: the next run knows it, of that server only. The
// store reads and locks only
// each change's rows, and makes the changes of one run's clips that wait for
// its session in one transaction: no change may be lost or handed to the
// wrong clip.
func TestJournalPostgres_parallelClipsLoseNothing(t *testing.T) {
	const dedupingService = "http://127.0.0.1:1 api=video-generations"
	requireE2E(t)
	ctx := t.Context()
	url := startPostgres(t)
	const runs, clips = 2, 40
	fingerprint := func(run, clip int) string { return fmt.Sprintf("request-%d-%d", run, clip) }
	task := func(run, clip int) string { return fmt.Sprintf("task-%d-%d", run, clip) }

	var wg sync.WaitGroup
	errs := make(chan error, runs*clips)
	var ended []*journal.Journal
	for r := range runs {
		j := journal.NewPostgres(url, "state-1", journal.DefaultMaxAge)
		ended = append(ended, j)
		for c := range clips {
			wg.Go(func() {
				fp := fingerprint(r, c)
				d, err := j.TakeDoubts(ctx, fp)
				var m []journal.Match
				if err == nil && len(d) == 0 {
					m, err = j.Matching(ctx, fp)
				}
				if err != nil || len(d) > 0 || len(m) > 0 {
					errs <- fmt.Errorf("clip %d/%d: doubts %v, matches %v, error: %w", r, c, d, m, err)
					return
				}
				at := time.Now()
				ticket, err := j.Sending(ctx, fp, at)
				if err == nil {
					err = j.Sent(ctx, ticket, journal.Entry{TaskID: task(r, c), Fingerprint: fp, SubmittedAt: at})
				}
				if err == nil {
					// Every answer echoed its key, as the mock's do.
					err = j.Deduplicating(ctx, dedupingService)
				}
				if err != nil {
					errs <- fmt.Errorf("clip %d/%d: %w", r, c, err)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, j := range ended {
		must(t, j.End(context.WithoutCancel(ctx)))
	}
	if t.Failed() {
		return
	}

	later := journal.NewPostgres(url, "state-1", journal.DefaultMaxAge)
	defer func() { _ = later.End(context.WithoutCancel(ctx)) }()
	// The server's proof is a row of its own kind: the next runner knows it,
	// of that service only, and the tasks beside it are untouched.
	if at, err := later.KnownToDeduplicate(ctx, dedupingService); err != nil || at.IsZero() {
		t.Errorf("the server that echoed every key: %v, %v; want it known to deduplicate", at, err)
	}
	if at, err := later.KnownToDeduplicate(ctx, "http://127.0.0.1:2 api=video-generations"); err != nil || !at.IsZero() {
		t.Errorf("a server never heard from: %v, %v; want it not known", at, err)
	}
	for r := range runs {
		for c := range clips {
			fp := fingerprint(r, c)
			m, err := later.Matching(ctx, fp)
			must(t, err)
			if len(m) != 1 || m[0].TaskID != task(r, c) || m[0].Standing != journal.AdoptableEnded {
				t.Errorf("clip %d/%d: the journal offers %+v, want %s alone, of a run that ended", r, c, m, task(r, c))
			}
			if d, err := later.Doubts(ctx, fp); err != nil || len(d) > 0 {
				t.Errorf("clip %d/%d: doubts %+v, %v; want none: every submission was answered", r, c, d, err)
			}
		}
	}
	for r := range runs {
		for c := range clips {
			must(t, later.Remove(ctx, task(r, c)))
		}
	}
	for r := range runs {
		for c := range clips {
			if m, err := later.Matching(ctx, fingerprint(r, c)); err != nil || len(m) > 0 {
				t.Errorf("clip %d/%d: after every task was removed the journal offers %+v, %v", r, c, m, err)
			}
		}
	}
}
