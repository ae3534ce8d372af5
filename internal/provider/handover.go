package provider

import (
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// taskHandover passes unfinished tasks from the Delete of a tainted videogen_video
// to the Create of its replacement. Terraform taints a resource whose create wait
// was cut short, and the next apply replaces it: it deletes the tainted object,
// then creates the new one, in the same provider process. Without the handover the
// replacement would submit (and bill) a second task for the same clip.
//
// Terraform hands the provider no private state for a tainted object, so a task is
// matched by what its state says was asked for: the replacement takes it when its
// own plan would keep that clip (see sameClip).
//
// Adoption is exclusive: a task ID is claimed at most once per process, whether it
// comes from a Delete or from the local journal, so two identical clips resume two
// tasks, never one.
type taskHandover struct {
	mu      sync.Mutex
	offered []offeredTask
	claimed map[string]bool
}

type offeredTask struct {
	clip videoResourceModel
	// resumed: the replacement's plan resumes this task; it is not abandoned.
	resumed  bool
	reported bool
}

func newTaskHandover() *taskHandover { return &taskHandover{claimed: map[string]bool{}} }

// offer makes an unfinished task available to a replacement asking for the same clip.
func (h *taskHandover) offer(clip videoResourceModel, resumed bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.claimed[clip.TaskID.ValueString()] {
		h.offered = append(h.offered, offeredTask{clip: clip, resumed: resumed})
	}
}

// take claims the oldest offered task whose clip the plan asks for.
func (h *taskHandover) take(plan videoResourceModel) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, o := range h.offered {
		id := o.clip.TaskID.ValueString()
		if !h.claimed[id] && sameClip(plan, o.clip) {
			h.claimed[id] = true
			return id, true
		}
	}
	return "", false
}

// claim claims a task found elsewhere (the journal); it reports false when this
// process already adopted it.
func (h *taskHandover) claim(taskID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.claimed[taskID] {
		return false
	}
	h.claimed[taskID] = true
	return true
}

// release gives back a claimed task that turned out not to be adoptable.
func (h *taskHandover) release(taskID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.claimed, taskID)
}

// abandoned returns, once each, the offered tasks that no replacement took and
// whose clip the plan does not ask for: it is asked for with other arguments now,
// so the old task was left running. Only tasks offered by a plan made without
// knowing them are left to this guess (a plan with a refresh says at Delete, on
// the task's own clip, what it abandons), and a task whose replacement's plan
// resumes it is never among them. The caller is whichever create finishes first,
// which is not always the task's own clip.
func (h *taskHandover) abandoned(plan videoResourceModel) []offeredTask {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []offeredTask
	for i := range h.offered {
		o := &h.offered[i]
		id := o.clip.TaskID.ValueString()
		if !o.reported && !o.resumed && !h.claimed[id] && !sameClip(plan, o.clip) {
			o.reported = true
			out = append(out, *o)
		}
	}
	return out
}

// sameClip reports whether a plan asks for the clip that an existing task's state
// describes, by the rules the plan itself follows: every argument must mean what
// the task's means, except that an echoed argument which the configuration leaves
// unset (unknown in the plan) accepts whatever the task has. An empty list or map
// says nothing, as null does.
func sameClip(plan, clip videoResourceModel) bool {
	for _, a := range clipArguments {
		p, c := plan.arg(a.name), clip.arg(a.name)
		switch {
		case a.echoed && p.IsUnknown():
		case saysNothing(p) || saysNothing(c):
			if !saysNothing(p) || !saysNothing(c) {
				return false
			}
		case !a.same(p, c):
			return false
		}
	}
	return true
}

func saysNothing(v attr.Value) bool {
	switch c := v.(type) {
	case types.List:
		return !c.IsUnknown() && len(c.Elements()) == 0
	case types.Map:
		return !c.IsUnknown() && len(c.Elements()) == 0
	}
	return v.IsNull()
}
