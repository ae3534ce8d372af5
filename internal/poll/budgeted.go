package poll

import "time"

// Budgeted is the default schedule of one wait (see DefaultPolicy): the fast
// start, then the multiples of Max, all shifted by the wait's fraction u, with
// no look before its pace.
type Budgeted struct {
	p Policy
	u float64
	// mark is the mark the latest planned look aimed at (see Policy.delay).
	mark time.Duration
}

var _ Schedule = (*Budgeted)(nil)

// Budgeted returns the default schedule of a wait whose shift fraction is u.
func (p Policy) Budgeted(u float64) *Budgeted { return &Budgeted{p: p, u: u} }

// Next follows the policy's marks. A Retry-After or a failed look goes through
// the policy's rules for them; otherwise no look comes before its pace, which
// only learned looks that came early (see Learned) can make the marks undercut:
// the schedule then resumes at the first of its marks that keeps the pace.
func (b *Budgeted) Next(l Look) time.Duration {
	// A learned look comes before the default mark planned for it: the default
	// schedule resumes from the look, not from a mark that never happened, or
	// every learned look would push its next mark one interval further out.
	last := min(b.mark, l.At)
	d, mark := b.p.delay(last, l.At, b.u, l.RetryAfter, l.Failed)
	if pace := b.p.pace(l.N + 1); l.RetryAfter <= 0 && !l.Failed && l.At+d < pace {
		mark = b.p.markFrom(max(last+1, pace), b.u)
		d = mark - l.At
	}
	b.mark = mark
	return l.At + d
}

// resumeFrom says that the wait looked at at, before the mark planned for it
// (a learned look), so that the marks resume from there.
func (b *Budgeted) resumeFrom(at time.Duration) { b.mark = min(b.mark, at) }
