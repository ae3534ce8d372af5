package clip

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// budget decides, for every clip one plan creates, whether it is a new clip or
// resumes the task of a tainted clip whose wait was cut short, and counts the
// new ones against the provider's max_new_clips. Terraform starts a provider
// process for each plan and plans again when it applies, so what it holds per
// process it holds per plan.
//
// Terraform plans a creation twice, at plan and again at apply, and fails the
// apply of a clip whose second plan says otherwise than the first. A tainted
// clip's replacement is planned with no prior state, so the two plans learn of
// its task differently: at plan from Read, which registers the task as seen; at
// apply from the Delete of the tainted clip, which registers it as promised
// when the first plan said (in the planned private state Delete receives) that
// it resumes it. Clips with equal arguments cannot be told apart, so a clip is
// planned to resume only while no equal clip was planned as new, and a clip
// that may or may not resume is planned unknown: whatever order the apply runs
// them in, no second plan contradicts the first.
type budget struct {
	max     int64 // negative: no limit
	planned atomic.Int64

	mu       sync.Mutex
	seen     []resumable // registered by Read at plan
	promised []Clip      // registered by Delete at apply
	newClips []Clip      // plans already said to be new clips
}

type resumable struct {
	clip  Clip
	taken bool
}

// Resumption is what the budget says of one planned creation.
type Resumption int

const (
	PlannedNew Resumption = iota
	PlannedResume
	// PlannedEither: an equal clip took the task this one could have resumed.
	PlannedEither
)

func newBudget(maxNewClips int64) *budget { return &budget{max: maxNewClips} }

// count adds one new clip and fails the plan once the limit is passed. Every
// clip past it reports its number, so the last error says how many the plan holds.
func (b *budget) count(notes *Notes) {
	n := b.planned.Add(1)
	if b.max < 0 || n <= b.max {
		return
	}
	notes.Fail("", "Too Many New Clips",
		fmt.Sprintf("This plan would generate at least %d new clips, and the provider's max_new_clips allows %d. Each new "+
			"clip is submitted and billed. Nothing has been submitted. If the plan is what you meant, raise max_new_clips "+
			"in the provider block (or remove it for no limit) and plan again; if not, check for_each and count, and "+
			"resources that were renamed (use a moved block) or whose arguments changed.", n, b.max))
}

// see registers, at plan, a clip whose unfinished task its replacement may resume.
func (b *budget) see(clip Clip) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.ContainsFunc(b.seen, func(r resumable) bool { return r.clip.TaskID == clip.TaskID }) {
		b.seen = append(b.seen, resumable{clip: clip})
	}
}

// unsee forgets a clip registered by see: it is kept, not replaced.
func (b *budget) unsee(taskID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen = slices.DeleteFunc(b.seen, func(r resumable) bool { return r.clip.TaskID == taskID })
}

// promise registers, at apply, the clip of a Delete whose replacement the plan
// said resumes its task.
func (b *budget) promise(clip Clip) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.promised = append(b.promised, clip)
}

// plan says whether a creation resumes a task, by the rules the handover
// follows when it applies (Same).
func (b *budget) plan(p Clip) Resumption {
	b.mu.Lock()
	defer b.mu.Unlock()
	if slices.ContainsFunc(b.promised, func(c Clip) bool { return Same(p, c) }) {
		// Its own Delete ran first; an equal clip planned as either may match too.
		return PlannedResume
	}
	contested := false
	for i := range b.seen {
		r := &b.seen[i]
		if !Same(p, r.clip) {
			continue
		}
		if r.taken || slices.ContainsFunc(b.newClips, func(n Clip) bool { return Same(n, r.clip) }) {
			contested = true
			continue
		}
		r.taken = true
		return PlannedResume
	}
	if contested {
		return PlannedEither
	}
	b.newClips = append(b.newClips, p)
	return PlannedNew
}
