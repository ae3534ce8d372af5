package bench

import (
	"strings"
	"testing"
	"time"
)

// The journal case's rows put the journal_url apply beside the journal_path
// one, against 1.2 ×, and give the database's figures per clip.
func TestJournalRows(t *testing.T) {
	t.Parallel()
	j := &JournalResult{Clips: 2000, Parallelism: 200, Generation: Duration(2 * time.Second),
		File: &TaskStats{Wall: Duration(100 * time.Second)}, Postgres: &TaskStats{Wall: Duration(125 * time.Second)},
		Database: JournalDatabase{Statements: 20000, RoundTrips: 12000, Transactions: 8000, LockWaits: 3,
			LockWait: Duration(30 * time.Millisecond)}}
	rows := journalRows(j)
	wall := rows[0]
	if wall.Provider != 125 || wall.Peer == nil || *wall.Peer != 100 || wall.Met == nil || *wall.Met {
		t.Errorf("wall row %+v: want 125 s beside 100 s, missing 1.2 ×", wall)
	}
	trips := rows[1]
	if trips.Provider != 6 || !strings.Contains(trips.Note, "10.0 statements per clip") {
		t.Errorf("round-trip row %+v: want 6 per clip, of 10 statements", trips)
	}
	j.Postgres.Wall = Duration(110 * time.Second)
	if met := journalRows(j)[0].Met; met == nil || !*met {
		t.Errorf("110 s beside 100 s is within 1.2 ×, the row says %v", met)
	}
}
