package localfile

import "sync"

// Clip is a clip written to a file: the task it is of, its lowercase hex
// SHA-256 and size, and the URL it was downloaded from.
type Clip struct {
	Task      string
	SHA256    string
	Size      int64
	SourceURL string
}

// At reports whether the file at path still holds the clip.
func (c Clip) At(path string) bool {
	ok, _ := Holds(path, c.SHA256, c.Size)
	return ok
}

// Known remembers, for one process, the files that the clip files being
// replaced hold, by task and by path. Terraform plans the new half of a
// replacement without its prior state (at plan, right after the plan with it;
// at apply, right after the Delete), so this is how that plan learns that the
// file at its path is the one the replaced resource wrote (deleted before the
// new one is written) or that a file at a new path already holds the clip
// (adopted without downloading). Only these two moments record a task's clip,
// so that the plan and the apply decide alike; a refresh records only where a
// clip is. The zero value is ready to use; a nil Known knows nothing.
type Known struct {
	byTask sync.Map // task ID -> Clip
	byPath sync.Map // canonical path -> Clip
}

// Remember records c as the clip at path and, unless byTask is false, as the
// clip of its task. A refresh records only the path: a tainted resource is
// planned without prior state and without a plan that has it, and its file,
// deleted before the new one is written, is not in the new one's way. A path
// alone never adopts anything, so the apply, which reads nothing, cannot
// decide otherwise. A clip without a task or a checksum is not recorded.
func (k *Known) Remember(path string, c Clip, byTask bool) {
	if k == nil || c.SHA256 == "" || c.Task == "" {
		return
	}
	if byTask {
		k.byTask.Store(c.Task, c)
	}
	if abs, err := Canonical(path); err == nil {
		k.byPath.Store(abs, c)
	}
}

// Placement is what a new clip file finds at its path.
type Placement struct {
	// Occupant is what is there now.
	Occupant Occupant
	// Predecessor: the file there is the one that a resource being replaced
	// wrote, which is deleted before the new one is written.
	Predecessor bool
	// Copy, when set, is the clip of the new file's task, which the file there
	// already holds: it is adopted without downloading.
	Copy *Clip
}

// Place checks that a new file for the clip of task (empty when not known
// yet) can be written at path, and says what it finds there.
func (k *Known) Place(path, task string) (Placement, error) {
	occ, err := InspectTarget(path)
	place := Placement{Occupant: occ}
	if err != nil || occ != RegularFile || k == nil {
		return place, err
	}
	if abs, err := Canonical(path); err == nil {
		if c, ok := load(&k.byPath, abs); ok && c.At(path) {
			place.Predecessor = true
			return place, nil
		}
	}
	if c, ok := load(&k.byTask, task); ok && task != "" && c.At(path) {
		place.Copy = &c
	}
	return place, nil
}

func load(m *sync.Map, key string) (Clip, bool) {
	v, ok := m.Load(key)
	c, _ := v.(Clip)
	return c, ok
}

// InspectTarget checks that a file can be written at path (CheckTarget) and
// says what is there now.
func InspectTarget(path string) (Occupant, error) {
	if err := CheckTarget(path); err != nil {
		return Nothing, err
	}
	occ, _, err := Inspect(path)
	return occ, err
}
