package client

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// The limiter paces every API call of one Client, so that all the resources of a
// provider process share one view of the key's rate limit instead of each fending
// for itself. Its rules:
//
//   - Pacing. A token bucket (golang.org/x/time/rate) admits calls at the
//     current rate. With WithRateLimit (the provider's max_requests_per_second)
//     the rate starts there and never exceeds it; without, calls are not paced
//     until the service first answers 429, and from then on the rate is learned
//     as below. The bucket holds only a tenth of a second of calls (at least
//     one), so that a client configured at exactly the key's limit never bursts
//     past the service's own bucket.
//   - Submissions first. A waiting submission (POST) always takes the next token
//     before any read. Reads cannot starve in return: Terraform's parallelism
//     bounds how many submissions can be waiting, and each resource submits once.
//   - Shared pause. A 429 with Retry-After holds back every call of the client,
//     not only the one refused, until the time it names (at most
//     RetryAfterCeiling). A 429 without Retry-After pauses for the first step of
//     the retry back-off.
//   - Cut and recovery. The first 429 of a pause halves the rate (when none was
//     set, the rate achieved over the last second, or since the first call when
//     that is shorter) and the rate then climbs back linearly, reaching the
//     refused rate again after rateRecoveryTime; further 429s of the same pause
//     do not cut again. Past the refused rate, up to the configured one if any,
//     the rate doubles every rateProbeDoubling until the next 429: a rate that
//     was refused when it was already low (the key's allowance spent by another
//     client, or a run of 429s that cut it to minRate) says little about the
//     key's limit, and a linear climb from there would take minutes. An unpaced
//     client whose rate climbs past rateUnpacedAgain is unpaced again.
//   - Patience. A call refused with a 429 that carries Retry-After is sent again,
//     after the pause, by the limiter itself, for up to the rate-limit patience
//     (DefaultRateLimitPatience) from its first 429: a rate limit is tolerated
//     for that long whatever max_retries says, and a Retry-After of one second
//     does not use up the retries in seconds. Re-sending a refused POST is safe:
//     a 429 means the service did nothing. After the patience, or for a 429
//     without Retry-After, the 429 goes to the retry policy (max_retries).
//   - Downloads. Clip downloads go to the clip host, not to the API: they take no
//     tokens, but wait out a pause like every call (see sharePauses).

// DefaultRateLimitPatience is how long one API call keeps being sent again after
// 429 answers that carry Retry-After, counted from its first 429.
const DefaultRateLimitPatience = 5 * time.Minute

const (
	// rateCutFactor multiplies the rate on the first 429 of a pause.
	rateCutFactor = 0.5
	// rateRecoveryTime is how long the rate takes to climb back from a cut to
	// the rate that was refused.
	rateRecoveryTime = 10 * time.Second
	// rateProbeDoubling is how often the rate doubles once it has climbed back
	// past the refused rate.
	rateProbeDoubling = time.Second
	// rateUnpacedAgain is the rate, in requests per second, past which a client
	// without a configured rate stops pacing: no key's limit has been felt
	// there.
	rateUnpacedAgain = 10000
	// minRate is the least rate a cut leaves, in requests per second; below it
	// the service's pauses do the limiting.
	minRate = 0.5
	// burstWindow is how much of a second's calls the bucket holds.
	burstWindow = 100 * time.Millisecond
	// rateSlots and rateSlot measure the achieved rate over the last second.
	rateSlots = 10
	rateSlot  = time.Second / rateSlots
)

// WithRateLimit caps the client's API calls at rps requests per second; 0, the
// default, leaves them unpaced until the service answers 429.
func WithRateLimit(rps float64) Option { return func(c *Client) { c.rateLimit = rps } }

// WithRateLimitPatience sets how long one API call keeps being sent again after
// 429 answers that carry Retry-After (DefaultRateLimitPatience by default).
func WithRateLimitPatience(d time.Duration) Option {
	return func(c *Client) { c.rateLimitPatience = d }
}

// requestClass orders the waiting calls: lower classes are served first.
type requestClass int

const (
	classSubmit requestClass = iota
	classRead
	numClasses
)

// limitWaiter is one call waiting in the limiter's queues. A grant closes
// ready; token is the bucket's reservation for it (nil while unpaced), which a
// call that gives up before it is sent cancels.
type limitWaiter struct {
	ready   chan struct{}
	granted bool
	token   *rate.Reservation
}

