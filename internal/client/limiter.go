package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// The limiter paces every API call of one Client, so that all the resources of a
// provider process share one view of the key's rate limit instead of each fending
// for itself. Its rules:
//
//   - Pacing. A token bucket admits calls at the current rate. With
//     WithRateLimit (the provider's max_requests_per_second) the rate starts there
//     and never exceeds it; without, calls are not paced until the service first
//     answers 429, and from then on the rate is learned as below. The bucket holds
//     only a tenth of a second of calls, so that a client configured at exactly
//     the key's limit never bursts past the service's own bucket.
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
//
// Time is read through a clock so that the tests can drive it.

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

// clock is the limiter's and the waiter's source of time.
type clock interface {
	Now() time.Time
	NewTimer(d time.Duration) clockTimer
}

type clockTimer interface {
	C() <-chan time.Time
	Stop() bool
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) clockTimer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (s systemTimer) C() <-chan time.Time { return s.t.C }
func (s systemTimer) Stop() bool          { return s.t.Stop() }

type limitWaiter struct {
	ready   chan struct{}
	granted bool
}

// limiter is the state shared by every API call of one Client.
type limiter struct {
	clock    clock
	ceiling  float64 // the configured rate; 0 when none
	patience time.Duration

	mu          sync.Mutex
	rate        float64 // requests per second; 0 is unpaced
	refused     float64 // the rate the last cut refused; 0 when not climbing
	slope       float64 // recovery up to refused, in requests per second per second
	tokens      float64
	refilled    time.Time
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

func newLimiter(ceiling float64, patience time.Duration, clk clock) (*limiter, error) {
	if ceiling < 0 || math.IsNaN(ceiling) || math.IsInf(ceiling, 0) {
		return nil, fmt.Errorf("the rate limit must be a finite number of requests per second, zero or more, got %v", ceiling)
	}
	if patience < 0 {
		return nil, fmt.Errorf("the rate-limit patience must not be negative, got %s", patience)
	}
	l := &limiter{clock: clk, ceiling: ceiling, patience: patience, rate: ceiling, refilled: clk.Now()}
	l.tokens = l.burst()
	return l, nil
}

func (l *limiter) burst() float64 {
	return max(1, l.rate*burstWindow.Seconds())
}

// refill brings the bucket and the recovering rate up to now. The rate climbs
// back only while calls flow, not during a pause.
func (l *limiter) refill(now time.Time) {
	if dt := now.Sub(l.refilled).Seconds(); dt > 0 && l.rate > 0 {
		l.tokens = min(l.burst(), l.tokens+l.rate*dt)
	}
	from := l.refilled
	if l.pausedUntil.After(from) {
		from = l.pausedUntil
	}
	if dt := now.Sub(from).Seconds(); dt > 0 && l.refused > 0 {
		l.climb(dt)
	}
	if now.After(l.refilled) {
		l.refilled = now
	}
}

// climb raises the rate after a cut by dt seconds' worth: linearly up to the
// refused rate, then doubling every rateProbeDoubling.
func (l *limiter) climb(dt float64) {
	if l.rate < l.refused {
		need := (l.refused - l.rate) / l.slope
		if dt < need {
			l.rate += l.slope * dt
			return
		}
		l.rate, dt = l.refused, dt-need
	}
	l.rate *= math.Exp2(min(dt/rateProbeDoubling.Seconds(), 64))
	switch {
	case l.ceiling > 0 && l.rate >= l.ceiling:
		l.rate, l.refused = l.ceiling, 0
	case l.ceiling == 0 && l.rate >= rateUnpacedAgain:
		l.rate, l.refused = 0, 0
	}
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
			if l.rate > 0 {
				if l.tokens < 1 {
					return now.Add(time.Duration((1 - l.tokens) / l.rate * float64(time.Second)))
				}
				l.tokens--
			}
			w := l.queues[class][0]
			l.queues[class] = l.queues[class][1:]
			w.granted = true
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
		next := l.dispatch(l.clock.Now())
		if w.granted {
			l.mu.Unlock()
			return nil
		}
		now := l.clock.Now()
		l.mu.Unlock()
		timer := l.clock.NewTimer(max(next.Sub(now), 0))
		select {
		case <-w.ready:
			timer.Stop()
			return nil
		case <-ctx.Done():
			timer.Stop()
			l.mu.Lock()
			if w.granted && l.rate > 0 {
				// Hand the token back: someone else can use it.
				l.tokens++
			} else if !w.granted {
				l.remove(w)
			}
			l.dispatch(l.clock.Now())
			l.mu.Unlock()
			return ctx.Err()
		case <-timer.C():
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
		now := l.clock.Now()
		l.mu.Unlock()
		if !now.Before(until) {
			return nil
		}
		timer := l.clock.NewTimer(until.Sub(now))
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C():
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

type pausingTransport struct {
	l    *limiter
	next http.RoundTripper
}

func (t pausingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.l.awaitPause(req.Context()); err != nil {
		return nil, err
	}
	return t.next.RoundTrip(req)
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
	l.tokens = 0
	if now.Before(l.cutDone) {
		return
	}
	refused := l.rate
	if refused == 0 {
		refused = l.achievedRate(now)
	}
	l.refused = max(refused, minRate)
	l.rate = max(minRate, l.refused*rateCutFactor)
	l.slope = (l.refused - l.rate) / rateRecoveryTime.Seconds()
	l.cutDone = l.pausedUntil
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
	l.refill(l.clock.Now())
	return limiterState{Rate: l.rate, PausedUntil: l.pausedUntil, Limited: l.limited}
}

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

// limitedTransport sends API calls through the limiter. It wraps a whole
// *http.Client rather than its transport, so that the request timeout bounds
// each attempt on the wire and not the time a call waits for its turn or for a
// pause to end.
type limitedTransport struct {
	l          *limiter
	next       *http.Client
	retryWait  time.Duration // the first pause after a 429 without Retry-After
	logLimited func(ctx context.Context, fields map[string]any)
}

func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	class := classRead
	if req.Method == http.MethodPost {
		class = classSubmit
	}
	patience, _ := ctx.Value(callPatienceKey{}).(*callPatience)
	if patience == nil {
		patience = &callPatience{}
	}
	attempt := req
	for {
		if err := t.l.wait(ctx, class); err != nil {
			return nil, err
		}
		resp, err := t.next.Do(attempt) //nolint:bodyclose // returned to the caller, or closed below
		if err != nil {
			var uErr *url.Error
			if errors.As(err, &uErr) {
				// The caller's http.Client adds its own *url.Error.
				err = uErr.Err
			}
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		now := t.l.clock.Now()
		pause, hinted := parseRetryAfter(resp.Header.Get("Retry-After"), now)
		if !hinted {
			pause = t.retryWait
		}
		pause = min(pause, RetryAfterCeiling)
		t.l.rateLimited(now, pause)
		st := t.l.state()
		resend := hinted && patience.allows(now, now.Add(pause), t.l.patience) && req.GetBody != nil
		if t.logLimited != nil {
			t.logLimited(ctx, map[string]any{
				"method": req.Method, "url": req.URL.String(), "pause_ms": pause.Milliseconds(),
				"rate_per_second": st.Rate, "sent_again_by_limiter": resend,
			})
		}
		if !resend {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBytes))
		resp.Body.Close()
		attempt = req.Clone(ctx)
		if attempt.Body, err = req.GetBody(); err != nil {
			return nil, fmt.Errorf("rewinding the request body: %w", err)
		}
	}
}

// apiHTTPClient is the HTTP client of API calls: hc behind the limiter.
func (c *Client) apiHTTPClient(hc *http.Client) *http.Client {
	return &http.Client{
		Transport: &limitedTransport{
			l: c.limiter, next: hc, retryWait: c.retryWaitMin,
			logLimited: func(ctx context.Context, fields map[string]any) {
				c.log(ctx, "videogen API rate limited; every call of this provider waits", fields)
			},
		},
		CheckRedirect: hc.CheckRedirect,
	}
}
