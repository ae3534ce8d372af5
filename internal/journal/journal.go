// Package journal keeps, on the local disk, the generation tasks that were
// submitted but whose clip Terraform may not have recorded in state yet.
//
// Terraform saves a resource's state only when the provider answers. When
// Terraform or the provider is killed outright (a second Ctrl-C, SIGKILL, the
// out-of-memory killer) after a task was submitted, no state records the task, and
// the next apply would submit and bill it again. The journal remembers such tasks
// by the fingerprint of their request, so that the next apply on the same machine
// adopts the task instead. It is a small JSON file that one provider process at a
// time writes (Terraform's state lock keeps applies of one working directory apart).
package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// DefaultMaxAge is how long an entry is kept when its clip is never recorded: a
// task older than that is no longer worth waiting for in place of a new one.
const DefaultMaxAge = 7 * 24 * time.Hour

// Entry is one submitted task whose clip may not be in any state yet.
type Entry struct {
	TaskID string `json:"task_id"`
	// Fingerprint identifies the request (service address, arguments and
	// triggers) that created the task; the journal never holds the request itself.
	Fingerprint string    `json:"fingerprint"`
	SubmittedAt time.Time `json:"submitted_at"`
}

type file struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

const fileVersion = 1

// Journal is the file at one path, loaded on first use and written through on
// every change. It is safe for concurrent use within one process.
type Journal struct {
	path   string
	maxAge time.Duration
	now    func() time.Time

	mu      sync.Mutex
	loaded  bool
	entries []Entry
}

// New returns the journal kept at path. Entries older than maxAge are dropped.
func New(path string, maxAge time.Duration) *Journal {
	return &Journal{path: path, maxAge: maxAge, now: time.Now}
}

// DefaultPath is where Terraform users expect a working directory's local data:
// under TF_DATA_DIR when it is set, else under .terraform.
func DefaultPath() string {
	dir := os.Getenv("TF_DATA_DIR")
	if dir == "" {
		dir = ".terraform"
	}
	return filepath.Join(dir, "videogen", "pending-tasks.json")
}

// Path returns the journal's file path.
func (j *Journal) Path() string { return j.path }

// Add records a submitted task.
func (j *Journal) Add(e Entry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.load(); err != nil {
		return err
	}
	j.entries = slices.DeleteFunc(j.entries, func(x Entry) bool { return x.TaskID == e.TaskID })
	j.entries = append(j.entries, e)
	return j.save()
}

// Remove forgets a task, once its clip is recorded or it can no longer be adopted.
// Removing a task the journal does not hold writes nothing.
func (j *Journal) Remove(taskID string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.load(); err != nil {
		return err
	}
	n := len(j.entries)
	j.entries = slices.DeleteFunc(j.entries, func(x Entry) bool { return x.TaskID == taskID })
	if len(j.entries) == n {
		return nil
	}
	return j.save()
}

// Matching returns the unexpired entries with this fingerprint, oldest first.
func (j *Journal) Matching(fingerprint string) ([]Entry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.load(); err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range j.entries {
		if e.Fingerprint == fingerprint && !j.expired(e) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return a.SubmittedAt.Compare(b.SubmittedAt) })
	return out, nil
}

func (j *Journal) expired(e Entry) bool { return j.now().Sub(e.SubmittedAt) > j.maxAge }

// load reads the file once; a missing file is an empty journal. Callers hold j.mu.
func (j *Journal) load() error {
	if j.loaded {
		return nil
	}
	data, err := os.ReadFile(j.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading the task journal %s: %w", j.path, err)
	default:
		var f file
		if err := json.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("the task journal %s is not valid JSON (%w); delete it if no apply was cut off", j.path, err)
		}
		if f.Version != fileVersion {
			return fmt.Errorf("the task journal %s has version %d, this provider writes version %d", j.path, f.Version, fileVersion)
		}
		j.entries = f.Entries
	}
	j.loaded = true
	return nil
}

// save drops expired entries and replaces the file atomically, so that a kill in
// the middle of a write never leaves half a journal. Callers hold j.mu.
func (j *Journal) save() error {
	j.entries = slices.DeleteFunc(j.entries, j.expired)
	data, err := json.MarshalIndent(file{Version: fileVersion, Entries: j.entries}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(j.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing the task journal: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".pending-tasks-*")
	if err != nil {
		return fmt.Errorf("writing the task journal: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the task journal: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the task journal: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the task journal: %w", err)
	}
	if err := os.Rename(tmp.Name(), j.path); err != nil {
		return fmt.Errorf("writing the task journal: %w", err)
	}
	return nil
}
