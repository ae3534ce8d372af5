package journal

import (
	"slices"
	"sync"
)

// changeQueue holds the changes of one process's goroutines that wait for
// the store: the goroutine that gets the store's lock makes every change
// waiting at once (group commit: one append and sync in a file, one
// transaction in PostgreSQL), so that the clips of a parallel apply do not
// wait for one write each.
type changeQueue struct {
	mu      sync.Mutex
	waiting []*queuedChange
}

// queuedChange is a change waiting for its turn, and where its outcome goes.
type queuedChange struct {
	sc     scope
	change func(*records) bool
	done   chan error
}

// make queues the change, takes store (the store's lock), makes whatever is
// waiting then with commit, and returns the change's outcome: made by this
// goroutine, or by one that held store before it. commit gives each change
// of its batch its outcome, or puts it back (see putBack).
func (c *changeQueue) make(store sync.Locker, sc scope, change func(*records) bool,
	commit func(own *queuedChange, batch []*queuedChange),
) error {
	q := &queuedChange{sc: sc, change: change, done: make(chan error, 1)}
	c.mu.Lock()
	c.waiting = append(c.waiting, q)
	c.mu.Unlock()
	store.Lock()
	c.mu.Lock()
	batch := c.waiting
	c.waiting = nil
	c.mu.Unlock()
	if len(batch) > 0 {
		commit(q, batch)
	}
	store.Unlock()
	return <-q.done
}

// putBack returns the changes of batch other than own to the queue, for the
// next goroutine that takes the store's lock (each queued change's goroutine
// takes it after queueing), when own's context ended before they were made;
// what is left of batch is own, if it was there.
func (c *changeQueue) putBack(own *queuedChange, batch []*queuedChange) []*queuedChange {
	mine := slices.Contains(batch, own)
	others := slices.DeleteFunc(batch, func(q *queuedChange) bool { return q == own })
	c.mu.Lock()
	c.waiting = append(others, c.waiting...)
	c.mu.Unlock()
	if mine {
		return []*queuedChange{own}
	}
	return nil
}
