package bench

import (
	"fmt"
	"time"
)

// JournalResult is the big apply's clips (BigApplyClips × BigApplyGeneration
// at BigApplyParallelism) applied twice in one run, side by side: the task
// journal in a file (journal_path), then in a PostgreSQL database the bench
// starts (journal_url), each from empty state on a fresh mock.
type JournalResult struct {
	Clips       int        `json:"clips"`
	Parallelism int        `json:"parallelism"`
	Generation  Duration   `json:"generation"`
	File        *TaskStats `json:"journal_path"` // without per-task samples
	Postgres    *TaskStats `json:"journal_url"`
	// Database is what the PostgreSQL server counted during the journal_url
	// apply (its plan and apply processes together).
	Database JournalDatabase `json:"database"`
}

// JournalDatabase is the server's own count of the journal's work in one apply.
type JournalDatabase struct {
	// Statements is every statement the server executed
	// (pg_stat_statements, utility statements such as BEGIN included).
	Statements int64 `json:"statements"`
	// RoundTrips is Statements less those the journal marks as sent in one
	// round trip with another (their text starts with batchedMarker): the
	// client waits for the answer of each of the others.
	RoundTrips int64 `json:"round_trips"`
	// Transactions committed and rolled back (pg_stat_database).
	Transactions int64 `json:"transactions"`
	// ServerTime is the server's execution time of those statements.
	ServerTime Duration `json:"server_time"`
	// LockWaits and LockWait are the waits for a lock longer than
	// lockWaitLogged that the server logged (log_lock_waits), and their sum.
	LockWaits int      `json:"lock_waits"`
	LockWait  Duration `json:"lock_wait"`
	// TableLock is the server time of LOCK TABLE statements, which do nothing
	// but wait for the table's lock.
	TableLock Duration `json:"table_lock"`
	// Top is the statements the server spent most time on, with their counts.
	Top []string `json:"top"`
}

// batchedMarker starts the text of a statement that the PostgreSQL journal
// sends in the round trip of another (internal/journal's pgBatched).
const batchedMarker = "/* batched */"

// journalFactor bounds the journal_url apply as a multiple of the journal_path one.
const journalFactor = 1.2

// lockWaitLogged is the server's deadlock_timeout in the bench: a wait for a
// lock longer than that is logged with its length.
const lockWaitLogged = time.Millisecond

func journalRows(j *JournalResult) []Row {
	if j.File == nil || j.Postgres == nil {
		return nil
	}
	c := fmt.Sprintf("Apply %d clips × %s in one apply, -parallelism=%d, task journal in PostgreSQL (journal_url) "+
		"beside a file (journal_path)", j.Clips, secondsLabel(time.Duration(j.Generation)), j.Parallelism)
	p, f := j.Postgres.Wall.Seconds(), j.File.Wall.Seconds()
	d := j.Database
	perClip := func(n float64) float64 { return n / float64(j.Clips) }
	return []Row{
		sideBySide(c, "Wall time (peer: the same apply with journal_path)", "s", p, f).
			withTarget(fmt.Sprintf("≤ %g × journal_path", journalFactor), Ratio(p, f) <= journalFactor),
		Row{Case: c, Figure: "Round trips to the database per clip (plan and apply)", Unit: "round trips", Target: "—",
			Provider: perClip(float64(d.RoundTrips))}.withNote("%.1f statements per clip", perClip(float64(d.Statements))),
		{Case: c, Figure: "Transactions per clip", Unit: "transactions", Target: "—", Provider: perClip(float64(d.Transactions))},
		Row{Case: c, Figure: "Server time of the journal's statements", Unit: "s", Target: "—", Provider: d.ServerTime.Seconds()}.
			withNote("of which LOCK TABLE %.2f s", d.TableLock.Seconds()),
		Row{Case: c, Figure: fmt.Sprintf("Lock waits longer than %s (log_lock_waits)", lockWaitLogged), Unit: "s", Target: "—",
			Provider: d.LockWait.Seconds()}.withNote("%d waits", d.LockWaits),
	}
}
