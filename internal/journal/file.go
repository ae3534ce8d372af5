package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

// fileStore keeps the journal in files that several processes share, and
// changes them only under an exclusive lock on a file beside them (flock on
// Unix, LockFileEx on Windows), so that two runs writing at once never lose an
// entry. The records are in a log (see fileView) to which a change appends
// only what it changed; each process keeps the journal in memory between
// changes and reads only what others appended since, so a change costs the
// same however many records the journal holds. A run's liveness lock is a
// lock on a file of its own in the directory <path>.runs, which the operating
// system releases when the process dies.
type fileStore struct {
	path string

	mu   sync.Mutex
	runs map[string]*flock.Flock

	// viewMu is held by the goroutine that writes this process's changes,
	// and guards view: the journal as this process last read or wrote it; nil
	// until the first change, and after a change failed half-way.
	viewMu sync.Mutex
	view   *fileView

	// queue holds the changes waiting for viewMu, made together by the
	// goroutine that gets it.
	queue changeQueue
}

// lockRetry is how often a run waiting for the journal's lock tries again:
// holders keep it for one append.
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

// update hands change every record: the file store reads only what other
// processes appended since, however small sc.
func (s *fileStore) update(ctx context.Context, sc scope, change func(*records) bool) error {
	return s.queue.make(&s.viewMu, sc, change, func(own *queuedChange, batch []*queuedChange) {
		s.commit(ctx, own, batch)
	})
}

// commit makes a batch of changes, in order, and writes them with one append.
// Each change's outcome goes to its done; when the context of own, this
// goroutine's change, ends while it waits for the journal's lock, the others
// go back to the queue for the next goroutine. Callers hold viewMu.
func (s *fileStore) commit(ctx context.Context, own *queuedChange, batch []*queuedChange) {
	// Opened to read (flock's default), which is all a lock needs: a journal
	// that may be read but not written is still read under it.
	lock := flock.New(s.path+".lock", flock.SetPermissions(0o600))
	var errs []error
	err := os.MkdirAll(filepath.Dir(s.path), 0o700)
	if err == nil {
		_, err = lock.TryLockContext(ctx, lockRetry)
		if err != nil {
			err = s.lockFailed(ctx, err)
		}
	} else {
		err = fmt.Errorf("the task journal %s: %w", s.path, err)
	}
	if err == nil {
		errs, err = s.apply(batch)
		_ = lock.Unlock() // closing the descriptor releases the lock anyway
	} else if ctx.Err() != nil {
		batch = s.queue.putBack(own, batch)
	}
	for i, q := range batch {
		if err == nil && errs != nil {
			q.done <- errs[i]
			continue
		}
		q.done <- err
	}
}

// lockFailed is the error of a lock that could not be taken. Of a journal
// that is there (or that this process cannot even tell is there), it is
// unreadable: the journal may hold a killed run's task for the very clip a
// plan creates, and taking it for an empty one would bill that clip twice.
func (s *fileStore) lockFailed(ctx context.Context, err error) error {
	err = fmt.Errorf("locking the task journal %s: %w", s.path, err)
	if ctx.Err() != nil {
		return err
	}
	present, perr := s.present()
	switch {
	case perr != nil:
		return unreadable(fmt.Errorf("%w; and this process cannot tell whether the journal is there (%w): %s", err, perr, accessAdvice))
	case present:
		return unreadable(fmt.Errorf("%w: %s", err, accessAdvice))
	}
	return err
}

// accessAdvice says what to do about a journal this process may not read.
const accessAdvice = "make the journal's directory and files (the journal, its .log, .lock and .runs) readable, " +
	"and writable, by the user that runs Terraform, on a file system mounted read-write"

// present reports whether the journal's file or log is there; an error when
// this process cannot tell (a directory it may not search).
func (s *fileStore) present() (bool, error) {
	for _, p := range []string{s.path, s.path + ".log"} {
		_, err := os.Lstat(p)
		switch {
		case err == nil:
			return true, nil
		case !errors.Is(err, fs.ErrNotExist):
			return false, err
		}
	}
	return false, nil
}

