package poll

import "time"

// Fixed is the provider's poll_interval: a look every so often, whatever the
// task and a Retry-After on a successful look say. A failed look (a rate
// limit, an outage) still waits at least as long as its Retry-After asks.
type Fixed time.Duration

var _ Schedule = Fixed(0)

// Next is the fixed interval after the latest look, or its Retry-After when
// the look failed and that is longer.
func (f Fixed) Next(l Look) time.Duration {
	d := time.Duration(f)
	if l.Failed {
		d = max(d, l.RetryAfter)
	}
	return l.At + d
}
