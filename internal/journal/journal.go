// Package journal keeps, on the local disk, the generation tasks that were
// submitted but whose clip Terraform may not have recorded in state yet.
//
// Terraform saves a resource's state only when the provider answers. When
// Terraform or the provider is killed outright (a second Ctrl-C, SIGKILL, the
// out-of-memory killer) after a task was submitted, no state records the task, and
// the next apply would submit and bill it again. The journal remembers such tasks
// by the fingerprint of their request, so that the next apply on the same machine
// adopts the task instead.
//
// It also notes each submission before it is sent, until its answer settles the
// outcome, so that one whose outcome stays unknown (the request may have reached
// the service, but no task ID came back, or the process was killed while it was in
// flight) makes the next apply that sends the same request say so before it does.
// It is a small JSON file that one provider process at a time writes (Terraform's
// state lock keeps applies of one working directory apart).
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

// Unconfirmed is a submission that may have created a task although no task ID
// came back: a gateway failed after forwarding it, the run was interrupted or
// killed while it was in flight, or the answer held no task.
type Unconfirmed struct {
	Fingerprint string    `json:"fingerprint"`
	SubmittedAt time.Time `json:"submitted_at"`

	// ticket is set on the notes this process wrote (see Sending): its resource
	// is told already, and an identical clip of the same run asks for a clip of
	// its own.
	ticket Ticket
}

// Ticket names a note written by Sending, for Sent or NotSent to settle it.
// The zero Ticket names no note.
type Ticket uint64

// A journal written by a provider that knows nothing of unconfirmed submissions
// still loads (the member is ignored), so the version stays 1.
type file struct {
	Version     int           `json:"version"`
	Entries     []Entry       `json:"entries"`
	Unconfirmed []Unconfirmed `json:"unconfirmed,omitempty"`
}

const fileVersion = 1

// Journal is the file at one path, loaded on first use and written through on
// every change. It is safe for concurrent use within one process.
type Journal struct {
	path   string
	maxAge time.Duration
	now    func() time.Time

	mu          sync.Mutex
	loaded      bool
	entries     []Entry
	unconfirmed []Unconfirmed
	tickets     Ticket
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
func (j *Journal) Add(e Entry) error { return j.Sent(0, e) }

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
		if e.Fingerprint == fingerprint && !j.expired(e.SubmittedAt) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return a.SubmittedAt.Compare(b.SubmittedAt) })
	return out, nil
}

// Sending notes a submission about to be sent, as unconfirmed: nothing is known
// of its outcome until the answer comes, and a process killed while it is in
// flight leaves the note for the next run to find. Sent or NotSent settles it;
// a submission whose outcome stays unknown is left as it is.
func (j *Journal) Sending(fingerprint string, at time.Time) (Ticket, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.load(); err != nil {
		return 0, err
	}
	j.tickets++
	j.unconfirmed = append(j.unconfirmed, Unconfirmed{Fingerprint: fingerprint, SubmittedAt: at, ticket: j.tickets})
	if err := j.save(); err != nil {
		j.unconfirmed = slices.DeleteFunc(j.unconfirmed, func(u Unconfirmed) bool { return u.ticket == j.tickets })
		return 0, err
	}
	return j.tickets, nil
}

// Sent replaces the note of a submission that was answered with its task, in
// one write, so that no moment leaves neither on disk.
func (j *Journal) Sent(t Ticket, e Entry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.load(); err != nil {
		return err
	}
	j.dropTicket(t)
	j.entries = slices.DeleteFunc(j.entries, func(x Entry) bool { return x.TaskID == e.TaskID })
	j.entries = append(j.entries, e)
	return j.save()
}

// NotSent drops the note of a submission that provably created nothing.
func (j *Journal) NotSent(t Ticket) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.load(); err != nil {
		return err
	}
	if !j.dropTicket(t) {
		return nil
	}
	return j.save()
}

// dropTicket forgets the note t names and reports whether there was one.
// Callers hold j.mu.
func (j *Journal) dropTicket(t Ticket) bool {
	if t == 0 {
		return false
	}
	n := len(j.unconfirmed)
	j.unconfirmed = slices.DeleteFunc(j.unconfirmed, func(u Unconfirmed) bool { return u.ticket == t })
	return len(j.unconfirmed) != n
}

// TakeUnconfirmed returns, oldest first, the unexpired unconfirmed submissions
// with this fingerprint that an earlier process noted, and forgets them: the
// caller says so once, before it submits the same request again.
func (j *Journal) TakeUnconfirmed(fingerprint string) ([]Unconfirmed, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.load(); err != nil {
		return nil, err
	}
	var out []Unconfirmed
	j.unconfirmed = slices.DeleteFunc(j.unconfirmed, func(u Unconfirmed) bool {
		take := u.Fingerprint == fingerprint && u.ticket == 0 && !j.expired(u.SubmittedAt)
		if take {
			out = append(out, u)
		}
		return take
	})
	if len(out) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(out, func(a, b Unconfirmed) int { return a.SubmittedAt.Compare(b.SubmittedAt) })
	return out, j.save()
}

func (j *Journal) expired(at time.Time) bool { return j.now().Sub(at) > j.maxAge }

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
		j.entries, j.unconfirmed = f.Entries, f.Unconfirmed
	}
	j.loaded = true
	return nil
}

// save drops expired entries and replaces the file atomically, so that a kill in
// the middle of a write never leaves half a journal. Callers hold j.mu.
func (j *Journal) save() error {
	j.entries = slices.DeleteFunc(j.entries, func(e Entry) bool { return j.expired(e.SubmittedAt) })
	j.unconfirmed = slices.DeleteFunc(j.unconfirmed, func(u Unconfirmed) bool { return j.expired(u.SubmittedAt) })
	data, err := json.MarshalIndent(file{Version: fileVersion, Entries: j.entries, Unconfirmed: j.unconfirmed}, "", "  ")
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
