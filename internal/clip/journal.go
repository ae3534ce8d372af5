package clip

import (
	"context"
	"fmt"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// journalTime is how a warning dates a journaled submission.
func journalTime(t time.Time) string { return t.UTC().Format(time.DateTime + " UTC") }

// The journal's wrappers say what went wrong in words the user can act on. A
// journal_path file that cannot be written only warns: it protects against an
// outright kill and against a second submission after a doubtful one, and the
// apply goes on. A journal_url database is what fresh runners rely on, so one
// that cannot be reached or written fails the plan, or the apply before it
// submits anything: the provider never submits a clip it could not note first.

// Forget forgets a task that a state is proven to hold. A removal that fails
// is only logged, being harmless: the state keeps holding the task (a refresh,
// a plan), and every plan removes its prior state's tasks again before an
// apply adopts one, while a plan that would adopt one anyway names it; or the
// task has failed or is gone, and is dropped when read; or an unfinished task
// is abandoned for a changed clip, and adopting it for exactly its own request
// again bills nothing new.
func (l *Lifecycle) Forget(ctx context.Context, taskID string) {
	l.problem(ctx, l.journal.Remove(ctx, taskID), nil)
}

// forgetLeaving forgets the task of a destroyed or replaced clip. A removal
// that fails leaves the task in the journal, where a later Create of exactly
// this clip for this state (with journal_url, on any runner) would adopt it
// instead of generating one: nothing but its age removes the entry any more,
// and the next identical clip would get the destroyed one back, so the user is
// told whatever the journal (a local file that cannot be written is read by
// the next apply as surely as a database), and this run's own Creates never
// adopt it, so that a -replace gets the new clip it asks for.
func (l *Lifecycle) forgetLeaving(ctx context.Context, taskID string, notes *Notes) {
	err := l.journal.Remove(ctx, taskID)
	if err == nil {
		return
	}
	l.problem(ctx, err, nil)
	l.handover.claim(taskID)
	notes.Warn("Task Left in the Task Journal",
		fmt.Sprintf("Task %s left Terraform state, but the task journal (%s) could not forget it. Until it does (the "+
			"journal drops a task after 7 days), an apply of this state that creates exactly this clip again adopts task %s, "+
			"with no new charge, instead of generating a new clip: the clip just destroyed would come back. Such a plan "+
			"says so in the warning \"Clip May Adopt a Task of a Killed Run\" naming task %s; to get a new clip "+
			"instead, change triggers_replace (or any argument) of that resource.\n\nOriginal error: %s",
			taskID, l.journal.Where(), taskID, taskID, err))
}

// What holds a task that the journal could not note, as notNoted says it: a
// handed-over task is in no state until the clip that replaces its own takes
// it over, which a destroy without a replacement never does.
const (
	heldByThisApply   = "this apply records it in state"
	heldByReplacement = "is handed to the clip that replaces this one, which records it in state if it takes the task over"
)

// notNoted says that a task the service answered with, which this run holds,
// could not be noted (err, from noting it; nil says nothing): a warning
// whatever the journal, since the task exists and goes to state (held says
// how); only a kill before Terraform saves it would lose it.
func (l *Lifecycle) notNoted(ctx context.Context, taskID, held string, err error, notes *Notes) {
	if err == nil {
		return
	}
	l.warn(ctx, "the task journal is not usable", map[string]any{"journal": l.journal.Where(), "task_id": taskID,
		"error": err.Error()})
	notes.Warn("Task Not Noted in the Task Journal",
		fmt.Sprintf("Task %s exists and %s, but the task journal (%s) could not note it. "+
			"If this run is killed before Terraform saves the state, the next apply does not know the task and submits "+
			"the clip again: look for task %s in the service's console before applying again, and import it if it is "+
			"not in state.\n\nOriginal error: %s", taskID, held, l.journal.Where(), taskID, err))
}

// problem logs a journal error (nil says nothing) and, with notes, says it: an
// error for a journal_url database, or for a journal that is there but cannot
// be read (it reports true: stop before submitting), once a warning for a
// journal_path file that cannot be written.
func (l *Lifecycle) problem(ctx context.Context, err error, notes *Notes) bool {
	if err == nil {
		return false
	}
	l.warn(ctx, "the task journal is not usable", map[string]any{"journal": l.journal.Where(), "error": err.Error()})
	if notes == nil {
		return false
	}
	if l.journal.Shared() {
		notes.Fail("journal_url", "Task Journal Not Reachable",
			fmt.Sprintf("The provider notes every submission in the task journal at journal_url (%s) before it sends "+
				"it, so that a run killed outright does not bill a clip twice, and that journal could not be reached or "+
				"written. Nothing was submitted. The original error says what happened: a session the server ended "+
				"(and why, as the server said it), which the provider reconnects for up to 2 minutes; another run "+
				"that took this run's tasks over while its lock was lost; a privilege the role lacks; or a database "+
				"this runner cannot reach. Act on it: the role may create the schema videogen_journal (on first use) "+
				"and must write its table; or remove "+
				"journal_url (and VIDEOGEN_JOURNAL_URL) to keep the journal on this machine only.\n\nOriginal error: %s",
				l.journal.Where(), err))
		return true
	}
	if journal.IsUnreadable(err) {
		// Unlike a journal that cannot be written, it may hold a task that a
		// killed run left for this very clip: submitting would bill it twice.
		notes.Fail("", "Task Journal Not Readable",
			fmt.Sprintf("The task journal (%s) holds the tasks that earlier runs submitted before a state was known to "+
				"hold them, and this provider cannot read it, so it cannot tell whether a killed run already submitted "+
				"this clip. Nothing was submitted. Do what the original error says: restore the journal's log beside it, "+
				"or upgrade the provider if a newer one wrote the journal. Remove the journal's files only if no apply "+
				"using it was cut off, or after checking the service's console for tasks that no state holds.\n\n"+
				"Original error: %s", l.journal.Where(), err))
		return true
	}
	l.journalError.Do(func() {
		notes.Warn("Task Journal Not Written",
			fmt.Sprintf("The provider notes each submitted task in %s until a state is known to hold it, so that a run "+
				"killed outright does not bill it twice; that note could not be written. The apply goes on; if it is "+
				"killed before it finishes, check the service's console for tasks created by this run before applying "+
				"again. Set journal_path in the provider block to a writable file.\n\nOriginal error: %s", l.journal.Where(), err))
	})
	return false
}
