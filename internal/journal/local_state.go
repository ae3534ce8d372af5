package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// localState reads the state file of a state the local backend keeps, which
// proves that the state holds a task even when no resource of the plan holds
// it: a plan with -target neither reads nor plans the resources it does not
// target, so their tasks are never removed from the journal by a Read, and a
// new identical clip would adopt the task another address holds. A state the
// file does not hold (yet) proves nothing: Terraform may have been killed
// before it wrote the task there, which is what the journal is for. A remote
// backend's state is not read: its tasks wait for a Read, as before.
//
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

// currentLocalState is the state file of the state CurrentState names, when
// the local backend keeps it (the backend `init` recorded is local, or none
// is); none for every other backend. A -state flag is not seen: the file
// named then is another's, which proves nothing either way.
func currentLocalState() *localState {
	var recorded struct {
		Backend *struct {
			Type   string `json:"type"`
			Config struct {
				Path         string `json:"path"`
				WorkspaceDir string `json:"workspace_dir"`
			} `json:"config"`
		} `json:"backend"`
	}
	if data, err := os.ReadFile(filepath.Join(dataDir(), "terraform.tfstate")); err == nil {
		if err := json.Unmarshal(data, &recorded); err != nil {
			return &localState{}
		}
	}
	path := "terraform.tfstate"
	if b := recorded.Backend; b != nil {
		if b.Type != "" && b.Type != "local" {
			return &localState{}
		}
		if b.Config.Path != "" {
			path = b.Config.Path
		}
	}
	// As the local backend names its files: its path for the default
	// workspace, <workspace_dir>/<name>/terraform.tfstate for the others.
	if ws := workspace(); ws != "default" {
		dir := "terraform.tfstate.d"
		if b := recorded.Backend; b != nil && b.Config.WorkspaceDir != "" {
			dir = b.Config.WorkspaceDir
		}
		path = filepath.Join(dir, ws, "terraform.tfstate")
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return &localState{path: path}
}

// holds reports whether the state file holds taskID in a videogen_video.
func (l *localState) holds(taskID string) bool {
	if l == nil || l.path == "" {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fi, err := os.Stat(l.path)
	if err != nil {
		return false
	}
	if l.tasks == nil || fi.Size() != l.size || !fi.ModTime().Equal(l.mod) {
		// A read that fails is not kept: the next call reads again.
		l.tasks = readStateTasks(l.path)
		l.size, l.mod = fi.Size(), fi.ModTime()
	}
	return l.tasks[taskID]
}

// readStateTasks returns the task IDs the videogen_video resources of a state
// file hold, deposed objects too; nil when it cannot be read whole.
func readStateTasks(path string) map[string]bool {
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
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &st) != nil {
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