// apply makes the changes on the view, read again where other processes
// changed the files, and writes them. Callers hold viewMu and the journal's
// lock. A journal that this process may read but not write (a read-only
// mount, another user's files) is read all the same: each change that
// writes nothing gets its answer, and each that would write gets the error
// (errs, in batch's order, when not nil, holds each change's outcome).
func (s *fileStore) apply(batch []*queuedChange) (errs []error, err error) {
	defer func() {
		if s.view != nil {
			s.view.close()
		}
	}()
	if err := s.load(); err != nil {
		return nil, err
	}
	if s.view.readOnly != nil {
		errs = make([]error, len(batch))
		for i, q := range batch {
			q.change(&s.view.recs)
			if len(s.view.recs.changes) == 0 {
				continue
			}
			errs[i] = fmt.Errorf("writing the task journal %s: it can be read but not written (%w): %s", s.path,
				s.view.readOnly, accessAdvice)
			// The records in memory hold a change the files do not.
			s.forget()
			if i+1 < len(batch) {
				if err := s.load(); err != nil {
					for j := i + 1; j < len(batch); j++ {
						errs[j] = err
					}
					return errs, nil
				}
			}
		}
		return errs, nil
	}
	for _, q := range batch {
		q.change(&s.view.recs)
	}
	if len(s.view.recs.changes) == 0 {
		return nil, nil
	}
	if err := s.view.commit(); err != nil {
		// The records in memory hold changes the files may not: the next
		// change reads the files again.
		s.forget()
		return nil, fmt.Errorf("writing the task journal %s: %w", s.path, err)
	}
	return nil, nil
}

// load brings the view up to date with the files. Callers hold viewMu and
// the journal's lock.
func (s *fileStore) load() error {
	if s.view == nil || !s.view.current() {
		s.forget()
		v, err := loadView(s.path)
		if err != nil {
			return err
		}
		s.view = v
	}
	if err := s.view.readLog(); err != nil {
		s.forget()
		return err
	}
	return nil
}

// forget drops the view. Callers hold viewMu.
func (s *fileStore) forget() {
	if s.view != nil {
		s.view.close()
		s.view = nil
	}
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

// alive tries the run's lock, shared: a run whose process died holds it no
// more, and its file (which a run that ended normally removed) is removed.
// The run holds it exclusive; a test takes it shared, so that two tests of one
// dead run at once (the clips of a parallel apply that a killed run left, in
// this process or another) both find it dead: an exclusive test would find
// the other test's lock and take the dead run for a live one, whose task is
// not adopted, and the clip would be submitted and billed again.
func (s *fileStore) alive(_ context.Context, run string) (bool, error) {
	s.mu.Lock()
	_, own := s.runs[run]
	s.mu.Unlock()
	if own {
		return true, nil
	}
	path := s.runPath(run)
	// Opened to read (flock's default), which a shared lock needs: a journal
	// that may only be read still tells a live run from a dead one. A test
	// that fails is unreadable: taking the run for a dead one or a live one
	// would guess, and a wrong guess bills its clip twice.
	switch _, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		// No lock file, or no directory of them: no run holds a lock there.
		return false, nil
	case err != nil:
		return false, unreadable(fmt.Errorf("the task journal %s: testing the lock of run %s: %w: %s", s.path, run, err, accessAdvice))
	}
	lock := flock.New(path, flock.SetPermissions(0o600))
	ok, err := lock.TryRLock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, unreadable(fmt.Errorf("the task journal %s: testing the lock of run %s: %w: %s", s.path, run, err, accessAdvice))
	}
	if !ok {
		return true, nil
	}
	_ = os.Remove(path)
	_ = lock.Unlock()
	return false, nil
}
