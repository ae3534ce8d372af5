package clip

import (
	"errors"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// A tainted clip whose request cannot be built from its state (an argument the
// provider's api cannot carry) cannot be noted before Delete hands its task
// over: that is said, naming the task, since until the replacement is saved
// the task is in no state and no journal.
func TestReleaseHandsOverWithoutARequest(t *testing.T) {
	t.Parallel()
	l := New(Config{Journal: unwritableJournal(t), MaxNewClips: -1})
	c := held("task_handed", "p", "")
	c.Unsendable = errors.New("Argument Not Supported by the API: callback_url cannot be sent")
	notes := l.Release(t.Context(), c, HandedOver)
	if notes.HasError() || len(notes) != 1 || notes[0].Summary != "Task Not Noted in the Task Journal" ||
		!says(notes[0].Detail, "Task task_handed exists and is handed to the clip that replaces this one", "callback_url") {
		t.Fatalf("want one warning naming task_handed and why, got %v", notes)
	}
	if id, ok := l.handover.take(planned("p", "")); !ok || id != "task_handed" {
		t.Fatalf("the replacement took %q, %v; want the handed-over task", id, ok)
	}
}

// What Delete does with each outcome, and what the plans after it say. Every
// decision the acceptance tests make through the CLI is here without it.
func TestReleaseOutcomes(t *testing.T) {
	t.Parallel()
	for name, tc := range map[Outcome]struct {
		offered, promised, abandoned bool
	}{
		Destroyed:  {},
		LetGo:      {abandoned: true},
		HandedOver: {offered: true},
		Resumed:    {offered: true, promised: true},
	} {
		l := New(Config{Journal: unwritableJournal(t), MaxNewClips: -1})
		c := held("task_1", "a sunset", "")
		c.Status = client.StatusRunning
		c.Fingerprint = "f"
		notes := l.Release(t.Context(), c, name)
		abandoned := false
		for _, n := range notes {
			abandoned = abandoned || n.Summary == "Unfinished Task Abandoned"
		}
		if abandoned != tc.abandoned {
			t.Errorf("outcome %d: abandoned said %v, want %v (%v)", name, abandoned, tc.abandoned, notes)
		}
		if got := l.budget.plan(planned("a sunset", "")) == PlannedResume; got != tc.promised {
			t.Errorf("outcome %d: the replacement's second plan resumes: %v, want %v", name, got, tc.promised)
		}
		_, taken := l.handover.take(planned("a sunset", ""))
		if taken != tc.offered {
			t.Errorf("outcome %d: the replacement took the task: %v, want %v", name, taken, tc.offered)
		}
	}
}
