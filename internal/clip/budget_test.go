package clip

import (
	"strings"
	"testing"
)

// TestBudgetPlan follows one plan and the apply after it: each creation the
// plan calls a resume is one again when the apply plans it a second time, in
// any order, and an equal clip is never promised the same task.
func TestBudgetPlan(t *testing.T) {
	t.Parallel()
	atPlan := newBudget(-1)
	steps := []struct {
		name string
		plan Clip
		want Resumption
	}{
		{"a clip with no task to resume", planned("a sunrise", ""), PlannedNew},
		{"another clip's task", planned("a sunrise", ""), PlannedNew},
		{"a task made with another ratio", planned("a sunset", "16:9"), PlannedNew},
		{"the tainted clip's replacement", planned("a sunset", ""), PlannedResume},
		{"an equal clip after the task was taken", planned("a sunset", ""), PlannedEither},
	}
	for i, s := range steps {
		if i == 1 {
			atPlan.see(held("task_1", "a sunset", ""))
		}
		if got := atPlan.plan(s.plan); got != s.want {
			t.Fatalf("%s: %v, want %v", s.name, got, s.want)
		}
	}

	// An equal clip already planned as new: the one that could resume is unknown,
	// since at apply either of the two may meet the task first.
	newFirst := newBudget(-1)
	if got := newFirst.plan(planned("a sunset", "")); got != PlannedNew {
		t.Fatalf("first clip: %v", got)
	}
	newFirst.see(held("task_1", "a sunset", ""))
	if got := newFirst.plan(planned("a sunset", "")); got != PlannedEither {
		t.Fatalf("the clip that could resume beside an equal new one: %v, want PlannedEither", got)
	}

	// At apply, a Delete promises its task before its replacement is planned again;
	// every equal creation planned after it may resume, none is refused.
	atApply := newBudget(-1)
	atApply.promise(held("task_1", "a sunset", ""))
	for range 2 {
		if got := atApply.plan(planned("a sunset", "")); got != PlannedResume {
			t.Fatalf("after the promise: %v, want PlannedResume", got)
		}
	}

	// A clip that was untainted is kept, not replaced: its task is not resumed.
	untainted := newBudget(-1)
	untainted.see(held("task_1", "a sunset", ""))
	untainted.see(held("task_1", "a sunset", ""))
	untainted.unsee("task_1")
	if got := untainted.plan(planned("a sunset", "")); got != PlannedNew {
		t.Fatalf("a -replace of an untainted clip: %v, want PlannedNew", got)
	}
}

func TestBudgetCount(t *testing.T) {
	t.Parallel()
	var notes Notes
	b := newBudget(2)
	for range 3 {
		b.count(&notes)
	}
	if len(notes) != 1 || !notes.HasError() || notes[0].Summary != "Too Many New Clips" ||
		!strings.Contains(notes[0].Detail, "at least 3 new clips") || !strings.Contains(notes[0].Detail, "max_new_clips allows 2") {
		t.Fatalf("notes = %v", notes)
	}
	unlimited := newBudget(-1)
	var none Notes
	for range 100 {
		unlimited.count(&none)
	}
	if len(none) != 0 {
		t.Fatalf("an unset max_new_clips said %v", none)
	}
}
