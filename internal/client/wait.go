package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// PollPolicy is the waiter's schedule. The default, DefaultPollPolicy, spends a
// budget of GETs: a fast start of FastPolls looks Initial apart, then one look on
// every multiple of Max since the wait began. Each wait shifts all its looks by a
// random delay of up to Jitter of the interval, drawn once, so that parallel waits
// do not poll in lockstep while each keeps exact intervals. A Retry-After header on
// a poll is honoured: on a successful poll it replaces the schedule's next interval
// (unless Fixed is set), and on a failed poll (429, 503) it is the least the waiter
// waits. Waits of a known kind may look elsewhere (see learnedLook).
type PollPolicy struct {
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
}

// DefaultPollPolicy is five looks 0.45 s apart, then one look every 4 s, shifted
// by up to 10% of the interval. It is the schedule of a wait that knows nothing
// about its task; a wait given its task's kind (WithKind) replaces it with looks
// around the finish time learned from earlier tasks of that kind, when there is a
// trustworthy estimate (see learnedLook and estimator.go). The constants come from
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
func DefaultPollPolicy() PollPolicy {
	return PollPolicy{
		Initial: 450 * time.Millisecond, FastPolls: 5, Max: 4 * time.Second,
		Jitter: 0.1, MaxConsecutiveErrors: 3,
	}
}

// Looks returns when the first n polls of a wait happen, counted from its start,
// for a wait that is not shifted, gets no Retry-After and whose polls take no time.
func (p PollPolicy) Looks(n int) []time.Duration {
	out := make([]time.Duration, 0, n)
	var at, mark time.Duration
	for range n {
		var d time.Duration
		d, mark = p.delay(mark, at, 0, 0, false)
		at += d
		out = append(out, at)
	}
	return out
}

