package journal

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// addTask records a task as a provider's Create does: noted, then answered.
func addTask(t *testing.T, j *Journal, id string) {
	t.Helper()
	tk, err := j.Sending(t.Context(), "fp", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Sent(t.Context(), tk, Entry{TaskID: id, Fingerprint: "fp", SubmittedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

func taskIDs(f file) []string {
	var ids []string
	for _, e := range f.Entries {
		ids = append(ids, e.TaskID)
	}
	slices.Sort(ids)
	return ids
}

// A change appends to the log: it neither rewrites nor replaces what is there.
func TestJournalChangeAppendsOnly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	j := New(path, "s", time.Hour)
	addTask(t, j, "a")
	before, err := os.ReadFile(path + ".log")
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path + ".log")
	if err != nil {
		t.Fatal(err)
	}
	addTask(t, j, "b")
	after, err := os.ReadFile(path + ".log")
	if err != nil {
		t.Fatal(err)
	}
	if now, err := os.Stat(path + ".log"); err != nil || !os.SameFile(info, now) {
		t.Errorf("the change replaced the log (%v)", err)
	}
	if !bytes.HasPrefix(after, before) || bytes.Count(after[len(before):], []byte("\n")) != 3 {
		t.Errorf("the change did not append its three records (note, note settled, entry):\nbefore %s\nafter %s", before, after)
	}
	if got := taskIDs(readFile(t, path)); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("tasks %v, want a and b", got)
	}
}

// A process that compacts the log replaces it; another process that read the
// old one notices, reads the new one, and appends to it, not to the old file.
func TestJournalCompactedByAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.json")
	one, other := New(path, "s", time.Hour), New(path, "s", time.Hour)
	addTask(t, one, "first")
	if _, err := other.Matching(t.Context(), "fp"); err != nil {
		t.Fatal(err)
	}
	old := logGeneration(t, path)
	defer func(n int) { compactAfter = n }(compactAfter)
	compactAfter = 2
	for _, id := range []string{"c1", "c2", "c3"} {
		addTask(t, one, id)
	}
	if err := one.Remove(t.Context(), "c1"); err != nil {
		t.Fatal(err)
	}
	compactAfter = 1 << 30
	if logGeneration(t, path) == old {
		t.Fatal("the log was not compacted")
	}
	got, err := other.Matching(t.Context(), "fp")
	if err != nil || len(got) != 3 {
		t.Fatalf("the other process sees %+v, %v; want first, c2 and c3", got, err)
	}
	addTask(t, other, "after")
	if got := taskIDs(readFile(t, path)); !slices.Equal(got, []string{"after", "c2", "c3", "first"}) {
		t.Errorf("tasks %v, want after, c2, c3 and first", got)
	}
}

// logGeneration reads the generation in the log's header.
func logGeneration(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path + ".log")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	var h logHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Generation == "" {
		t.Fatalf("header %s: %v", line, err)
	}
	return h.Generation
}

