package provider

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// What the billing attribute says. A clip planned for creation says one of the
// first two, or is unknown when the plan cannot tell; Read then records what the
// task's status means for the bill. CI scripts compare these strings, so they are
// part of the interface (the ci-pipelines guide lists them).
const (
	billingNewClip = "new clip"
	billingResumes = "resumes an earlier task, no new charge"
	// billingMayBillTwice plans a new clip whose request an earlier run sent
	// without learning whether it created a task.
	billingMayBillTwice = "may bill a second clip: an earlier submission got no answer"

	billingBilled          = "billed"
	billingIfSucceeds      = "billed if it succeeds"
	billingNotBilled       = "not billed"
	billingMayHaveBeenPaid = "may have been billed"
	// billingCutShort marks, in state, the task of a clip whose create wait was cut
	// short: Delete hands it to the replacement whatever its status.
	billingCutShort = "wait cut short"
)

// billingOf says what a task in status s costs: a failed generation is not billed,
// a clip that succeeded is, and one that expired or was cancelled may have been.
func billingOf(s client.Status) string {
	switch {
	case s == client.StatusSucceeded:
		return billingBilled
	case s == client.StatusFailed:
		return billingNotBilled
	case s.Gone():
		return billingMayHaveBeenPaid
	}
	return billingIfSucceeds
}

// newClipBudget decides, for every clip one plan creates, whether it is a new clip
// or resumes the task of a tainted clip whose wait was cut short, and counts the new
// ones against the provider's max_new_clips. Terraform starts a provider process for
// each plan and plans again when it applies, so what it holds per process it holds
// per plan.
//
// Terraform plans a creation twice, at plan and again at apply, and fails the apply
// of a clip whose second plan says otherwise than the first. A tainted clip's
// replacement is planned with no prior state, so the two plans learn of its task
// differently: at plan from Read, which registers the task as seen; at apply from
// the Delete of the tainted clip, which registers it as promised when the first
// plan said (in the planned private state Delete receives) that it resumes it.
// Clips with equal arguments cannot be told apart, so a clip is planned to resume
// only while no equal clip was planned as new, and a clip that may or may not
// resume is planned unknown: whatever order the apply runs them in, no second plan
// contradicts the first.
type newClipBudget struct {
	max     int64 // negative: no limit
	planned atomic.Int64

	mu       sync.Mutex
	seen     []resumable          // registered by Read at plan
	promised []videoResourceModel // registered by Delete at apply
	newClips []videoResourceModel // plans already said to be new clips
}

type resumable struct {
	clip  videoResourceModel
	taken bool
}

// resumption is what the budget says of one planned creation.
type resumption int

const (
	plannedNew resumption = iota
	plannedResume
	plannedEither // an equal clip took the task this one could have resumed
)

func newNewClipBudget(maxNewClips int64) *newClipBudget { return &newClipBudget{max: maxNewClips} }

// count adds one new clip and fails the plan once the limit is passed. Every clip
// past it reports its number, so the last error says how many the plan holds.
func (b *newClipBudget) count(diags *diag.Diagnostics) {
	n := b.planned.Add(1)
	if b.max < 0 || n <= b.max {
		return
	}
	diags.AddError("Too Many New Clips",
		fmt.Sprintf("This plan would generate at least %d new clips, and the provider's max_new_clips allows %d. Each new "+
			"clip is submitted and billed. Nothing has been submitted. If the plan is what you meant, raise max_new_clips "+
			"in the provider block (or remove it for no limit) and plan again; if not, check for_each and count, and "+
			"resources that were renamed (use a moved block) or whose arguments changed.", n, b.max))
}

// see registers, at plan, a clip whose unfinished task its replacement may resume.
func (b *newClipBudget) see(clip videoResourceModel) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.ContainsFunc(b.seen, func(r resumable) bool { return r.clip.TaskID.Equal(clip.TaskID) }) {
		b.seen = append(b.seen, resumable{clip: clip})
	}
}

// unsee forgets a clip registered by see: it is kept, not replaced.
func (b *newClipBudget) unsee(taskID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen = slices.DeleteFunc(b.seen, func(r resumable) bool { return r.clip.TaskID.ValueString() == taskID })
}

// promise registers, at apply, the clip of a Delete whose replacement the plan
// said resumes its task.
func (b *newClipBudget) promise(clip videoResourceModel) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.promised = append(b.promised, clip)
}

// plan says whether a creation resumes a task, by the rules the handover follows
// when it applies (sameClip).
func (b *newClipBudget) plan(p videoResourceModel) resumption {
	b.mu.Lock()
	defer b.mu.Unlock()
	if slices.ContainsFunc(b.promised, func(c videoResourceModel) bool { return sameClip(p, c) }) {
		// Its own Delete ran first; an equal clip planned as either may match too.
		return plannedResume
	}
	contested := false
	for i := range b.seen {
		r := &b.seen[i]
		if !sameClip(p, r.clip) {
			continue
		}
		if r.taken || slices.ContainsFunc(b.newClips, func(n videoResourceModel) bool { return sameClip(n, r.clip) }) {
			contested = true
			continue
		}
		r.taken = true
		return plannedResume
	}
	if contested {
		return plannedEither
	}
	b.newClips = append(b.newClips, p)
	return plannedNew
}
