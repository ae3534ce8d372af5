package poll

import "time"

// Policy is the waiter's schedule. The default, DefaultPolicy, spends a
// budget of GETs: a fast start of FastPolls looks Initial apart, then one look on
// every multiple of Max since the wait began. Each wait shifts all its looks by a
// random delay of up to Jitter of the interval, drawn once, so that parallel waits
// do not poll in lockstep while each keeps exact intervals. A Retry-After header on
// a poll is honoured: on a successful poll it replaces the schedule's next interval
// (unless Fixed is set), and on a failed poll (429, 503) it is the least the waiter
// waits. Waits of a known kind may look elsewhere (see Learned).
type Policy struct {
	// Initial is the interval of the fast start, and the least a Retry-After on a
	// successful poll can make the waiter wait.
	Initial time.Duration
	// FastPolls is how many polls the fast start makes, Initial apart.
	FastPolls int
	// Max caps the interval. After the fast start the waiter polls on the multiples
	// of Max since the wait began (with the defaults: at 4 s, 8 s, 12 s...), so the
	// interval grows from Initial to Max within one step and a long wait costs one
	// GET per Max.
	Max time.Duration
	// Jitter is the largest shift of a wait's looks, as a fraction of the interval:
	// each wait draws a fraction u in [0, 1) once and looks u*Jitter*Initial after
	// each mark of the fast start and u*Jitter*Max after each later mark.
	Jitter float64
	// Fixed, when positive, replaces the adaptive schedule with a constant interval
	// (the provider's poll_interval). It also overrides a Retry-After hint on a
	// successful poll, but never shortens the wait that a rate-limited poll asks for.
	Fixed time.Duration
	// MaxConsecutiveErrors is how many transient GET failures in a row (each after its
	// own retries) the waiter tolerates before giving up.
	MaxConsecutiveErrors int
	// Rate, when positive, is how many looks per second the waits of one
	// Estimator plan at most, all kinds together: the key's rate limit, so
	// that a batch whose looks a finish re-plans does not meet it in a burst.
	// Waits without a kind are not counted.
	Rate float64
}

// DefaultPolicy is five looks 0.45 s apart, then one look every 4 s, shifted
// by up to 10% of the interval. It is the schedule of a wait that knows nothing
// about its task; a wait of a known kind replaces it with looks around the
// finish time learned from earlier tasks of that kind, when there is a
// trustworthy estimate (see Learned and Estimator). The constants come from
// two goals, stated for every generation time T: notice a finished clip within
// max(0.5 s, 10% of T), and make at most 1.25 x T/5 s + 6 GETs (25% more than a
// loop polling every 5 s, plus six for a fast start).
//
//   - Initial 450 ms: the longest interval that, shifted by up to 10%, still makes
//     the first look within 0.5 s; later looks are exactly 0.45 s apart.
//   - FastPolls 5: the six GETs of the allowance, less the one that finds the clip.
//     The fast start covers the first 2.25 s.
//   - Max 4 s: the allowance's long-run rate, 1.25 GETs per 5 s. A long clip is
//     noticed within 4 s (2 s on average, against 2.5 s for a sleep-5 loop), which
//     meets the 10% goal from T = 40 s on.
//   - Polling on the multiples of Max, rather than Max after the fast start, spends
//     the allowance as soon as it accrues: no schedule within the budget looks sooner.
//     The shift only ever delays a look, so it never overspends.
//
// Between about 2.5 s and 40 s the two goals cannot both hold: noticing a 10 s clip
// within 1 s needs a look at least every second up to then, about 10 GETs against
// 8.5 allowed. The waiter keeps the GET budget there, because the rate limit is
// shared by every clip under one key, and notices such clips within 4 s.
func DefaultPolicy() Policy {
	return Policy{
		Initial: 450 * time.Millisecond, FastPolls: 5, Max: 4 * time.Second,
		Jitter: 0.1, MaxConsecutiveErrors: 3,
	}
}

// Schedule returns the schedule of one wait whose shift fraction is u: Fixed
// when the policy sets a fixed interval, Learned when the wait's kind is known
// to e (kind non-nil, see Estimator), Budgeted otherwise.
func (p Policy) Schedule(e *Estimator, kind Kind, u float64) Schedule {
	switch {
	case p.Fixed > 0:
		return Fixed(p.Fixed)
	case e != nil && kind != nil:
		return e.Learned(kind, p, u)
	default:
		return p.Budgeted(u)
	}
}

