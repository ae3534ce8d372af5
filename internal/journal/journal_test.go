package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestJournalSurvivesANewProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ".terraform", "videogen", "pending-tasks.json")
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	j := New(path, time.Hour)
	j.now = func() time.Time { return now }
	for _, e := range []Entry{
		{TaskID: "t2", Fingerprint: "fp", SubmittedAt: now.Add(-time.Minute)},
		{TaskID: "t1", Fingerprint: "fp", SubmittedAt: now.Add(-2 * time.Minute)},
		{TaskID: "other", Fingerprint: "fp2", SubmittedAt: now},
	} {
		if err := j.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("journal mode = %v, want 0600", info.Mode().Perm())
	}

	// A later process sees the same entries, oldest first.
	again := New(path, time.Hour)
	again.now = j.now
	got, err := again.Matching("fp")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].TaskID != "t1" || got[1].TaskID != "t2" {
		t.Fatalf("Matching = %+v, want t1 then t2", got)
	}
	if err := again.Remove("t1"); err != nil {
		t.Fatal(err)
	}
	third := New(path, time.Hour)
	third.now = j.now
	if got, _ := third.Matching("fp"); len(got) != 1 || got[0].TaskID != "t2" {
		t.Fatalf("after Remove, Matching = %+v, want only t2", got)
	}
}

func TestJournalExpiresOldEntries(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	j := New(path, time.Hour)
	j.now = func() time.Time { return now }
	if err := j.Add(Entry{TaskID: "old", Fingerprint: "fp", SubmittedAt: now.Add(-30 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	if got, _ := j.Matching("fp"); len(got) != 0 {
		t.Fatalf("an entry older than the maximum age is still offered: %+v", got)
	}
	if err := j.Add(Entry{TaskID: "new", Fingerprint: "fp", SubmittedAt: now}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"old"`) {
		t.Errorf("the expired entry was written back:\n%s", data)
	}
}

func TestJournalRemovingAnUnknownTaskWritesNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "absent", "j.json")
	if err := New(path, time.Hour).Remove("t"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("Remove of an unknown task created %s", filepath.Dir(path))
	}
}

func TestJournalCorruptFileIsAnError(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(path, time.Hour).Matching("fp")
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error = %v, want one that names the file", err)
	}
}

func TestDefaultPathFollowsTFDataDir(t *testing.T) {
	t.Setenv("TF_DATA_DIR", "/tmp/tfdata")
	if got := DefaultPath(); got != filepath.Join("/tmp/tfdata", "videogen", "pending-tasks.json") {
		t.Errorf("DefaultPath() = %q", got)
	}
	t.Setenv("TF_DATA_DIR", "")
	if got := DefaultPath(); got != filepath.Join(".terraform", "videogen", "pending-tasks.json") {
		t.Errorf("DefaultPath() = %q", got)
	}
}

func TestJournalUnsettledSubmissionsAreTakenOnceByALaterProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	j := New(path, time.Hour)
	j.now = clock
	for _, u := range []Unconfirmed{
		{Fingerprint: "fp", SubmittedAt: now.Add(-time.Minute)},
		{Fingerprint: "fp", SubmittedAt: now.Add(-2 * time.Minute)},
		{Fingerprint: "fp", SubmittedAt: now.Add(-2 * time.Hour)},
		{Fingerprint: "fp2", SubmittedAt: now},
	} {
		if _, err := j.Sending(u.Fingerprint, u.SubmittedAt); err != nil {
			t.Fatal(err)
		}
	}
	// Settled notes leave nothing to say: one answered with its task, one that provably created nothing.
	sent, err := j.Sending("fp", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Sent(sent, Entry{TaskID: "t", Fingerprint: "fp", SubmittedAt: now}); err != nil {
		t.Fatal(err)
	}
	refused, err := j.Sending("fp", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.NotSent(refused); err != nil {
		t.Fatal(err)
	}
	// The process that noted them does not take them: an identical clip of the
	// same run asks for its own clip.
	if got, err := j.TakeUnconfirmed("fp"); err != nil || len(got) != 0 {
		t.Fatalf("the noting process took %+v (error %v), want nothing", got, err)
	}

	later := New(path, time.Hour)
	later.now = clock
	got, err := later.TakeUnconfirmed("fp")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got[0].SubmittedAt.Equal(now.Add(-2*time.Minute)) || !got[1].SubmittedAt.Equal(now.Add(-time.Minute)) {
		t.Fatalf("TakeUnconfirmed = %+v, want the two unexpired notes, oldest first", got)
	}
	if again, _ := later.TakeUnconfirmed("fp"); len(again) != 0 {
		t.Fatalf("a second TakeUnconfirmed returned %+v, want nothing: each note is said once", again)
	}
	// Taking them leaves the other fingerprint's note and the task entries alone.
	third := New(path, time.Hour)
	third.now = clock
	if got, _ := third.TakeUnconfirmed("fp"); len(got) != 0 {
		t.Fatalf("the taken notes were written back: %+v", got)
	}
	if got, _ := third.TakeUnconfirmed("fp2"); len(got) != 1 {
		t.Fatalf("TakeUnconfirmed(fp2) = %+v, want its one note", got)
	}
	if got, _ := third.Matching("fp"); len(got) != 1 || got[0].TaskID != "t" {
		t.Fatalf("Matching = %+v, want the task entry", got)
	}
}

func TestJournalWithoutUnconfirmedMemberLoads(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	old := `{"version": 1, "entries": [{"task_id": "t", "fingerprint": "fp", "submitted_at": "2026-11-23T12:00:00Z"}]}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	j := New(path, DefaultMaxAge)
	j.now = func() time.Time { return time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC) }
	if got, err := j.TakeUnconfirmed("fp"); err != nil || len(got) != 0 {
		t.Fatalf("TakeUnconfirmed = %+v, %v", got, err)
	}
	if got, err := j.Matching("fp"); err != nil || len(got) != 1 {
		t.Fatalf("Matching = %+v, %v", got, err)
	}
}
