package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
	if !bytes.HasPrefix(after, before) || bytes.Count(after[len(before):], []byte("\n")) != 2 {
		t.Errorf("the changes did not append two lines (the note; the entry with the note's removal):\nbefore %s\nafter %s", before, after)
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
	if f.Version != plainVersion || !slices.Equal(taskIDs(f), []string{"t", "u"}) || len(f.Unconfirmed) != 1 || f.Unconfirmed[0].ID != "n" {
		t.Fatalf("after the first change: %+v, want version %d with t, u and the note n", f, plainVersion)
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
	newer := strings.Replace(string(data), `{"version":3,`, `{"version":5,`, 1)
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
	path, j, s := journalWithATask(t)
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
	waitQueued(t, s, waiting)
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

// A process killed during an append of several records (Sent's entry and its
// note's removal; a group commit's many) leaves the append whole or nothing
// of it, wherever the write stopped: the next run finds the note (a doubt) or
// the entry (a task to adopt), never neither, nor a part of the append.
func TestJournalTornAppendIsReadWholeOrNotAtAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "j.json")
	j := New(path, "s", time.Hour)
	addTask(t, j, "first")
	tk, err := j.Sending(t.Context(), "fp2", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	before := readLog(t, path)
	if err := j.Sent(t.Context(), tk, Entry{TaskID: "second", Fingerprint: "fp2", SubmittedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	after := readLog(t, path)
	appended := after[len(before):]
	if !bytes.Contains(appended, []byte(`"second"`)) || !bytes.Contains(appended, []byte(`"removed_unconfirmed"`)) {
		t.Fatalf("Sent appended %s, want the entry and the note's removal", appended)
	}
	stub, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for cut := len(before); cut <= len(after); cut++ {
		cutPath := filepath.Join(dir, "cut-"+strconv.Itoa(cut)+".json")
		if err := os.WriteFile(cutPath, stub, 0o600); err != nil { //nolint:gosec // G703: a file in t.TempDir()
			t.Fatal(err)
		}
		if err := os.WriteFile(cutPath+".log", after[:cut], 0o600); err != nil { //nolint:gosec // G703: a file in t.TempDir()
			t.Fatal(err)
		}
		next := New(cutPath, "s", time.Hour)
		entries, err := next.Matching(t.Context(), "fp2")
		if err != nil {
			t.Fatalf("cut after %d of the append's %d bytes: %v", cut-len(before), len(appended), err)
		}
		notes, err := next.Doubts(t.Context(), "fp2")
		if err != nil {
			t.Fatalf("cut after %d of the append's %d bytes: %v", cut-len(before), len(appended), err)
		}
		whole := cut == len(after)
		if len(entries) != btoi(whole) || len(notes) != btoi(!whole) {
			t.Fatalf("cut after %d of the append's %d bytes: %d entries and %d notes, want the append whole or not at all",
				cut-len(before), len(appended), len(entries), len(notes))
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func readLog(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path + ".log")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The log is opened to read and write, not to append: on Windows a file
// opened to append cannot be truncated, and after one torn line every later
// change, which cuts it off first, would fail.
func TestJournalLogIsNotOpenedToAppend(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	addTask(t, New(path, "s", time.Hour), "a")
	v, err := loadView(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	info, err := os.ReadFile("/proc/self/fdinfo/" + strconv.FormatUint(uint64(v.log.Fd()), 10))
	if err != nil {
		t.Skip("no /proc/self/fdinfo to read the open file's flags")
	}
	_, rest, _ := strings.Cut(string(info), "flags:")
	flags, err := strconv.ParseInt(strings.Fields(rest)[0], 8, 64)
	if err != nil {
		t.Fatalf("flags in %s: %v", info, err)
	}
	if flags&int64(os.O_APPEND) != 0 {
		t.Errorf("the log is open to append (flags %o)", flags)
	}
}

// A version 3 file without its log is an error naming both files, not an
// empty journal: every task in the lost log would be submitted again.
func TestJournalMissingLogIsAnError(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	addTask(t, New(path, "s", time.Hour), "a")
	if err := os.Remove(path + ".log"); err != nil {
		t.Fatal(err)
	}
	_, err := New(path, "s", time.Hour).Matching(t.Context(), "fp")
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), path+".log") ||
		!strings.Contains(err.Error(), "restore") {
		t.Fatalf("a version 3 file without its log: %v, want an error naming both files and saying to restore the log", err)
	}
	if _, err := os.Stat(path + ".log"); !os.IsNotExist(err) {
		t.Errorf("the failed read wrote a log (%v)", err)
	}
}

// An append whose sync fails is cut off again: every change it held returns
// the error and none of them stays in the log, and the next change reads the
// files again instead of trusting what the failed changes left in memory.
func TestJournalFailedSyncLeavesNothing(t *testing.T) {
	path, j, s := journalWithATask(t)
	before := readLog(t, path)
	failure := errors.New("injected sync failure")
	defer func() { syncLog = (*os.File).Sync }()
	syncLog = func(*os.File) error { return failure }
	const waiting = 5
	errs := make(chan error, waiting)
	s.viewMu.Lock()
	for i := range waiting {
		go func() {
			_, err := j.Sending(t.Context(), "fp-"+strconv.Itoa(i), time.Now())
			errs <- err
		}()
		waitQueued(t, s, i+1)
	}
	s.viewMu.Unlock()
	for range waiting {
		if err := <-errs; !errors.Is(err, failure) {
			t.Fatalf("a change of the failed append returned %v, want the sync's error", err)
		}
	}
	syncLog = (*os.File).Sync
	s.viewMu.Lock()
	kept := s.view != nil
	s.viewMu.Unlock()
	if kept {
		t.Error("the view the failed append changed is kept: the next change would not read the files again")
	}
	if after := readLog(t, path); !bytes.Equal(after, before) {
		t.Errorf("the failed append stayed in the log:\n%s", after[len(before):])
	}
	addTask(t, j, "next")
	if f := readFile(t, path); !slices.Equal(taskIDs(f), []string{"first", "next"}) || len(f.Unconfirmed) != 0 {
		t.Errorf("after the next change: tasks %v and %d notes, want first and next, no note", taskIDs(f), len(f.Unconfirmed))
	}
}

// journalWithATask returns a new file journal that holds the task "first",
// its path and its store.
func journalWithATask(t *testing.T) (string, *Journal, *fileStore) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j.json")
	j := New(path, "s", time.Hour)
	addTask(t, j, "first")
	s, ok := j.store.(*fileStore)
	if !ok {
		t.Fatalf("the journal's store is a %T", j.store)
	}
	return path, j, s
}

// waitQueued waits until n changes wait in the store's queue.
func waitQueued(t testing.TB, s *fileStore, n int) {
	t.Helper()
	// A change that never queues is a failure, not a hang until go test's
	// timeout; the limit is far beyond any machine's load.
	deadline := time.Now().Add(time.Minute)
	for {
		s.queue.mu.Lock()
		queued := len(s.queue.waiting)
		s.queue.mu.Unlock()
		if queued >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d changes queued for the journal's write", queued, n)
		}
		runtime.Gosched()
	}
}

// A journal that is there but cannot be read (its file or log damaged, its
// log missing, a newer provider's file or log) says so through IsUnreadable,
// for the provider to submit nothing: it may hold a killed run's task for the
// very clip. A journal that cannot be written is not unreadable. A newer log
// says to upgrade, never to delete it.
func TestJournalUnreadableIsToldFromUnwritable(t *testing.T) {
	t.Parallel()
	journalWith := func(t *testing.T, damage func(path string) error) error {
		t.Helper()
		path := filepath.Join(t.TempDir(), "j.json")
		addTask(t, New(path, "s", time.Hour), "t")
		if err := damage(path); err != nil {
			t.Fatal(err)
		}
		_, err := New(path, "s", time.Hour).Matching(t.Context(), "fp")
		return err
	}
	replace := func(file, old, repl string) error {
		data, err := os.ReadFile(file) //nolint:gosec // G304: a file in t.TempDir()
		if err != nil {
			return err
		}
		if !strings.Contains(string(data), old) {
			return errors.New(old + " not in " + string(data))
		}
		return os.WriteFile(file, []byte(strings.Replace(string(data), old, repl, 1)), 0o600) //nolint:gosec // G703: a file in t.TempDir()
	}
	for name, damage := range map[string]func(path string) error{
		"file not JSON":  func(path string) error { return os.WriteFile(path, []byte("{not json"), 0o600) }, //nolint:gosec // G703: a file in t.TempDir()
		"newer file":     func(path string) error { return replace(path, `"version": 3`, `"version": 5`) },
		"log missing":    func(path string) error { return os.Remove(path + ".log") },
		"log damaged":    func(path string) error { return replace(path+".log", `{"entry"`, `{"entry`) },
		"newer log":      func(path string) error { return replace(path+".log", `"version":3`, `"version":5`) },
		"record unknown": func(path string) error { return replace(path+".log", `{"entry"`, `{"other"`) },
	} {
		err := journalWith(t, damage)
		if !IsUnreadable(err) {
			t.Errorf("%s: %v, want an unreadable journal", name, err)
		}
		if name == "newer log" && (!strings.Contains(fmt.Sprint(err), "upgrade the provider") || strings.Contains(fmt.Sprint(err), "delete")) {
			t.Errorf("%s: %v, want it to say to upgrade the provider, not to delete the log", name, err)
		}
	}
	dir := filepath.Join(t.TempDir(), "j.json")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := New(dir, "s", time.Hour).Sent(t.Context(), "", Entry{TaskID: "t", Fingerprint: "fp"}); err == nil || IsUnreadable(err) {
		t.Errorf("a journal whose path is a directory: %v, want an error that is not unreadable", err)
	}
}
