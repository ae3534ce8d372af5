package journal

import "context"

// store keeps the records and the runs' liveness locks.
type store interface {
	// update calls change with the current records of sc (at least) under a
	// lock that every process sharing the store respects, and stores them
	// when it reports a change. A read is an update that changes nothing.
	update(ctx context.Context, sc scope, change func(*records) bool) error
	// hold takes run's liveness lock, for as long as the process lives or
	// until release.
	hold(ctx context.Context, run string) error
	release(run string)
	// alive reports whether the run holds its liveness lock.
	alive(ctx context.Context, run string) (bool, error)
	// where names the store for people: a file path, or a URL without its password.
	where() string
}
