package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// A test binary started with childEnv set is a child process: it acts on the
// journal as a provider process would and exits (see runChild).
const childEnv = "VIDEOGEN_JOURNAL_TEST_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		if err := runChild(spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childSpec is what a child does: add Entries tasks named <Name>-<i> to the
// journal at Path for State, then end its run normally when End is set, or
// exit without ending it, as a killed process leaves it.
type childSpec struct {
	Path, State, Name string
	Entries           int
	End               bool
	// CompactAfter, when set, is the child's compactAfter: it rewrites the
	// log while the others append to it.
	CompactAfter int
	// SayPartialPlan: the child prints what PartialPlanFlag finds, and only that.
	SayPartialPlan bool
}

func runChild(spec string) error {
	var s childSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		return err
	}
	if s.SayPartialPlan {
		flag, known := PartialPlanFlag()
		fmt.Printf("flag=%q known=%t\n", flag, known)
		return nil
	}
	if s.CompactAfter > 0 {
		compactAfter = s.CompactAfter
	}
	j := New(s.Path, s.State, time.Hour)
	ctx := context.Background()
	for i := range s.Entries {
		t, err := j.Sending(ctx, "fp", time.Now())
		if err != nil {
			return err
		}
		if err := j.Sent(ctx, t, Entry{TaskID: fmt.Sprintf("%s-%d", s.Name, i), Fingerprint: "fp", SubmittedAt: time.Now()}); err != nil {
			return err
		}
	}
	if s.End {
		return EndRuns(ctx)
	}
	return nil
}

// startChildren starts the children at once and waits for them all.
func runChildren(t *testing.T, specs ...childSpec) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, len(specs))
	for i, s := range specs {
		data, _ := json.Marshal(s)
		cmds[i] = exec.CommandContext(t.Context(), exe, "-test.run=^$")
		cmds[i].Env = append(os.Environ(), childEnv+"="+string(data))
	}
	outs := make([]strings.Builder, len(specs))
	for i, c := range cmds {
		c.Stdout, c.Stderr = &outs[i], &outs[i]
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i].String())
		}
	}
}

// readFile reads the journal at path as a process that starts would: the
// version of the file at path, and the records.
func readFile(t *testing.T, path string) file {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	v, err := loadView(path)
	if err == nil {
		err = v.readLog()
	}
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	return file{Version: f.Version, Entries: v.recs.Entries, Unconfirmed: v.recs.Unconfirmed}
}

// Several provider processes write one journal at once (the workspaces of a
// directory, directories that set one journal_path): each change is made
// under the file's lock, after reading what the others appended, so no entry
// is lost.
func TestJournalSharedByProcessesLosesNoEntry(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pending-tasks.json")
	const children, entries = 6, 40
	specs := make([]childSpec, children)
	for i := range specs {
		specs[i] = childSpec{Path: path, State: "s" + strconv.Itoa(i%2), Name: "c" + strconv.Itoa(i), Entries: entries, End: i%2 == 0}
		if i%3 == 0 {
			specs[i].CompactAfter = 8
		}
	}
	runChildren(t, specs...)
	f := readFile(t, path)
	if f.Version != plainVersion {
		t.Errorf("version %d, want %d", f.Version, plainVersion)
	}
	seen := map[string]bool{}
	for _, e := range f.Entries {
		seen[e.TaskID] = true
	}
	for _, s := range specs {
		for i := range entries {
			if id := fmt.Sprintf("%s-%d", s.Name, i); !seen[id] {
				t.Errorf("entry %s was lost", id)
			}
		}
	}
	if len(f.Entries) != children*entries || len(f.Unconfirmed) != 0 {
		t.Fatalf("the journal holds %d entries and %d notes, want %d and 0", len(f.Entries), len(f.Unconfirmed), children*entries)
	}
}