// nextMark is the schedule's next poll time, counted from the start of the wait,
// for a wait whose shift fraction is u: the first mark after last (the mark of the
// previous poll) that is at least Initial/2 from now. Skipping marks that are too
// close means that after a slow poll or a long Retry-After the schedule resumes
// instead of catching up in a burst.
func (p PollPolicy) nextMark(last, elapsed time.Duration, u float64) time.Duration {
	earliest := max(last+1, elapsed+p.Initial/2)
	shift := func(interval time.Duration) time.Duration { return time.Duration(u * p.Jitter * float64(interval)) }
	fast := shift(p.Initial)
	if earliest <= time.Duration(p.FastPolls)*p.Initial+fast || p.Max <= 0 {
		return onGrid(earliest, p.Initial, fast)
	}
	return onGrid(earliest, p.Max, shift(p.Max))
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
func (p PollPolicy) delay(last, elapsed time.Duration, u float64, hint time.Duration, failed bool) (time.Duration, time.Duration) {
	if p.Fixed > 0 {
		if failed {
			// A rate limit or an outage: never come back sooner than asked.
			return max(p.Fixed, hint), last
		}
		return p.Fixed, last
	}
	mark := p.nextMark(last, elapsed, u)
	d := mark - elapsed
	switch {
	case hint <= 0:
	case failed:
		d = max(d, hint)
	default:
		// A hint on a successful poll replaces the schedule, within sane bounds, and is
		// shifted like the schedule's looks, later only, so that it is never undercut.
		// The schedule then resumes at the first mark after the hinted poll.
		d = min(max(hint, p.Initial), RetryAfterCeiling)
		d += time.Duration(u * p.Jitter * float64(d))
		mark = last
	}
	return d, mark
}

// learnedLooks is how many intervals the looks of a learned wait divide the
// finish window into.
const learnedLooks = 3

// learnedLook returns the next look after elapsed for a task expected to finish
// within w, for a wait that may make spare more looks up to the window's end
// and still keep one in hand (see learnedNext). The looks are evenly spaced,
// learnedLooks intervals across the window, from its start to past its end.
// None is made before the window, since such a look would cost nearly every
// wait a GET; a window that starts too late is moved down by the estimator
// instead (see predict). A task slower than every one observed then gets looks
// whose gaps double from the spacing up to Max, and after them (false) the
// default schedule takes over. Every look is shifted like the default
// schedule's.
//
// The spacing is at most Max and at least a third of Initial, so that clips of
// a few seconds are looked at every few tenths of a second around their finish.
// A wait with looks to spare spreads them over what is left of the window; one
// with none (a wait that spent its fast start before anything was learned) keeps
// its looks at least a fifteenth of the window's start apart, so that a kind
// that takes a minute gets no more looks per second than the default schedule
// gives it, since GETs are shared by every clip under the key. Inside the
// window, looks not at least twice as dense as the default schedule's are not
// made: they would only spend the budget's slack and push the default's next
// mark on, and the default schedule notices such clips as soon.
func (p PollPolicy) learnedLook(w finishWindow, elapsed time.Duration, u float64, spare int) (time.Duration, bool) {
	floor := w.from / 15
	if spare > 0 {
		floor = (w.to - max(elapsed, w.from)) / time.Duration(spare)
	}
	minSpacing := max(p.Initial/3, floor)
	spacing := min(max((w.to-w.from)/learnedLooks, minSpacing), max(p.Max, minSpacing))
	if spacing <= 0 || (spacing > p.Max/2 && elapsed >= w.from) {
		return 0, false
	}
	first := w.from + time.Duration(u*p.Jitter*float64(spacing))
	earliest := elapsed + spacing/2
	if earliest <= first {
		return first, true
	}
	// Whole numbers of spacings: the looks stay on one grid.
	last := first + time.Duration(int64((w.to+spacing-w.from)/spacing))*spacing
	if earliest <= last {
		return first + time.Duration(int64((earliest-first+spacing-1)/spacing))*spacing, true
	}
	for gap := spacing; gap <= p.Max; gap *= 2 {
		last += gap
		if earliest <= last {
			return last, true
		}
	}
	return 0, false
}

// nextPoll is the delay before a wait's next look, and the mark of the default
// schedule that it keeps (see delay). polls is how many looks the wait has made.
// A wait of a known kind whose estimate deserves trust looks around the
// predicted finish (learnedNext); a Retry-After or a failed look always goes
// through the default rules. Without a Retry-After, no look comes before its
// pace, whichever schedule planned it.
func (c *Client) nextPoll(o waitOptions, polls int, last, elapsed time.Duration, u float64, hint time.Duration, failed bool) (time.Duration, time.Duration) {
	// A learned look comes before the default mark planned for it: the default
	// schedule resumes from the look, not from a mark that never happened, or
	// every learned look would push its next mark one interval further out.
	last = min(last, elapsed)
	if hint > 0 || failed {
		return c.poll.delay(last, elapsed, u, hint, failed)
	}
	if at, ok := c.learnedNext(o, polls, elapsed, u); ok {
		return at - elapsed, last
	}
	d, mark := c.poll.delay(last, elapsed, u, 0, false)
	if pace := c.poll.pace(polls + 1); c.poll.Fixed <= 0 && elapsed+d < pace {
		// Learned looks came early: the default schedule resumes at the first of
		// its marks that keeps the pace.
		mark = c.poll.nextMark(last, pace-c.poll.Initial/2, u)
		d = mark - elapsed
	}
	return d, mark
}

// learnedNext is the next learned look of a wait that has made polls looks, or
// false when the wait keeps the default schedule: it has no kind, the estimate
// is not trusted, the learned looks are behind it, the look would come before
// its pace, or it would leave the wait no look for the default schedule's next
// mark after it. The pace keeps learning from costing GETs where tasks of one
// kind turn out to take very different times; the look kept in hand means that
// a clip slower than every one seen so far is noticed no later than the default
// schedule would notice it, instead of at the pace after the learned looks
// (which for clips of 2 s is 4 s).
func (c *Client) learnedNext(o waitOptions, polls int, elapsed time.Duration, u float64) (time.Duration, bool) {
	if o.kind == nil {
		return 0, false
	}
	w, ok := c.learner.window(*o.kind)
	if !ok {
		return 0, false
	}
	at, ok := c.poll.learnedLook(w, elapsed, u, int(c.poll.budget(w.to))-polls-1)
	if !ok || at < c.poll.pace(polls+1) {
		return 0, false
	}
	// nextMark skips marks within Initial/2 of its elapsed: from at-Initial/2 it
	// returns the default schedule's first mark after the look.
	if mark := c.poll.nextMark(at, at-c.poll.Initial/2, u); c.poll.pace(polls+2) > mark {
		return 0, false
	}
	return at, true
}

// budget is how many looks a wait may have made by t, the one that finds the
// clip included: the fast start, one more, and one per Max since the start.
// With DefaultPollPolicy that is the 1.25 × t/5 s + 6 of its comment.
func (p PollPolicy) budget(t time.Duration) float64 {
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
func (p PollPolicy) pace(n int) time.Duration {
	if p.Max <= 0 || n <= p.FastPolls+1 {
		return 0
	}
	return time.Duration(n-p.FastPolls-1) * p.Max
}

// WaitError says why a wait ended without a final state, and what was last seen.
type WaitError struct {
	TaskID     string
	LastStatus Status
	Elapsed    time.Duration
	Polls      int
	Err        error
}

func (e *WaitError) Error() string {
	last := string(e.LastStatus)
	if last == "" {
		last = "unknown (no successful poll)"
	}
	return fmt.Sprintf("stopped waiting for task %s after %s and %d polls; last status seen: %s: %v",
		e.TaskID, e.Elapsed.Round(100*time.Millisecond), e.Polls, last, e.Err)
}

func (e *WaitError) Unwrap() error { return e.Err }

// Interrupted reports whether the wait ended by its deadline or a cancellation
// rather than by an error from the service.
func (e *WaitError) Interrupted() bool {
	// A request timeout also wraps context.DeadlineExceeded, but it is the service
	// hanging, not the caller's deadline.
	var tErr *TransportError
	if errors.As(e.Err, &tErr) {
		return false
	}
	return errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, context.Canceled)
}

// TaskFailedError is a task that reached the final state "failed".
type TaskFailedError struct {
	TaskID string
	Reason string
}

func (e *TaskFailedError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("task %s failed; the service gave no reason", e.TaskID)
	}
	return fmt.Sprintf("task %s failed: %s", e.TaskID, e.Reason)
}

