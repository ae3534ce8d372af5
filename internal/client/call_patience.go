package client

import (
	"context"
	"sync"
	"time"
)

// callPatience follows one API call across the retry policy's attempts: the time
// of its first 429, from which the patience is counted.
type callPatience struct {
	mu          sync.Mutex
	firstLimit  time.Time
	outOfBudget bool
}

type callPatienceKey struct{}

// withCallPatience marks ctx as one API call, so that its attempts share one
// rate-limit patience.
func withCallPatience(ctx context.Context) context.Context {
	return context.WithValue(ctx, callPatienceKey{}, &callPatience{})
}

// allows reports whether a pause until `until` still fits in the call's patience
// and starts counting at its first 429.
func (p *callPatience) allows(now, until time.Time, patience time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.firstLimit.IsZero() {
		p.firstLimit = now
	}
	if p.outOfBudget || until.Sub(p.firstLimit) > patience {
		p.outOfBudget = true
		return false
	}
	return true
}
