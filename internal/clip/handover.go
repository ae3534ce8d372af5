package clip

import "sync"

// handover passes unfinished tasks from the Delete of a tainted videogen_video
// to the Create of its replacement. Terraform taints a resource whose create
// wait was cut short, and the next apply replaces it: it deletes the tainted
// object, then creates the new one, in the same provider process. Without the
// handover the replacement would submit (and bill) a second task for the same
// clip.
//
// Terraform hands the provider no private state for a tainted object, so a task
// is matched by what its state says was asked for: the replacement takes it
// when its own plan would keep that clip (see Same).
//
// Adoption is exclusive: a task ID is claimed at most once per process, whether
// it comes from a Delete or from the task journal, so two identical clips
// resume two tasks, never one.
type handover struct {
	mu      sync.Mutex
	offered []offeredTask
	claimed map[string]bool
}

type offeredTask struct {
	clip Clip
	// resumed: the replacement's plan resumes this task; it is not abandoned.
	resumed  bool
	reported bool
}

func newHandover() *handover { return &handover{claimed: map[string]bool{}} }

// offer makes an unfinished task available to a replacement asking for the same clip.
func (h *handover) offer(clip Clip, resumed bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.claimed[clip.TaskID] {
		h.offered = append(h.offered, offeredTask{clip: clip, resumed: resumed})
	}
}

// take claims the oldest offered task whose clip the plan asks for.
func (h *handover) take(plan Clip) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, o := range h.offered {
		if id := o.clip.TaskID; !h.claimed[id] && Same(plan, o.clip) {
			h.claimed[id] = true
			return id, true
		}
	}
	return "", false
}

// claim claims a task found elsewhere (the journal, a submission); it reports
// false when this process already claimed it.
func (h *handover) claim(taskID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.claimed[taskID] {
		return false
	}
	h.claimed[taskID] = true
	return true
}

// release gives back a claimed task that turned out not to be adoptable.
func (h *handover) release(taskID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.claimed, taskID)
}

// abandoned returns, once each, the offered tasks that no replacement took and
// whose clip the plan does not ask for: it is asked for with other arguments
// now, so the old task was left running. Only tasks offered by a plan made
// without knowing them are left to this guess (a plan with a refresh says at
// Delete, on the task's own clip, what it abandons), and a task whose
// replacement's plan resumes it is never among them. The caller is whichever
// create finishes first, which is not always the task's own clip.
func (h *handover) abandoned(plan Clip) []Clip {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Clip
	for i := range h.offered {
		o := &h.offered[i]
		if !o.reported && !o.resumed && !h.claimed[o.clip.TaskID] && !Same(plan, o.clip) {
			o.reported = true
			out = append(out, o.clip)
		}
	}
	return out
}