// WaitOption customises one WaitForVideo.
type WaitOption func(*waitOptions)

type waitOptions struct {
	kind *TaskKind
}

// WithKind says what kind of task the wait is for (see KindOf), so that the
// waiter learns from it and from earlier waits of the same kind: the looks of
// later waits go around the time such tasks were seen to finish instead of on
// the default schedule. Times are counted from the start of the wait, so pass it
// only to a wait that begins right after the task's submission, not to one that
// picks up an older task. It has no effect with a fixed poll interval.
func WithKind(k TaskKind) WaitOption { return func(o *waitOptions) { o.kind = &k } }

// WaitForVideo polls a task until it succeeds or fails, ctx ends, or the service
// keeps failing. It returns the last task state it saw alongside any error: a
// *TaskFailedError for a failed task, a *WaitError otherwise.
func (c *Client) WaitForVideo(ctx context.Context, taskID string, opts ...WaitOption) (*Video, error) {
	var o waitOptions
	for _, opt := range opts {
		opt(&o)
	}
	if c.poll.Fixed > 0 {
		o.kind = nil
	}
	start := time.Now()
	var last *Video
	var plan *waitPlan
	consecutiveErrors := 0
	stop := func(err error) (*Video, error) {
		w := &WaitError{TaskID: taskID, Elapsed: time.Since(start), Polls: plan.polls, Err: err}
		if last != nil {
			w.LastStatus = last.Status
		}
		return last, w
	}

	u := 0.0
	if c.poll.Jitter > 0 {
		u = rand.Float64()
	}
	plan = c.newWaitPlan(o, u)
	defer plan.end()
	timer := time.NewTimer(plan.due)
	defer timer.Stop()
	var learned <-chan struct{}
	if o.kind != nil {
		learned = c.learner.changes(*o.kind)
	}
	for {
		select {
		case <-ctx.Done():
			return stop(ctx.Err())
		case <-learned:
			// A task of the same kind just finished: the estimate may now put this
			// wait's next look sooner than planned.
			learned = c.learner.changes(*o.kind)
			elapsed := time.Since(start)
			if at, ok := plan.sooner(elapsed); ok {
				timer.Reset(at - elapsed)
			}
			continue
		case <-timer.C:
		}
		sentAt := time.Since(start)
		v, hint, err := c.getVideoWithHint(ctx, taskID)
		plan.polls++
		switch {
		case ctx.Err() != nil:
			return stop(ctx.Err())
		case err != nil && IsTransient(err) && consecutiveErrors < c.poll.MaxConsecutiveErrors:
			consecutiveErrors++
			c.log(ctx, "videogen wait: transient error, polling again", map[string]any{"task_id": taskID, "error": err.Error()})
		case err != nil:
			return stop(err)
		default:
			consecutiveErrors = 0
			last = v
			// Cancelled and expired tasks end the wait like failed ones; an unknown
			// status does not, since the clip may yet arrive.
			switch {
			case v.Status.Usable():
				plan.finished(time.Since(start))
				return v, nil
			case v.Status.Final():
				return v, &TaskFailedError{TaskID: taskID, Reason: v.FailureReason}
			}
			plan.unfinished(sentAt)
		}
		elapsed := time.Since(start)
		delay := plan.next(elapsed, hint, err != nil)
		c.log(ctx, "videogen wait: polling again", map[string]any{
			"task_id": taskID, "polls": plan.polls, "next_poll_ms": delay.Milliseconds(), "retry_after_ms": hint.Milliseconds(),
		})
		timer.Reset(delay)
	}
}

// getVideoWithHint is GetVideo that also returns the response's Retry-After, or
// zero when it had none.
func (c *Client) getVideoWithHint(ctx context.Context, taskID string) (*Video, time.Duration, error) {
	v, header, err := c.getVideo(ctx, taskID)
	var hint time.Duration
	if d, ok := parseRetryAfter(header.Get("Retry-After"), time.Now()); ok {
		hint = d
	}
	return v, hint, err
}
