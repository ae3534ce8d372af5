package journal

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// localState is the savedState of a state the local backend keeps: its file.
// It is read only when the journal offers a task, and read again only when
// the file changed. A file it cannot read or parse (Terraform writing it at
// that moment, an encrypted state) proves nothing: the task stays adoptable.
type localState struct {
	path string // empty when the state is not a local file

	mu    sync.Mutex
	size  int64
	mod   time.Time
	tasks map[string]bool
}

// currentLocalState is the state file of the state CurrentState names, kept
// by the local backend b (nil: none was recorded). A -state flag is not seen:
// the file named then is another's, which proves nothing either way.
func currentLocalState(b *recordedBackend) *localState {
	path := "terraform.tfstate"
	if p := b.setting("path"); p != "" {
		path = p
	}
	// As the local backend names its files: its path for the default
	// workspace, <workspace_dir>/<name>/terraform.tfstate for the others.
	if ws := workspace(); ws != "default" {
		dir := "terraform.tfstate.d"
		if d := b.setting("workspace_dir"); d != "" {
			dir = d
		}
		path = filepath.Join(dir, ws, "terraform.tfstate")
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return &localState{path: path}
}

// heldTasks returns the tasks the state file holds in videogen_video
// resources: none when there is no file (nothing was saved yet).
func (l *localState) heldTasks(context.Context) map[string]bool {
	if l.path == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fi, err := os.Stat(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}
	}
	if err != nil {
		return nil
	}
	if l.tasks == nil || fi.Size() != l.size || !fi.ModTime().Equal(l.mod) {
		// A read that fails is not kept: the next call reads again.
		l.tasks = nil
		if data, err := os.ReadFile(l.path); err == nil {
			l.tasks = stateTasks(data)
		}
		l.size, l.mod = fi.Size(), fi.ModTime()
	}
	return l.tasks
}

// stateTasks returns the task IDs the videogen_video resources of a state
// hold, deposed objects too; nil when it cannot be parsed whole.
func stateTasks(data []byte) map[string]bool {
	var st struct {
		Resources []struct {
			Mode      string `json:"mode"`
			Type      string `json:"type"`
			Instances []struct {
				Attributes struct {
					TaskID string `json:"task_id"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if json.Unmarshal(data, &st) != nil {
		return nil
	}
	tasks := map[string]bool{}
	for _, r := range st.Resources {
		if r.Mode != "managed" || r.Type != "videogen_video" {
			continue
		}
		for _, i := range r.Instances {
			if i.Attributes.TaskID != "" {
				tasks[i.Attributes.TaskID] = true
			}
		}
	}
	return tasks
}
