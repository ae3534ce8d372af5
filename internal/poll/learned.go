package poll

import "time"

// The learned looks' constants. Each trades latency around a predicted finish
// against the GET budget that every clip under one key shares; the simulated
// batches (simulate_test.go) and make bench measure the trade.
const (
	// learnedLooks is how many intervals the looks of a learned wait divide the
	// finish window into: a task finishing anywhere in it is seen within a
	// third of its width. Each more interval would cut that at the cost of a
	// GET a clip; with three, later waves of a batch stay at three GETs a clip
	// or fewer (TestLearnedWaitsInWaves).
	learnedLooks = 3
	// learnedSpacingFloorOfInitial: looks are at least Initial divided by this
	// apart (0.15 s with DefaultPolicy). Clips of a few seconds are then looked
	// at every few tenths of a second around their finish and noticed well
	// within the default schedule's 0.5 s goal, while the looks of a narrow
	// window, which could otherwise come back-to-back, stay within the budget of
	// a 2 s clip.
	learnedSpacingFloorOfInitial = 3
	// learnedSpacingFloorOfStart: a wait with no look to spare (one that spent
	// its fast start before anything was learned) keeps its looks at least the
	// window's start divided by this apart, so that a kind that takes a minute
	// is looked at no more often than every 4 s, the default schedule's Max:
	// GETs are shared by every clip under the key.
	learnedSpacingFloorOfStart = 15
	// learnedDensity: inside the window, learned looks are made only when they
	// are at least this many times as dense as the default schedule's (spacing
	// at most Max divided by it). Looks no denser would only spend the budget's
	// slack and push the default's next mark on, and the default schedule
	// notices such clips as soon.
	learnedDensity = 2
	// learnedSkip: a look is never planned within the spacing divided by this of
	// the latest one, as the default schedule skips marks within Initial/2
	// (Policy.nextMark): after a late look the grid resumes instead of
	// bunching two looks together.
	learnedSkip = 2
	// learnedBackoff: past the window (a task slower than every one seen), the
	// gaps between looks grow by this factor from the spacing up to Max, so that
	// the wait reaches the default schedule's pace in a few looks instead of
	// spending the budget at the window's density.
	learnedBackoff = 2
)

// Learned is the schedule of a wait of a known kind: it looks around the
// finish window that its Estimator predicts from earlier tasks of the kind,
// and keeps the default schedule (Budgeted) when there is no trusted window,
// when a Retry-After or a failure says otherwise, and whenever a learned look
// would break one of the budget's guards (see next). It reports what its looks
// saw to the Estimator, so that the other waits of the kind learn from it.
type Learned struct {
	def  *Budgeted
	e    *Estimator
	kind Kind
	// unfinishedAt is when the latest look that found the task unfinished was
	// sent (0 while none has).
	unfinishedAt time.Duration
}

var _ Schedule = (*Learned)(nil)

// Learned returns the schedule of a wait of kind k whose shift fraction is u,
// counted as running until it finishes (Finished) or ends (End).
func (e *Estimator) Learned(k Kind, p Policy, u float64) *Learned {
	l := &Learned{def: p.Budgeted(u), e: e, kind: k}
	e.running(k, l, 0)
	return l
}

// Next records what the latest look saw, then plans the learned look when
// there is one and the default schedule's otherwise.
func (l *Learned) Next(look Look) time.Duration {
	if look.N > 0 && !look.Failed {
		l.unfinishedAt = look.Sent
		l.e.running(l.kind, l, look.Sent)
	}
	if look.RetryAfter > 0 || look.Failed {
		return l.def.Next(look)
	}
	if at, ok := l.next(look.N, look.At); ok {
		l.def.resumeFrom(look.At)
		return at
	}
	return l.def.Next(look)
}

// Finished records that the look at at found the task done, which teaches the
// Estimator how long tasks of the kind take, and ends the wait.
func (l *Learned) Finished(at time.Duration) {
	l.End()
	l.e.observe(l.kind, l.unfinishedAt, at)
}

// End says the wait is over, whichever way it ended: its task no longer
// counts as one of the kind still running.
func (l *Learned) End() { l.e.ended(l.kind, l) }

// news is closed when a task of the kind next finishes.
func (l *Learned) news() <-chan struct{} { return l.e.changes(l.kind) }

// next is the learned look after elapsed of a wait that has made n looks, or
// false when the wait keeps the default schedule. The guards, in order:
//
//   - the Estimator has no trusted window for the kind;
//   - the learned looks are behind the wait (learnedLook);
//   - the look would come before its pace, which keeps learning from costing
//     GETs where tasks of one kind turn out to take very different times;
//   - the look would leave the wait no look, within the pace, for the default
//     schedule's next mark after it. The look kept in hand means that a clip
//     slower than every one seen so far is noticed no later than the default
//     schedule would notice it, instead of at the pace after the learned looks
//     (which for clips of 2 s is 4 s).
func (l *Learned) next(n int, elapsed time.Duration) (time.Duration, bool) {
	p, u := l.def.p, l.def.u
	w, ok := l.e.Window(l.kind)
	if !ok {
		return 0, false
	}
	at, ok := p.learnedLook(w, elapsed, u, int(p.budget(w.To))-n-1)
	if !ok || at < p.pace(n+1) {
		return 0, false
	}
	if p.pace(n+2) > p.markFrom(at+1, u) {
		return 0, false
	}
	return at, true
}

// learnedLook returns the next look after elapsed for a task expected to
// finish within w, for a wait that may make spare more looks up to the
// window's end and still keep one in hand (see next). The looks are evenly
// spaced, learnedLooks intervals across the window, from its start to past
// its end. None is made before the window, since such a look would cost nearly
// every wait a GET; a window that starts too late is moved down by the
// Estimator instead (see predict). A task slower than every one observed then
// gets looks whose gaps grow by learnedBackoff from the spacing up to Max, and
// after them (false) the default schedule takes over. Every look is shifted
// like the default schedule's.
//
// The spacing is at most Max and at least the floors of learnedSpacingFloorOfInitial
// and, for a wait with no look to spare, learnedSpacingFloorOfStart; a wait with
// looks to spare spreads them over what is left of the window instead. Inside
// the window, looks sparser than learnedDensity allows are not made.
func (p Policy) learnedLook(w Window, elapsed time.Duration, u float64, spare int) (time.Duration, bool) {
	floor := w.From / learnedSpacingFloorOfStart
	if spare > 0 {
		floor = (w.To - max(elapsed, w.From)) / time.Duration(spare)
	}
	minSpacing := max(p.Initial/learnedSpacingFloorOfInitial, floor)
	spacing := min(max((w.To-w.From)/learnedLooks, minSpacing), max(p.Max, minSpacing))
	if spacing <= 0 || (spacing > p.Max/learnedDensity && elapsed >= w.From) {
		return 0, false
	}
	first := w.From + p.shift(spacing, u)
	earliest := elapsed + spacing/learnedSkip
	if earliest <= first {
		return first, true
	}
	// Whole numbers of spacings: the looks stay on one grid.
	last := first + time.Duration(int64((w.To+spacing-w.From)/spacing))*spacing
	if earliest <= last {
		return first + time.Duration(int64((earliest-first+spacing-1)/spacing))*spacing, true
	}
	for gap := spacing; gap <= p.Max; gap *= learnedBackoff {
		last += gap
		if earliest <= last {
			return last, true
		}
	}
	return 0, false
}