// limiter is the state shared by every API call of one Client. The bucket is
// golang.org/x/time/rate's; the limiter owns what the bucket does not know:
// the queues that put submissions first, the pause every call shares, and the
// rate's cut and climb, which it sets on the bucket as time passes (SetLimitAt).
// Time is time.Now and time's timers, like the waiter's (internal/poll): the
// tests run both in a synctest bubble.
type limiter struct {
	ceiling  float64 // the configured rate; 0 when none
	patience time.Duration

	mu      sync.Mutex
	rate    float64       // requests per second; 0 is unpaced
	bucket  *rate.Limiter // at rate, holding burstWindow of it; nil while unpaced
	refused float64       // the rate the last cut refused; 0 when not climbing
	slope   float64       // recovery up to refused, in requests per second per second
	// climbed is how far the climb has been brought up to date.
	climbed     time.Time
	pausedUntil time.Time
	// cutDone marks the end of the pause whose 429 cut the rate: 429s before it
	// belong to the same episode.
	cutDone time.Time
	queues  [numClasses][]*limitWaiter
	// admitted counts grants per rateSlot over the last second, for the first
	// cut of an unpaced client; firstAdmitted is the first grant ever.
	admitted      [rateSlots]int
	admittedSlot  int64
	firstAdmitted time.Time
	limited       int // 429s seen, for logs
}

func newLimiter(ceiling float64, patience time.Duration) (*limiter, error) {
	if ceiling < 0 || math.IsNaN(ceiling) || math.IsInf(ceiling, 0) {
		return nil, fmt.Errorf("the rate limit must be a finite number of requests per second, zero or more, got %v", ceiling)
	}
	if patience < 0 {
		return nil, fmt.Errorf("the rate-limit patience must not be negative, got %s", patience)
	}
	now := time.Now()
	l := &limiter{ceiling: ceiling, patience: patience, climbed: now}
	l.setRate(now, ceiling)
	return l, nil
}

// burst is how many calls the bucket holds at rate r: burstWindow's worth,
// at least one.
func burst(r float64) int {
	return max(1, int(r*burstWindow.Seconds()))
}

// setRate paces calls at r from now on; 0 stops pacing. A bucket created
// for a client that was unpaced starts full.
func (l *limiter) setRate(now time.Time, r float64) {
	l.rate = r
	switch {
	case r == 0:
		l.bucket = nil
	case l.bucket == nil:
		l.bucket = rate.NewLimiter(rate.Limit(r), burst(r))
	default:
		l.bucket.SetLimitAt(now, rate.Limit(r))
		l.bucket.SetBurstAt(now, burst(r))
	}
}

// refill brings the recovering rate up to now. The rate climbs back only
// while calls flow, not during a pause.
func (l *limiter) refill(now time.Time) {
	from := l.climbed
	if l.pausedUntil.After(from) {
		from = l.pausedUntil
	}
	if dt := now.Sub(from).Seconds(); dt > 0 && l.refused > 0 {
		l.setRate(now, l.climb(dt))
	}
	if now.After(l.climbed) {
		l.climbed = now
	}
}

// climb is the rate after a cut once dt more seconds have passed: linearly up
// to the refused rate, then doubling every rateProbeDoubling. It ends the
// climb at the configured rate, or, for an unpaced client, past
// rateUnpacedAgain, where it is unpaced again.
func (l *limiter) climb(dt float64) float64 {
	r := l.rate
	if r < l.refused {
		need := (l.refused - r) / l.slope
		if dt < need {
			return r + l.slope*dt
		}
		r, dt = l.refused, dt-need
	}
	r *= math.Exp2(min(dt/rateProbeDoubling.Seconds(), 64))
	switch {
	case l.ceiling > 0 && r >= l.ceiling:
		r, l.refused = l.ceiling, 0
	case l.ceiling == 0 && r >= rateUnpacedAgain:
		r, l.refused = 0, 0
	}
	return r
}

// dispatch grants tokens to the waiting calls, submissions first, and returns
// when the next grant can happen (the zero time when nobody waits).
func (l *limiter) dispatch(now time.Time) time.Time {
	l.refill(now)
	for class := range l.queues {
		for len(l.queues[class]) > 0 {
			if now.Before(l.pausedUntil) {
				return l.pausedUntil
			}
			var token *rate.Reservation
			if l.bucket != nil {
				token = l.bucket.ReserveN(now, 1)
				if d := token.DelayFrom(now); d > 0 {
					// Not yet: the submission-first order is decided when the token
					// is there, so nobody holds a reservation while waiting.
					token.CancelAt(now)
					return now.Add(d)
				}
			}
			w := l.queues[class][0]
			l.queues[class] = l.queues[class][1:]
			w.granted, w.token = true, token
			close(w.ready)
			l.countAdmission(now)
		}
	}
	return time.Time{}
}

