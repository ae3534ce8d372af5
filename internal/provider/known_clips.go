package provider

import (
	"sync"

	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// knownClip is what a videogen_video_file in state records about its file.
type knownClip struct {
	taskID    string
	sha256    string
	size      int64
	sourceURL string
}

// holds reports whether the file at p is still this clip.
func (c knownClip) holds(p string) bool {
	ok, _ := localfile.Holds(p, c.sha256, c.size)
	return ok
}

// knownClips remembers, for one provider process, the files that
// videogen_video_file resources being replaced wrote, by task and by path.
// Terraform plans the new half of a replacement without its prior state (at
// plan, right after the plan with it; at apply, right after the Delete), so
// this is how that plan learns that the file at its path is the one the
// replaced resource wrote (deleted before the new one is written) or that a
// file at a new path already holds the clip (adopted without downloading).
// Only these two moments record a task's clip, so that the plan and the apply
// decide alike; a refresh records only where a clip is (rememberPath).
type knownClips struct {
	mu     sync.Mutex
	byTask map[string]knownClip
	byPath map[string]knownClip
}

func newKnownClips() *knownClips {
	return &knownClips{byTask: map[string]knownClip{}, byPath: map[string]knownClip{}}
}

// remember records the clip of a resource being replaced, by task and path.
func (k *knownClips) remember(p string, c knownClip) {
	k.record(p, c, true)
}

// rememberPath records only where the clip of a resource in state is. Read
// calls it: a tainted resource is planned without prior state and without a
// plan that has it, and its file, deleted before the new one is written, is
// not in the new one's way. A path alone never adopts anything, so the apply,
// which reads nothing, cannot decide otherwise.
func (k *knownClips) rememberPath(p string, c knownClip) {
	k.record(p, c, false)
}

func (k *knownClips) record(p string, c knownClip, byTask bool) {
	if k == nil || c.taskID == "" || c.sha256 == "" {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if byTask {
		k.byTask[c.taskID] = c
	}
	if abs, err := localfile.Canonical(p); err == nil {
		k.byPath[abs] = c
	}
}

func (k *knownClips) atPath(p string) (knownClip, bool) {
	abs, err := localfile.Canonical(p)
	if k == nil || err != nil {
		return knownClip{}, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	c, ok := k.byPath[abs]
	return c, ok
}

func (k *knownClips) ofTask(taskID string) (knownClip, bool) {
	if k == nil {
		return knownClip{}, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	c, ok := k.byTask[taskID]
	return c, ok
}

// rememberClip records the clip of a videogen_video_file in state for the plan
// of its replacement in this provider process; byTask is false for a refresh,
// which records only the path.
func rememberClip(data *providerData, state *videoFileResourceModel, byTask bool) {
	if data == nil || state.SHA256.IsNull() || state.SHA256.IsUnknown() {
		return
	}
	c := knownClip{taskID: state.TaskID.ValueString(), sha256: state.SHA256.ValueString(),
		size: state.SizeBytes.ValueInt64(), sourceURL: state.SourceURL.ValueString()}
	if byTask {
		data.clips.remember(state.Path.ValueString(), c)
	} else {
		data.clips.rememberPath(state.Path.ValueString(), c)
	}
}
