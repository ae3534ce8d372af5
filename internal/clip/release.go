package clip

import (
	"context"
	"fmt"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// Outcome is what a Delete does with the task of the clip it removes, as the
// provider reads it from what Terraform hands the Delete.
type Outcome int

const (
	// Destroyed: the clip leaves state with its task (a destroy, or the
	// replacement of a finished clip).
	Destroyed Outcome = iota
	// LetGo: the replacement's plan knew the unfinished task and asks for
	// another clip, so the task is abandoned.
	LetGo
	// HandedOver: the unfinished task is offered to the replacement that
	// Terraform creates next in this run, which takes it if it asks for the same clip.
	HandedOver
	// Resumed: the replacement's plan resumes the task.
	Resumed
)

// Release does what outcome o says with the task of clip c, which a Delete
// removes from state. A nil Lifecycle, a provider not configured yet, only
// says what becomes of it.
func (l *Lifecycle) Release(ctx context.Context, c Clip, o Outcome) Notes {
	var notes Notes
	if l == nil {
		// A provider not configured yet only says what becomes of the clip.
		l.remove(ctx, c, &notes)
		return notes
	}
	switch o {
	case Destroyed:
		// The state held the task until now.
		l.forgetLeaving(ctx, c.TaskID, &notes)
		l.remove(ctx, c, &notes)
	case LetGo:
		l.Forget(ctx, c.TaskID)
		if !c.RemovalSaid {
			addAbandonedTaskWarning(&notes, c)
		}
	case HandedOver, Resumed:
		l.noteHandedOver(ctx, c, &notes)
		l.handover.offer(c, o == Resumed)
		if o == Resumed {
			// The replacement is planned again before it is created, and must again be
			// planned as the resume it was.
			l.budget.promise(c)
		}
		l.info(ctx, "offering an unfinished task to this resource's replacement", map[string]any{"task_id": c.TaskID})
	}
	return notes
}

// noteHandedOver notes, as this run's, the task of a tainted clip that Delete
// hands to its replacement: the refresh removed it from the journal when the
// state held it, and from now on no state may hold it until the replacement is
// saved, so a run killed in between leaves it for the next one. The request is
// read from state, so a clip with write-only reference media is noted under
// another fingerprint than its replacement's, and not found again.
func (l *Lifecycle) noteHandedOver(ctx context.Context, c Clip, notes *Notes) {
	if c.Fingerprint == "" {
		// Not noted, the task is in no state and no journal until the replacement
		// is saved: say so, as for any task the journal could not note.
		l.notNoted(ctx, c.TaskID, heldByReplacement, c.Unsendable, notes)
		return
	}
	l.notNoted(ctx, c.TaskID, heldByReplacement, l.journal.Claim(ctx, journal.Entry{
		TaskID: c.TaskID, Fingerprint: c.Fingerprint, SubmittedAt: time.Now()}), notes)
}

// Abandoned names, once each, the tasks offered by Deletes of this run that no
// replacement took and whose clip the plan of c does not ask for (see
// handover.abandoned).
func (l *Lifecycle) Abandoned(c Clip) Notes {
	var notes Notes
	for _, o := range l.handover.abandoned(c) {
		addAbandonedTaskWarning(&notes, o)
	}
	return notes
}

// addAbandonedTaskWarning names a task that an earlier run left unfinished and
// that no replacement took over, because the clip is now asked for differently.
// The clip is named by the prompt it was made with: Terraform shows no address
// for what a Delete says.
func addAbandonedTaskWarning(notes *Notes, c Clip) {
	notes.Warn("Unfinished Task Abandoned",
		fmt.Sprintf("Task %s (the clip of prompt %q) was still running when an earlier apply stopped waiting for it. Its "+
			"resource now asks for a different clip (an argument or triggers_replace changed), so a new task is submitted "+
			"instead of resuming %s. Task %s only leaves Terraform state, and %s.", c.TaskID, ShortPrompt(c.Prompt),
			c.TaskID, c.TaskID, KeptTaskCost(c.Status)))
}

// ShortPrompt is a prompt as a message quotes it: its first 60 characters.
func ShortPrompt(p string) string {
	r := []rune(p)
	if len(r) > 60 {
		return string(r[:60]) + "..."
	}
	return string(r)
}

// KeptTaskCost says what a task that leaves Terraform state goes on costing.
func KeptTaskCost(status client.Status) string {
	if !status.Final() {
		return fmt.Sprintf("the task is %s: it keeps running and is billed if it succeeds", status)
	}
	return "its clip stays on the service and stays billed"
}