func (l *limiter) enqueue(class requestClass) *limitWaiter {
	w := &limitWaiter{ready: make(chan struct{})}
	l.queues[class] = append(l.queues[class], w)
	return w
}

func (l *limiter) remove(w *limitWaiter) {
	for class, q := range l.queues {
		for i, x := range q {
			if x == w {
				l.queues[class] = append(q[:i:i], q[i+1:]...)
				return
			}
		}
	}
}

// wait blocks until the call may be sent, or ctx ends.
func (l *limiter) wait(ctx context.Context, class requestClass) error {
	l.mu.Lock()
	w := l.enqueue(class)
	for {
		next := l.dispatch(time.Now())
		if w.granted {
			l.mu.Unlock()
			return nil
		}
		now := time.Now()
		l.mu.Unlock()
		timer := time.NewTimer(max(next.Sub(now), 0))
		select {
		case <-w.ready:
			timer.Stop()
			return nil
		case <-ctx.Done():
			timer.Stop()
			l.mu.Lock()
			now := time.Now()
			if w.granted && w.token != nil {
				// Hand the token back, so that someone else can use it, unless its
				// time has passed: then the bucket counts it as spent.
				w.token.CancelAt(now)
			} else if !w.granted {
				l.remove(w)
			}
			l.dispatch(now)
			l.mu.Unlock()
			return ctx.Err()
		case <-timer.C:
		}
		l.mu.Lock()
	}
}

// awaitPause blocks while the service has asked every call to hold back. Clip
// downloads call it before each attempt: they share the service's pauses but
// take no tokens.
func (l *limiter) awaitPause(ctx context.Context) error {
	for {
		l.mu.Lock()
		until := l.pausedUntil
		now := time.Now()
		l.mu.Unlock()
		if !now.Before(until) {
			return nil
		}
		timer := time.NewTimer(until.Sub(now))
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// sharePauses wraps the transport of clip downloads: each attempt first waits
// out a pause the service asked for (awaitPause), and takes no token.
func (l *limiter) sharePauses(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return pausingTransport{l: l, next: next}
}

func (l *limiter) countAdmission(now time.Time) {
	if l.firstAdmitted.IsZero() {
		l.firstAdmitted = now
	}
	l.admitted[l.advanceSlots(now)%rateSlots]++
}

// achievedRate is the rate of the calls admitted over the last second, or
// over the time since the first call when that is shorter (but at least one
// rateSlot). The first 429 often comes within moments of the first call, as
// soon as the service's burst is spent: three calls in those moments are a
// rate of tens per second, not three, and taking them for three would leave
// the rate cut to a crawl from which it climbs back only by a fraction of a
// call per second.
func (l *limiter) achievedRate(now time.Time) float64 {
	l.advanceSlots(now)
	total := 0
	for _, n := range l.admitted {
		total += n
	}
	window := min(time.Second, max(now.Sub(l.firstAdmitted), rateSlot))
	return float64(total) / window.Seconds()
}

// advanceSlots empties the slots that fell out of the last second and returns
// the current one.
func (l *limiter) advanceSlots(now time.Time) int64 {
	slot := now.UnixNano() / int64(rateSlot)
	if gap := slot - l.admittedSlot; gap > 0 {
		for i := int64(1); i <= min(gap, rateSlots); i++ {
			l.admitted[(l.admittedSlot+i)%rateSlots] = 0
		}
		l.admittedSlot = slot
	}
	return slot
}

// rateLimited records a 429 answered at now that asks for a pause of d: every
// call waits until then, and the first 429 of a pause cuts the rate.
func (l *limiter) rateLimited(now time.Time, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill(now)
	l.limited++
	if until := now.Add(d); until.After(l.pausedUntil) {
		l.pausedUntil = until
	}
	if !now.Before(l.cutDone) {
		refused := l.rate
		if refused == 0 {
			refused = l.achievedRate(now)
		}
		l.refused = max(refused, minRate)
		cut := max(minRate, l.refused*rateCutFactor)
		l.slope = (l.refused - cut) / rateRecoveryTime.Seconds()
		l.setRate(now, cut)
		l.cutDone = l.pausedUntil
	}
	// The service's bucket is empty; so is ours, but for a fraction of a call
	// (a bucket the cut just made starts full).
	if l.bucket != nil {
		if n := int(l.bucket.TokensAt(now)); n > 0 {
			l.bucket.ReserveN(now, n)
		}
	}
}

// limiterState is what the limiter's tests and logs look at.
type limiterState struct {
	Rate        float64
	PausedUntil time.Time
	Limited     int
}

func (l *limiter) state() limiterState {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill(time.Now())
	return limiterState{Rate: l.rate, PausedUntil: l.pausedUntil, Limited: l.limited}
}
