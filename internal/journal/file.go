package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// fileStore keeps the journal in a JSON file that several processes share:
// every change reads the file, merges, and replaces it atomically, under an
// exclusive lock on a file beside it (flock on Unix, LockFileEx on Windows),
// so that two runs writing at once never lose an entry. A run's liveness lock
// is a lock on a file of its own in the directory <path>.runs, which the
// operating system releases when the process dies.
type fileStore struct {
	path string

	mu   sync.Mutex
	runs map[string]*flock.Flock
}

// The file's version. Version 1, which providers before runs and states wrote,
// still loads: its records match every state and count as a dead run's.
// A provider that knows only version 1 refuses this file and warns.
type file struct {
	Version     int           `json:"version"`
	Entries     []Entry       `json:"entries"`
	Unconfirmed []Unconfirmed `json:"unconfirmed,omitempty"`
}

const fileVersion = 2

// lockRetry is how often a run waiting for the journal's lock tries again:
// holders keep it for one read and one write.
const lockRetry = 5 * time.Millisecond

// New returns the journal kept in the file at path, for the state state (see
// CurrentState). Records older than maxAge are dropped.
func New(path, state string, maxAge time.Duration) *Journal {
	return newJournal(&fileStore{path: path, runs: map[string]*flock.Flock{}}, state, maxAge)
}

// DefaultPath is where Terraform users expect a working directory's local data:
// under TF_DATA_DIR when it is set, else under .terraform.
func DefaultPath() string {
	return filepath.Join(dataDir(), "videogen", "pending-tasks.json")
}

func (s *fileStore) where() string { return s.path }

func (s *fileStore) update(ctx context.Context, change func(*records) bool) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the task journal %s: %w", s.path, err)
	}
	lock := flock.New(s.path+".lock", flock.SetPermissions(0o600))
	if _, err := lock.TryLockContext(ctx, lockRetry); err != nil {
		return fmt.Errorf("locking the task journal %s: %w", s.path, err)
	}
	defer lock.Unlock() //nolint:errcheck // closing the descriptor releases the lock anyway
	r, err := s.read()
	if err != nil {
		return err
	}
	if !change(r) {
		return nil
	}
	data, err := json.MarshalIndent(file{Version: fileVersion, Entries: r.Entries, Unconfirmed: r.Unconfirmed}, "", "  ")
	if err != nil {
		return err
	}
	// Written beside the journal, synced, renamed over it, and the directory
	// synced: a kill in the middle of a write never leaves half a journal.
	_, err = localfile.Write(s.path, 0o600, 0o700, func(f *localfile.File) error {
		_, err := f.Write(append(data, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("writing the task journal %s: %w", s.path, err)
	}
	return nil
}

// read loads the file; a missing file is an empty journal. Callers hold the lock.
func (s *fileStore) read() (*records, error) {
	data, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &records{}, nil
	case err != nil:
		return nil, fmt.Errorf("reading the task journal %s: %w", s.path, err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("the task journal %s is not valid JSON (%w); delete it if no apply was cut off", s.path, err)
	}
	if f.Version != 1 && f.Version != fileVersion {
		return nil, fmt.Errorf("the task journal %s has version %d, which this provider (version %d) does not know: "+
			"a newer provider wrote it; upgrade the provider", s.path, f.Version, fileVersion)
	}
	return &records{Entries: f.Entries, Unconfirmed: f.Unconfirmed}, nil
}

func (s *fileStore) runPath(run string) string {
	return filepath.Join(s.path+".runs", run+".lock")
}

func (s *fileStore) hold(_ context.Context, run string) error {
	path := s.runPath(run)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("the task journal %s: %w", s.path, err)
	}
	lock := flock.New(path, flock.SetPermissions(0o600))
	ok, err := lock.TryLock()
	if err == nil && !ok {
		err = errors.New("another process holds this run's lock")
	}
	if err != nil {
		return fmt.Errorf("the task journal %s: locking %s: %w", s.path, path, err)
	}
	s.mu.Lock()
	s.runs[run] = lock
	s.mu.Unlock()
	return nil
}

func (s *fileStore) release(run string) {
	s.mu.Lock()
	lock := s.runs[run]
	delete(s.runs, run)
	s.mu.Unlock()
	if lock != nil {
		_ = os.Remove(lock.Path())
		_ = lock.Unlock()
	}
}

// alive tries the run's lock: a run whose process died holds it no more, and
// its file (which a run that ended normally removed) is removed.
func (s *fileStore) alive(_ context.Context, run string) (bool, error) {
	s.mu.Lock()
	_, own := s.runs[run]
	s.mu.Unlock()
	if own {
		return true, nil
	}
	path := s.runPath(run)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	lock := flock.New(path, flock.SetPermissions(0o600))
	ok, err := lock.TryLock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("the task journal %s: testing the lock of run %s: %w", s.path, run, err)
	}
	if !ok {
		return true, nil
	}
	_ = os.Remove(path)
	_ = lock.Unlock()
	return false, nil
}
