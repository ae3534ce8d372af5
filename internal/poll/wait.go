package poll

import (
	"context"
	"time"
)

// Wait runs one Schedule against the clock, for a waiter that reads its task
// until it is final:
//
//	w := poll.NewWait(schedule)
//	defer w.End()
//	for w.Sleep(ctx) == nil {
//		... read the task; w.Finished() and return when it is done ...
//		w.Progress(p) // when the answer carried progress
//		w.Looked(retryAfter, failed)
//	}
//
// It keeps the times of the wait's looks, counted from its start, and the
// look planned next (due), which news from other waits of a Learned
// schedule's kind may move. The methods that take times (looked,
// finished, replan) hold no clock, so that the simulated batches run the same
// decisions on a virtual one.
type Wait struct {
	s     Schedule
	learn *Learned // s, when it learns; nil otherwise
	start time.Time
	looks int
	// sent is when the latest look was sent.
	sent time.Duration
	// due is when the next look is planned; replannable says it follows the
	// schedule alone, not a Retry-After or a failure, so that news from other
	// waits may move it.
	due         time.Duration
	replannable bool
	news        <-chan struct{}
	// progress is the latest answer's progress, when hasProgress.
	progress    float64
	hasProgress bool
}

// NewWait starts a wait now and plans its first look.
func NewWait(s Schedule) *Wait {
	start := time.Now()
	var origin time.Duration
	if l, ok := s.(*Learned); ok {
		origin = start.Sub(l.e.epoch)
	}
	w := newWait(s, origin)
	w.start = start
	return w
}

// newWait starts a wait at origin on its Estimator's clock (see Learned).
func newWait(s Schedule, origin time.Duration) *Wait {
	w := &Wait{s: s, replannable: true}
	if l, ok := s.(*Learned); ok {
		l.origin = origin
		w.learn, w.news = l, l.news()
	}
	w.due = s.Next(Look{})
	return w
}

// Elapsed is the time since the wait began.
func (w *Wait) Elapsed() time.Duration { return time.Since(w.start) }

// Looks is how many looks the wait has made (counted when Sleep lets one go).
func (w *Wait) Looks() int { return w.looks }

// Sleep blocks until the next look is due and counts it, or returns ctx's
// error. A Learned wait whose kind gets news (a task of the kind finished,
// or first reported progress) re-plans its next look (see replan).
func (w *Wait) Sleep(ctx context.Context) error {
	timer := time.NewTimer(w.due - w.Elapsed())
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.news:
			w.news = w.learn.news()
			elapsed := w.Elapsed()
			if at, ok := w.replan(elapsed); ok {
				timer.Reset(at - elapsed)
			}
		case <-timer.C:
			w.look(w.Elapsed())
			return nil
		}
	}
}

// Looked plans the look after one that found the task unfinished, or failed,
// and answered now with this Retry-After (zero when none).
func (w *Wait) Looked(retryAfter time.Duration, failed bool) {
	w.looked(w.sent, w.Elapsed(), retryAfter, failed)
}

// Progress says the latest look's answer reported the task p done (0 to 1);
// call it before Looked.
func (w *Wait) Progress(p float64) { w.progress, w.hasProgress = p, true }

// Finished says the latest look found the task done.
func (w *Wait) Finished() { w.finished(w.Elapsed()) }

// End says the wait is over, whichever way it ended.
func (w *Wait) End() {
	if w.learn != nil {
		w.learn.End()
	}
}

// Due is when the next look is planned, counted from the start of the wait.
func (w *Wait) Due() time.Duration { return w.due }

// look counts a look sent at.
func (w *Wait) look(at time.Duration) {
	w.looks++
	w.sent = at
}

func (w *Wait) looked(sent, at, retryAfter time.Duration, failed bool) {
	w.due = w.s.Next(Look{N: w.looks, Sent: sent, At: at, RetryAfter: retryAfter, Failed: failed,
		Progress: w.progress, HasProgress: w.hasProgress && !failed})
	w.hasProgress = false
	w.replannable = retryAfter <= 0 && !failed
}

func (w *Wait) finished(at time.Duration) {
	if w.learn != nil {
		w.learn.Finished(at)
	}
}

// sooner re-plans the next look after news from other waits of the kind:
// to the look the news calls for when it comes before the planned one, or
// whenever progress calls for it (see Learned.plan), and returns its time.
func (w *Wait) replan(elapsed time.Duration) (time.Duration, bool) {
	if w.learn == nil || !w.replannable {
		return 0, false
	}
	at, firm, ok := w.learn.plan(w.looks, elapsed)
	if !ok || at == w.due || (at > w.due && !firm) {
		return 0, false
	}
	l := w.learn
	w.due = l.e.reserve(l, l.origin+elapsed, l.origin+at) - l.origin
	return w.due, true
}
