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
// decide alike; a refresh records only where a clip is.
type knownClips struct {
	byTask sync.Map // task ID -> knownClip
	byPath sync.Map // canonical path -> knownClip
}

func (k *knownClips) atPath(p string) (knownClip, bool) {
	abs, err := localfile.Canonical(p)
	if err != nil {
		return knownClip{}, false
	}
	return loadClip(&k.byPath, abs)
}

func (k *knownClips) ofTask(taskID string) (knownClip, bool) {
	return loadClip(&k.byTask, taskID)
}

func loadClip(m *sync.Map, key string) (knownClip, bool) {
	v, ok := m.Load(key)
	c, _ := v.(knownClip)
	return c, ok
}

// rememberClip records the clip of a videogen_video_file in state for the plan
// of its replacement in this provider process, by path and, unless byTask is
// false, by task. A refresh records only the path: a tainted resource is
// planned without prior state and without a plan that has it, and its file,
// deleted before the new one is written, is not in the new one's way. A path
// alone never adopts anything, so the apply, which reads nothing, cannot
// decide otherwise.
func rememberClip(data *providerData, state *videoFileResourceModel, byTask bool) {
	if data == nil || state.SHA256.ValueString() == "" || state.TaskID.ValueString() == "" {
		return
	}
	c := knownClip{taskID: state.TaskID.ValueString(), sha256: state.SHA256.ValueString(),
		size: state.SizeBytes.ValueInt64(), sourceURL: state.SourceURL.ValueString()}
	if byTask {
		data.clips.byTask.Store(c.taskID, c)
	}
	if abs, err := localfile.Canonical(state.Path.ValueString()); err == nil {
		data.clips.byPath.Store(abs, c)
	}
}
