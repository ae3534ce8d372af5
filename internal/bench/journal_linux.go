//go:build linux

package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/videogen/terraform-provider-videogen/internal/pgtest"
	"github.com/videogen/terraform-provider-videogen/internal/poll"
)

// journalServerSettings make the bench's PostgreSQL count the journal's
// statements and log every wait for a lock longer than lockWaitLogged.
var journalServerSettings = []string{
	"shared_preload_libraries=pg_stat_statements",
	"log_lock_waits=on", fmt.Sprintf("deadlock_timeout=%dms", lockWaitLogged.Milliseconds()),
}

// Journal applies the clips with journal_path, then with journal_url on a
// PostgreSQL server it starts, each on a fresh mock, and reads what the
// server counted during the second apply.
func (r *Runner) Journal(ctx context.Context) (*JournalResult, error) {
	s := r.Settings
	res := &JournalResult{Clips: s.BigApplyClips, Parallelism: s.BigApplyParallelism, Generation: s.BigApplyGeneration}
	gens := poll.Spread(time.Duration(s.BigApplyGeneration), 0, s.BigApplyClips)

	srv, err := pgtest.Start(ctx, pgtest.Options{Settings: journalServerSettings, Logf: r.logf})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	admin, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		return nil, err
	}
	defer admin.Close(context.WithoutCancel(ctx))
	if _, err := admin.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		return nil, err
	}

	apply := func(tag string, o ApplyOptions, settings ...string) (*TaskStats, error) {
		m, err := StartMock(0, 0)
		if err != nil {
			return nil, err
		}
		defer m.Close()
		run, _, err := r.applyClips(ctx, m, toolProvider, tag, gens, o, settings...)
		if err != nil {
			return nil, err
		}
		// One task per clip, or the figures are not worth reading.
		st, err := taskStats(m.Ledger(), run, tag, len(gens))
		if err != nil {
			return nil, err
		}
		st.Tasks = nil
		return st, nil
	}
	o := ApplyOptions{Parallelism: s.BigApplyParallelism}
	file := filepath.Join(r.Env.Work, "journal-bench.json")
	if res.File, err = apply("journal-path", o, fmt.Sprintf("journal_path = %q", file)); err != nil {
		return nil, err
	}
	r.logf("journal: %d clips with journal_path %.1fs (load %.2f)", s.BigApplyClips, res.File.Wall.Seconds(), LoadAvg())

	if _, err := admin.Exec(ctx, `SELECT pg_stat_statements_reset(), pg_stat_reset()`); err != nil {
		return nil, err
	}
	logFrom := len(srv.Log())
	// The URL holds the database's password: the environment, not the configuration.
	o.Env = map[string]string{"VIDEOGEN_JOURNAL_URL": srv.URL}
	if res.Postgres, err = apply("journal-url", o); err != nil {
		return nil, err
	}
	if res.Database, err = journalCounts(ctx, admin, srv.Log()[logFrom:]); err != nil {
		return nil, err
	}
	d := res.Database
	r.logf("journal: %d clips with journal_url %.1fs (journal_path %.1fs, ratio %.2f); %.1f round trips and %.1f "+
		"transactions per clip, server time %.2fs (LOCK TABLE %.2fs), %d lock waits over %s, %.2fs (load %.2f)\n  %s",
		s.BigApplyClips, res.Postgres.Wall.Seconds(), res.File.Wall.Seconds(), Ratio(res.Postgres.Wall.Seconds(),
			res.File.Wall.Seconds()), float64(d.RoundTrips)/float64(s.BigApplyClips),
		float64(d.Transactions)/float64(s.BigApplyClips), d.ServerTime.Seconds(), d.TableLock.Seconds(), d.LockWaits,
		lockWaitLogged, d.LockWait.Seconds(), LoadAvg(), strings.Join(d.Top, "\n  "))
	return res, nil
}

// lockAcquired is the line log_lock_waits writes when a logged wait ends.
var lockAcquired = regexp.MustCompile(`acquired \S+ on .* after ([0-9.]+) ms`)

// journalCounts reads the server's statistics since their reset, less the
// bench's own statements, and the lock waits in its log.
func journalCounts(ctx context.Context, admin *pgx.Conn, log string) (JournalDatabase, error) {
	var d JournalDatabase
	rows, err := admin.Query(ctx, `SELECT query, calls, total_exec_time FROM pg_stat_statements
		WHERE query NOT LIKE '%pg_stat%' ORDER BY total_exec_time DESC`)
	if err != nil {
		return d, err
	}
	var server float64
	for rows.Next() {
		var query string
		var calls int64
		var ms float64
		if err := rows.Scan(&query, &calls, &ms); err != nil {
			rows.Close()
			return d, err
		}
		d.Statements += calls
		if !strings.HasPrefix(strings.TrimSpace(query), batchedMarker) {
			d.RoundTrips += calls
		}
		server += ms
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(query)), "LOCK TABLE") {
			d.TableLock += Duration(time.Duration(ms * float64(time.Millisecond)))
		}
		if len(d.Top) < 6 {
			q := strings.Join(strings.Fields(query), " ")
			if len(q) > 90 {
				q = q[:90] + "..."
			}
			d.Top = append(d.Top, fmt.Sprintf("%.2fs in %d × %s", ms/1000, calls, q))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return d, err
	}
	d.ServerTime = Duration(time.Duration(server * float64(time.Millisecond)))
	if err := admin.QueryRow(ctx, `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()`).
		Scan(&d.Transactions); err != nil {
		return d, err
	}
	for _, m := range lockAcquired.FindAllStringSubmatch(log, -1) {
		ms, _ := strconv.ParseFloat(m[1], 64)
		d.LockWaits++
		d.LockWait += Duration(time.Duration(ms * float64(time.Millisecond)))
	}
	return d, nil
}