// Looks returns when the first n polls of a wait happen, counted from its start,
// for a wait that is not shifted, gets no Retry-After and whose polls take no time.
func (p Policy) Looks(n int) []time.Duration {
	return looks(p.Schedule(nil, nil, 0), n)
}

// looks runs a schedule alone: the times of its first n looks, each finding
// the task unfinished and taking no time.
func looks(s Schedule, n int) []time.Duration {
	out := make([]time.Duration, 0, n)
	var at time.Duration
	for i := range n {
		at = s.Next(Look{N: i, Sent: at, At: at})
		out = append(out, at)
	}
	return out
}

// nextMark is the schedule's next poll time, counted from the start of the wait,
// for a wait whose shift fraction is u: the first mark after last (the mark of the
// previous poll) that is at least Initial/2 from now. Skipping marks that are too
// close means that after a slow poll or a long Retry-After the schedule resumes
// instead of catching up in a burst.
func (p Policy) nextMark(last, elapsed time.Duration, u float64) time.Duration {
	return p.markFrom(max(last+1, elapsed+p.Initial/2), u)
}

// markFrom is the schedule's first mark at or after t for a wait whose shift
// fraction is u: on the fast start's grid while it lasts, then on Max's.
func (p Policy) markFrom(t time.Duration, u float64) time.Duration {
	fast := p.shift(p.Initial, u)
	if t <= time.Duration(p.FastPolls)*p.Initial+fast || p.Max <= 0 {
		return onGrid(t, p.Initial, fast)
	}
	return onGrid(t, p.Max, p.shift(p.Max, u))
}

// shift is how much a wait whose shift fraction is u delays a look that comes
// interval after the one before.
func (p Policy) shift(interval time.Duration, u float64) time.Duration {
	return time.Duration(u * p.Jitter * float64(interval))
}

// onGrid returns the first of unit+offset, 2*unit+offset, ... at or after t.
func onGrid(t, unit, offset time.Duration) time.Duration {
	if unit <= 0 {
		return t
	}
	n := max(int64((t-offset+unit-1)/unit), 1)
	return time.Duration(n)*unit + offset
}

// delay says how long to wait after a poll made elapsed into the wait, and the
// mark that wait aims at (last is the previous poll's mark, u the wait's shift
// fraction). hint is the poll's Retry-After (zero when absent), and failed says
// the poll got an error response rather than a task.
func (p Policy) delay(last, elapsed time.Duration, u float64, hint time.Duration, failed bool) (time.Duration, time.Duration) {
	mark := p.nextMark(last, elapsed, u)
	d := mark - elapsed
	switch {
	case hint <= 0:
	case failed:
		d = max(d, hint)
	default:
		// A hint on a successful poll replaces the schedule, never below Initial,
		// and is shifted like the schedule's looks, later only, so that it is never
		// undercut. The schedule then resumes at the first mark after the hinted
		// poll. The caller bounds the hint (client.RetryAfterCeiling).
		d = max(hint, p.Initial)
		d += p.shift(d, u)
		mark = last
	}
	return d, mark
}

// budget is how many looks a wait may have made by t, the one that finds the
// clip included: the fast start, one more, and one per Max since the start.
// With DefaultPolicy that is the 1.25 × t/5 s + 6 of its comment.
func (p Policy) budget(t time.Duration) float64 {
	if p.Max <= 0 {
		return float64(p.FastPolls + 1)
	}
	return float64(p.FastPolls+1) + float64(t)/float64(p.Max)
}

// pace is the earliest time, counted from the start of a wait, of its n-th
// look: when the budget reaches n. A wait that keeps it makes, for a clip that
// finishes at any time T after its previous look, less than one GET more than
// budget(T), since that look came at most Max before T. The default schedule
// keeps one look inside it (its n-th look comes Max after the pace), which is
// the slack learned looks may spend: a learned look is made only at or after
// its pace, and the default schedule resumes after learned looks at the first
// of its marks that keeps it.
func (p Policy) pace(n int) time.Duration {
	if p.Max <= 0 || n <= p.FastPolls+1 {
		return 0
	}
	return time.Duration(n-p.FastPolls-1) * p.Max
}

// defaultMark is when the default schedule, unshifted, makes its n-th look:
// on the fast start's grid, then on Max's.
func (p Policy) defaultMark(n int) time.Duration {
	if n <= p.FastPolls {
		return time.Duration(n) * p.Initial
	}
	return time.Duration(n-p.FastPolls) * p.Max
}
