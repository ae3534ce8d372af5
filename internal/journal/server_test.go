package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A server that proved it deduplicates is remembered, per service, for
// maxAge, by every process that reads the journal. Its record moves a
// version 3 journal to version 4 (the file and the log's header), so that a
// provider before it refuses the journal ("upgrade") rather than take the
// record for damage; a journal without one stays version 3, and the tasks it
// held are still there.
func TestJournalRemembersAServerThatDeduplicates(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "j.json")
	j := New(path, "s", time.Hour)
	addTask(t, j, "t")
	const service, other = "http://127.0.0.1:1 api=video-generations", "http://127.0.0.1:2 api=video-generations"
	if at, err := j.KnownToDeduplicate(ctx, service); err != nil || !at.IsZero() {
		t.Fatalf("before any proof: %v, %v; want not known", at, err)
	}
	if f := readFile(t, path); f.Version != plainVersion {
		t.Fatalf("a journal without a server is version %d, want %d", f.Version, plainVersion)
	}
	if err := j.Deduplicating(ctx, service); err != nil {
		t.Fatal(err)
	}
	if f := readFile(t, path); f.Version != fileVersion || len(f.Entries) != 1 {
		t.Fatalf("after a server's record the journal is %+v, want version %d with the task", f, fileVersion)
	}
	log, err := os.ReadFile(path + ".log")
	if err != nil || !strings.HasPrefix(string(log), `{"version":4,`) || strings.Contains(string(log), "127.0.0.1") {
		t.Fatalf("the log (%v):\n%s\nwant a version 4 header, and the server only by its ID", err, log)
	}
	// Another process, as the next plan is.
	next := New(path, "s", time.Hour)
	if at, err := next.KnownToDeduplicate(ctx, service); err != nil || at.IsZero() {
		t.Errorf("the next run: %v, %v; want the server known", at, err)
	}
	if at, err := next.KnownToDeduplicate(ctx, other); err != nil || !at.IsZero() {
		t.Errorf("another service: %v, %v; want not known", at, err)
	}
	if m, err := next.Matching(ctx, "fp"); err != nil || len(m) != 1 || m[0].TaskID != "t" {
		t.Errorf("the task after the migration: %+v, %v; want t", m, err)
	}
	later := New(path, "s", time.Hour)
	later.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if at, err := later.KnownToDeduplicate(ctx, service); err != nil || !at.IsZero() {
		t.Errorf("past maxAge: %v, %v; want not known", at, err)
	}
}
