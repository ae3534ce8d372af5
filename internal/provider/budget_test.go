package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

func TestBillingOf(t *testing.T) {
	t.Parallel()
	for status, want := range map[client.Status]string{
		client.StatusSucceeded: billingBilled, client.StatusFailed: billingNotBilled,
		client.StatusExpired: billingMayHaveBeenPaid, client.StatusCancelled: billingMayHaveBeenPaid,
		client.StatusRunning: billingIfSucceeds, client.StatusSubmitted: billingIfSucceeds, client.StatusUnknown: billingIfSucceeds,
	} {
		if got := billingOf(status); got != want {
			t.Errorf("billingOf(%s) = %q, want %q", status, got, want)
		}
	}
}

// TestNewClipBudgetPlan follows one plan and the apply after it: each creation the
// plan calls a resume is one again when the apply plans it a second time, in any
// order, and an equal clip is never promised the same task.
func TestNewClipBudgetPlan(t *testing.T) {
	t.Parallel()
	atPlan := newNewClipBudget(-1)
	if got := atPlan.plan(planFor("a sunrise", "")); got != plannedNew {
		t.Fatalf("a clip with no task to resume: %v, want plannedNew", got)
	}
	atPlan.see(clipState("task_1", "a sunset", ""))
	if got := atPlan.plan(planFor("a sunrise", "")); got != plannedNew {
		t.Fatalf("another clip's task was resumed: %v", got)
	}
	if got := atPlan.plan(planFor("a sunset", "16:9")); got != plannedNew {
		t.Fatalf("a task made with another ratio was resumed: %v", got)
	}
	if got := atPlan.plan(planFor("a sunset", "")); got != plannedResume {
		t.Fatalf("the tainted clip's replacement: %v, want plannedResume", got)
	}
	if got := atPlan.plan(planFor("a sunset", "")); got != plannedEither {
		t.Fatalf("an equal clip after the task was taken: %v, want plannedEither", got)
	}

	// An equal clip already planned as new: the one that could resume is unknown,
	// since at apply either of the two may meet the task first.
	newFirst := newNewClipBudget(-1)
	if got := newFirst.plan(planFor("a sunset", "")); got != plannedNew {
		t.Fatalf("first clip: %v", got)
	}
	newFirst.see(clipState("task_1", "a sunset", ""))
	if got := newFirst.plan(planFor("a sunset", "")); got != plannedEither {
		t.Fatalf("the clip that could resume beside an equal new one: %v, want plannedEither", got)
	}

	// At apply, a Delete promises its task before its replacement is planned again;
	// every equal creation planned after it may resume, none is refused.
	atApply := newNewClipBudget(-1)
	atApply.promise(clipState("task_1", "a sunset", ""))
	for range 2 {
		if got := atApply.plan(planFor("a sunset", "")); got != plannedResume {
			t.Fatalf("after the promise: %v, want plannedResume", got)
		}
	}

	// A clip that was untainted is kept, not replaced: its task is not resumed.
	untainted := newNewClipBudget(-1)
	untainted.see(clipState("task_1", "a sunset", ""))
	untainted.unsee("task_1")
	if got := untainted.plan(planFor("a sunset", "")); got != plannedNew {
		t.Fatalf("a -replace of an untainted clip: %v, want plannedNew", got)
	}
}

func TestReplacesClip(t *testing.T) {
	t.Parallel()
	clip := clipState("task_1", "a sunset", "16:9")
	clip.ReferenceMediaWOVersion = types.Int64Null()
	same := clip
	recut := clip
	recut.Prompt = types.StringValue("a sunrise")
	otherRatio := clip
	otherRatio.Ratio = types.StringValue("9:16")
	ratioFromElsewhere := clip
	ratioFromElsewhere.Ratio = types.StringUnknown()
	imported := clip
	imported.Model, imported.Prompt, imported.Ratio = types.StringNull(), types.StringNull(), types.StringNull()
	adopting := clip
	adopting.Ratio = types.StringValue("16:9")
	for name, c := range map[string]struct {
		plan, state videoResourceModel
		want        bool
	}{
		"unchanged":                     {same, clip, false},
		"prompt changed":                {recut, clip, true},
		"echoed argument changed":       {otherRatio, clip, true},
		"echoed argument not known yet": {ratioFromElsewhere, clip, false},
		"import adopts configuration":   {adopting, imported, false},
	} {
		if got := replacesClip(c.plan, c.state); got != c.want {
			t.Errorf("%s: replacesClip = %v, want %v", name, got, c.want)
		}
	}
}
