package clip

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/journal"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// unwritableJournal is a journal_path journal whose file is a directory: it
// reads as empty and cannot be written.
func unwritableJournal(t *testing.T) *journal.Journal {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pending-tasks.json")
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	return journal.New(p, "state", journal.DefaultMaxAge)
}

// says reports whether a note's detail holds every phrase, in order, whatever
// the spaces between words.
func says(detail string, phrases ...string) bool {
	parts := make([]string, len(phrases))
	for i, p := range phrases {
		parts[i] = strings.Join(strings.Fields(regexp.QuoteMeta(p)), `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, ".*")).MatchString(detail)
}

// A task whose removal fails stays in the journal. Where the state keeps it,
// that is only logged; for a clip that leaves state the user is told which
// task a later identical clip would adopt, and this run never adopts it.
func TestForgetFailure(t *testing.T) {
	t.Parallel()
	l := New(Config{Journal: unwritableJournal(t), MaxNewClips: -1})
	l.Forget(t.Context(), "task_held")
	notes := l.Release(t.Context(), held("task_left", "a destroyed clip", ""), Destroyed)
	// The second note says, once per run, that the clip only leaves state.
	if len(notes) != 2 || notes.HasError() || notes[0].Summary != "Task Left in the Task Journal" ||
		notes[1].Summary != "Video Removed From State Only" {
		t.Fatalf("want the warnings 'Task Left in the Task Journal' and 'Video Removed From State Only', got %v", notes)
	}
	if !says(notes[0].Detail, "Task task_left left Terraform state", "adopts task task_left", "triggers_replace",
		"Original error:") {
		t.Errorf("the warning does not say which task and what to do:\n%s", notes[0].Detail)
	}
	if l.handover.claim("task_left") {
		t.Error("this run may still adopt the task that left state")
	}
	if !l.handover.claim("task_held") {
		t.Error("a task the state keeps was claimed")
	}
}

// A task the service answered with, or one handed over, that the journal
// cannot note is a warning naming it, never an error: it exists, and this run
// records it in state. A shared journal_url database is no exception.
func TestNotNotedIsAWarning(t *testing.T) {
	t.Parallel()
	refused, err := mockapi.RefusedURL(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	shared := journal.NewPostgres(strings.Replace(refused, "http://", "postgres://videogen@", 1)+"/terraform?sslmode=disable",
		"state", journal.DefaultMaxAge)
	for _, j := range []*journal.Journal{shared, unwritableJournal(t)} {
		l := New(Config{Journal: j, MaxNewClips: -1})
		var notes Notes
		l.notNoted(t.Context(), "task_answered", heldByThisApply,
			j.Sent(t.Context(), "", journal.Entry{TaskID: "task_answered", Fingerprint: "f"}), &notes)
		l.notNoted(t.Context(), "task_adopted", heldByThisApply, j.Claim(t.Context(), journal.Entry{TaskID: "task_adopted", Fingerprint: "f"}), &notes)
		if notes.HasError() || len(notes) != 2 {
			t.Fatalf("%s: want two warnings, got %v", j.Where(), notes)
		}
		for i, task := range []string{"task_answered", "task_adopted"} {
			if notes[i].Summary != "Task Not Noted in the Task Journal" || !strings.Contains(notes[i].Detail, task) {
				t.Errorf("%s: %s: %s", j.Where(), notes[i].Summary, notes[i].Detail)
			}
		}
	}
}
