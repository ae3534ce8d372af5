//go:build !linux

package bench

import (
	"context"
	"errors"
)

// Journal needs a PostgreSQL server, which the bench starts on Linux only
// (internal/pgtest).
func (r *Runner) Journal(context.Context) (*JournalResult, error) {
	return nil, errors.New("the journal case starts PostgreSQL, which the bench does on Linux only")
}