// A live run's tasks are its own; those of a run that died, or ended without
// any state being seen holding them, are offered. Entries belong to one state.
func TestJournalAdoptsOnlyWhatADeadRunOfTheStateLeft(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pending-tasks.json")
	runChildren(t,
		childSpec{Path: path, State: "prod", Name: "killed", Entries: 1},
		childSpec{Path: path, State: "prod", Name: "ended", Entries: 1, End: true},
		childSpec{Path: path, State: "staging", Name: "other-state", Entries: 1},
	)
	ctx := t.Context()
	live := New(path, "prod", time.Hour)
	if err := live.Sent(ctx, "", Entry{TaskID: "live", Fingerprint: "fp", SubmittedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	j := New(path, "prod", time.Hour)
	got, err := j.Matching(ctx, "fp")
	if err != nil {
		t.Fatal(err)
	}
	standing := map[string]Standing{}
	for _, m := range got {
		standing[m.TaskID] = m.Standing
	}
	want := map[string]Standing{"killed-0": Adoptable, "ended-0": AdoptableEnded, "live": RunAlive}
	if fmt.Sprint(standing) != fmt.Sprint(want) {
		t.Fatalf("Matching = %v, want %v (the other state's task is not offered)", standing, want)
	}
	for _, m := range got {
		if m.TaskID == "killed-0" && !strings.Contains(m.Process, "process ") {
			t.Errorf("the entry does not say which process submitted it: %q", m.Process)
		}
	}
	// A state is seen holding the ended run's task: it leaves the journal.
	if err := j.Remove(ctx, "ended-0"); err != nil {
		t.Fatal(err)
	}
	// The live run ends normally: its provider answered the task to Terraform,
	// which may yet be killed before it saves it.
	if err := live.End(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ = j.Matching(ctx, "fp")
	if len(got) != 2 || got[0].TaskID != "killed-0" || got[1].TaskID != "live" || got[1].Standing != AdoptableEnded {
		t.Fatalf("after the live run ended, Matching = %+v, want killed-0, and live as an ended run's", got)
	}
	// Adopted, the task is this run's: nobody else adopts it while it lives.
	if err := j.Claim(ctx, got[0].Entry); err != nil {
		t.Fatal(err)
	}
	third := New(path, "prod", time.Hour)
	if got, _ := third.Matching(ctx, "fp"); len(got) != 2 || got[0].Standing != RunAlive {
		t.Fatalf("a claimed task: Matching = %+v, want it held by a live run", got)
	}
	if err := third.Remove(ctx, "live"); err != nil {
		t.Fatal(err)
	}
	// A state proven to hold it: it leaves the journal, whatever the state.
	if err := New(path, "staging", time.Hour).Remove(ctx, "killed-0"); err != nil {
		t.Fatal(err)
	}
	if got, _ := third.Matching(ctx, "fp"); len(got) != 0 {
		t.Fatalf("after Remove, Matching = %+v", got)
	}
}

func TestJournalExpiresOldEntries(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	j := New(path, "s", time.Hour)
	j.now = func() time.Time { return now }
	older := New(path, "s", time.Hour)
	older.now = j.now
	if err := older.Sent(t.Context(), "", Entry{TaskID: "old", Fingerprint: "fp", SubmittedAt: now.Add(-30 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	if got, _ := j.Matching(t.Context(), "fp"); len(got) != 0 {
		t.Fatalf("an entry older than the maximum age is still offered: %+v", got)
	}
	if strings.Contains(fmt.Sprint(readFile(t, path)), "old") {
		t.Errorf("the expired entry was written back")
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("journal mode = %v, want 0600", info.Mode().Perm())
	}
}

func TestJournalRemovingAnUnknownTaskWritesNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	if err := New(path, "s", time.Hour).Remove(t.Context(), "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Remove of an unknown task wrote %s", path)
	}
}

func TestJournalCorruptFileIsAnError(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(path, "s", time.Hour).Matching(t.Context(), "fp")
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

// A doubt is said by every plan of another run, and by one Create of a run; it
// leaves the journal when that run ends normally.
func TestJournalDoubtsAreSaidOncePerRunAndLeaveWithIt(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "j.json")
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	j := New(path, "s", time.Hour)
	j.now = clock
	for _, at := range []time.Time{now.Add(-time.Minute), now.Add(-2 * time.Minute), now.Add(-2 * time.Hour)} {
		if _, err := j.Sending(ctx, "fp", at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := j.Sending(ctx, "fp2", now); err != nil {
		t.Fatal(err)
	}
	// Settled notes leave nothing to say: one answered with its task, one that provably created nothing.
	sent, _ := j.Sending(ctx, "fp", now)
	if err := j.Sent(ctx, sent, Entry{TaskID: "t", Fingerprint: "fp", SubmittedAt: now}); err != nil {
		t.Fatal(err)
	}
	refused, _ := j.Sending(ctx, "fp", now)
	if err := j.NotSent(ctx, refused); err != nil {
		t.Fatal(err)
	}
	// The run that noted them is not told: an identical clip of the same run asks for its own clip.
	if got, err := j.TakeDoubts(ctx, "fp"); err != nil || len(got) != 0 {
		t.Fatalf("the noting run took %+v (error %v), want nothing", got, err)
	}
	otherState := New(path, "other", time.Hour)
	otherState.now = clock
	if got, _ := otherState.Doubts(ctx, "fp"); len(got) != 0 {
		t.Fatalf("another state sees %+v, want nothing", got)
	}

	later := New(path, "s", time.Hour)
	later.now = clock
	// While the noting run lives, its notes are its own to settle (a sibling
	// provider of the same apply sends the same request): no doubt.
	if got, err := later.Doubts(ctx, "fp"); err != nil || len(got) != 0 {
		t.Fatalf("while the noting run lives, Doubts = %+v (%v), want nothing", got, err)
	}
	if got, err := later.TakeDoubts(ctx, "fp"); err != nil || len(got) != 0 {
		t.Fatalf("while the noting run lives, TakeDoubts = %+v (%v), want nothing", got, err)
	}
	if err := j.End(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := later.Doubts(ctx, "fp")
		if err != nil || len(got) != 2 || !got[0].SubmittedAt.Equal(now.Add(-2*time.Minute)) {
			t.Fatalf("Doubts = %+v (%v), want the two unexpired notes, oldest first, at every plan", got, err)
		}
	}
	if got, _ := later.TakeDoubts(ctx, "fp"); len(got) != 2 {
		t.Fatalf("TakeDoubts = %+v, want both", got)
	}
	if got, _ := later.TakeDoubts(ctx, "fp"); len(got) != 0 {
		t.Fatalf("a second TakeDoubts of the run returned %+v, want nothing", got)
	}
	if got, _ := later.Doubts(ctx, "fp"); len(got) != 2 {
		t.Fatalf("the run's plans still say the doubts until it ends: %+v", got)
	}
	if err := later.End(ctx); err != nil {
		t.Fatal(err)
	}
	third := New(path, "s", time.Hour)
	third.now = clock
	if got, _ := third.Doubts(ctx, "fp"); len(got) != 0 {
		t.Fatalf("the said notes outlived their run: %+v", got)
	}
	if got, _ := third.Doubts(ctx, "fp2"); len(got) != 1 {
		t.Fatalf("Doubts(fp2) = %+v, want its one note", got)
	}
}

// A file that an older provider wrote (version 1: no runs, no states) loads; its
// entries match every state and are adopted as that provider adopted them.
func TestJournalOfAnOlderProviderLoads(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.json")
	old := `{"version": 1, "entries": [{"task_id": "t", "fingerprint": "fp", "submitted_at": "2026-11-23T12:00:00Z"}],
"unconfirmed": [{"fingerprint": "fp", "submitted_at": "2026-11-23T11:00:00Z"}]}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	j := New(path, "any", DefaultMaxAge)
	j.now = func() time.Time { return time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC) }
	if got, err := j.Doubts(t.Context(), "fp"); err != nil || len(got) != 1 {
		t.Fatalf("Doubts = %+v, %v", got, err)
	}
	got, err := j.Matching(t.Context(), "fp")
	if err != nil || len(got) != 1 || got[0].Standing != AdoptableOlder {
		t.Fatalf("Matching = %+v, %v; want the task, adoptable as an older provider's", got, err)
	}
	if err := j.Claim(t.Context(), got[0].Entry); err != nil {
		t.Fatal(err)
	}
	if f := readFile(t, path); f.Version != plainVersion || len(f.Entries) != 1 || f.Entries[0].Run == "" {
		t.Fatalf("after a change the file is %+v, want version %d with the claimed entry", f, plainVersion)
	}
	newer := `{"version": 5, "entries": []}`
	if err := os.WriteFile(path, []byte(newer), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Matching(t.Context(), "fp"); err == nil || !strings.Contains(err.Error(), "upgrade the provider") {
		t.Fatalf("a newer file: %v, want an error that says to upgrade", err)
	}
}

// A Remove that failed to write leaves the task known: the next Remove of it
// writes the removal instead of taking the task for gone (and a Delete would
// skip its warning about a task left in the journal). Whether the first
// Remove reads the journal or finds it read.
func TestJournalRemoveAfterAFailedRemoveWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.json")
	j := New(path, "s", time.Hour)
	for _, id := range []string{"a", "b", "c"} {
		addTask(t, j, id)
	}
	defer func() { syncLog = (*os.File).Sync }()
	for i, id := range []string{"a", "b"} {
		syncLog = func(*os.File) error { return errors.New("injected sync failure") }
		if err := j.Remove(t.Context(), id); err == nil {
			t.Fatalf("Remove %s with a failing sync returned no error", id)
		}
		syncLog = (*os.File).Sync
		if err := j.Remove(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		want := []string{"a", "b", "c"}[i+1:]
		if got := taskIDs(readFile(t, path)); !slices.Equal(got, want) {
			t.Fatalf("after Remove %s failed once and then returned nil, the journal holds %v, want %v", id, got, want)
		}
	}
}

// A task recorded in the same group commit as a Remove, after it, is known to
// the Removes that follow: a new task while that Remove first reads the
// journal, or the very task it removed, claimed again.
func TestJournalRemoveKnowsATaskSentAfterItInOneCommit(t *testing.T) {
	t.Parallel()
	for _, claimed := range []string{"new", "first"} {
		path, j, s := journalWithATask(t)
		errs := make(chan error, 2)
		s.viewMu.Lock()
		go func() { errs <- j.Remove(t.Context(), "first") }()
		waitQueued(t, s, 1)
		go func() {
			errs <- j.Claim(t.Context(), Entry{TaskID: claimed, Fingerprint: "fp", SubmittedAt: time.Now()})
		}()
		waitQueued(t, s, 2)
		s.viewMu.Unlock()
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if got := taskIDs(readFile(t, path)); !slices.Equal(got, []string{claimed}) {
			t.Fatalf("the journal holds %v, want %s", got, claimed)
		}
		if err := j.Remove(t.Context(), claimed); err != nil {
			t.Fatal(err)
		}
		if got := taskIDs(readFile(t, path)); len(got) != 0 {
			t.Errorf("after Remove %s the journal holds %v, want nothing", claimed, got)
		}
	}
}

// A dead run's tasks are offered to every clip that tests the run at once: a
// test of its lock that overlaps another (the clips of a parallel apply that
// a killed run left, each testing that run) still finds it dead, instead of
// taking the other test's lock for the run's and submitting the clip again.
func TestJournalDeadRunIsDeadToOverlappingTests(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pending-tasks.json")
	runChildren(t, childSpec{Path: path, State: "prod", Name: "killed", Entries: 1})
	entries := readFile(t, path).Entries
	if len(entries) != 1 {
		t.Fatalf("the killed run left %+v, want one task", entries)
	}
	j := New(path, "prod", time.Hour)
	s, ok := j.store.(*fileStore)
	if !ok {
		t.Fatalf("the journal's store is a %T", j.store)
	}
	// The run's lock file as another test, in the middle of its own, holds it.
	other := flock.New(s.runPath(entries[0].Run), flock.SetPermissions(0o600))
	if ok, err := other.TryRLock(); err != nil || !ok {
		t.Fatalf("taking the dead run's lock as a test would: %v, %v", ok, err)
	}
	defer other.Unlock() //nolint:errcheck // a file in t.TempDir()
	got, err := j.Matching(t.Context(), "fp")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Standing != Adoptable {
		t.Fatalf("while another test of the dead run's lock runs, Matching = %+v, want its task adoptable", got)
	}
}

// A journal whose run cannot take its lock (it cannot be written) still says
// its doubts before a submission: TakeDoubts returns them unmarked, and the
// submission's own note fails and says why. Before, TakeDoubts failed, which
// the provider takes for a journal that cannot be written, and the same
// request went out again with its doubt unsaid.
func TestJournalTakeDoubtsOfAJournalThatCannotBeWritten(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "j.json")
	if _, err := New(path, "s", time.Hour).Sending(ctx, "fp", time.Now()); err != nil {
		t.Fatal(err)
	}
	// No run lock can be taken where the runs' directory should be.
	if err := os.RemoveAll(path + ".runs"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".runs", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	later := New(path, "s", time.Hour)
	for range 2 {
		if got, err := later.TakeDoubts(ctx, "fp"); err != nil || len(got) != 1 {
			t.Fatalf("TakeDoubts = %+v (%v), want the doubt, each time it is asked", got, err)
		}
	}
	if _, err := later.Sending(ctx, "fp", time.Now()); err == nil || IsUnreadable(err) {
		t.Fatalf("Sending = %v, want an error of a journal that cannot be written", err)
	}
}