// A process killed while it appended leaves a record without its line end,
// which may even be whole JSON: it is not read, the records before it are,
// and the next change cuts it off before it appends.
func TestJournalTornLastRecord(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	addTask(t, New(path, "s", time.Hour), "whole")
	log, err := os.OpenFile(path+".log", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	torn := `{"entry":{"task_id":"torn","fingerprint":"fp","submitted_at":"` + time.Now().Format(time.RFC3339) + `"}}`
	if _, err := log.WriteString(torn); err != nil {
		t.Fatal(err)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if got := taskIDs(readFile(t, path)); !slices.Equal(got, []string{"whole"}) {
		t.Fatalf("tasks %v with a torn record, want only whole", got)
	}
	addTask(t, New(path, "s", time.Hour), "next")
	if got := taskIDs(readFile(t, path)); !slices.Equal(got, []string{"next", "whole"}) {
		t.Fatalf("tasks %v after the next change, want next and whole", got)
	}
	data, err := os.ReadFile(path + ".log")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(`"torn"`)) {
		t.Errorf("the torn record is still in the log:\n%s", data)
	}
}

// A version 2 file loads; reading it writes nothing, and the first change
// migrates it: the log holds its records, and the file at path names the
// version an older provider refuses. A process that read the version 2 file
// reads the migrated journal.
func TestJournalVersion2MigratesOnFirstChange(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	at := time.Now().UTC().Format(time.RFC3339)
	v2 := `{"version": 2, "entries": [{"task_id": "t", "fingerprint": "fp", "submitted_at": "` + at + `", "state": "s", "run": "gone"}],
"unconfirmed": [{"id": "n", "fingerprint": "fp", "submitted_at": "` + at + `", "state": "s", "run": "gone"}]}`
	if err := os.WriteFile(path, []byte(v2), 0o600); err != nil {
		t.Fatal(err)
	}
	reader, writer := New(path, "s", time.Hour), New(path, "s", time.Hour)
	if got, err := reader.Matching(t.Context(), "fp"); err != nil || len(got) != 1 || got[0].TaskID != "t" {
		t.Fatalf("Matching = %+v, %v; want t", got, err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != v2 {
		t.Fatalf("a read changed the file (%v):\n%s", err, data)
	}
	if _, err := os.Stat(path + ".log"); !os.IsNotExist(err) {
		t.Fatalf("a read wrote a log (%v)", err)
	}
	addTask(t, writer, "u")
	f := readFile(t, path)
	if f.Version != fileVersion || !slices.Equal(taskIDs(f), []string{"t", "u"}) || len(f.Unconfirmed) != 1 || f.Unconfirmed[0].ID != "n" {
		t.Fatalf("after the first change: %+v, want version %d with t, u and the note n", f, fileVersion)
	}
	if got, err := reader.Doubts(t.Context(), "fp"); err != nil || len(got) != 1 || got[0].ID != "n" {
		t.Fatalf("the reader's Doubts = %+v, %v; want the note n", got, err)
	}
	if got, err := reader.Matching(t.Context(), "fp"); err != nil || len(got) != 2 {
		t.Fatalf("the reader's Matching = %+v, %v; want t and u", got, err)
	}
}

// A log whose header names a version this provider does not know is refused
// with the words that say to upgrade.
func TestJournalNewerLogIsRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	addTask(t, New(path, "s", time.Hour), "t")
	data, err := os.ReadFile(path + ".log")
	if err != nil {
		t.Fatal(err)
	}
	newer := strings.Replace(string(data), `{"version":3,`, `{"version":4,`, 1)
	if newer == string(data) {
		t.Fatalf("no version 3 header in\n%s", data)
	}
	if err := os.WriteFile(path+".log", []byte(newer), 0o600); err != nil { //nolint:gosec // G703: a file in t.TempDir()
		t.Fatal(err)
	}
	if _, err := New(path, "s", time.Hour).Matching(t.Context(), "fp"); err == nil || !strings.Contains(err.Error(), "upgrade the provider") {
		t.Fatalf("a newer log: %v, want an error that says to upgrade", err)
	}
}

// Changes that wait for one another in a process are written together, with
// one append and one sync: a parallel apply does not wait for a sync per clip.
func TestJournalChangesWaitingTogetherAreWrittenTogether(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	j := New(path, "s", time.Hour)
	addTask(t, j, "first")
	s, ok := j.store.(*fileStore)
	if !ok {
		t.Fatalf("the journal's store is a %T", j.store)
	}
	appends := s.view.appends
	const waiting = 20
	s.viewMu.Lock()
	errs := make(chan error, waiting)
	for i := range waiting {
		go func() {
			_, err := j.Sending(t.Context(), "fp-"+strconv.Itoa(i), time.Now())
			errs <- err
		}()
	}
	for queued := 0; queued < waiting; {
		runtime.Gosched()
		s.queueMu.Lock()
		queued = len(s.queue)
		s.queueMu.Unlock()
	}
	s.viewMu.Unlock()
	for range waiting {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s.viewMu.Lock()
	got := s.view.appends - appends
	s.viewMu.Unlock()
	if got != 1 {
		t.Errorf("%d changes that waited together took %d appends, want 1", waiting, got)
	}
	if f := readFile(t, path); len(f.Unconfirmed) != waiting {
		t.Errorf("the journal holds %d notes, want %d", len(f.Unconfirmed), waiting)
	}
}

// Between changes the log is not open, so that a compaction by another process
// can replace it on Windows, where a file held open cannot be replaced.
func TestJournalLogIsClosedBetweenChanges(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd to list the open files")
	}
	path := filepath.Join(t.TempDir(), "j.json")
	j := New(path, "s", time.Hour)
	addTask(t, j, "a")
	addTask(t, j, "b")
	if _, err := j.Matching(t.Context(), "fp"); err != nil {
		t.Fatal(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == path+".log" {
			t.Fatalf("the log is open (descriptor %s) between changes", fd.Name())
		}
	}
}
