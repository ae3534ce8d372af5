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
// Two more signals come before the learned window when there are any: the
// task's own progress (see progress) and the wait's batch (see batch).
type Learned struct {
	def  *Budgeted
	e    *Estimator
	kind Kind
	// unfinishedAt is when the latest look that found the task unfinished was
	// sent (0 while none has).
	unfinishedAt time.Duration
	// batch says the wait joined before any task of its kind finished, with
	// rank the waits that joined before it (see siblings.go).
	batch bool
	rank  int
	// prog is what the task's own progress says.
	prog progress
	// lastSent is when the latest look was sent, lastAt when its answer came.
	lastSent, lastAt time.Duration
	// origin is when the wait began on its Estimator's clock, for the rate of
	// looks that every wait of the Estimator shares (Policy.Rate).
	origin time.Duration
}

var _ Schedule = (*Learned)(nil)

// Learned returns the schedule of a wait of kind k whose shift fraction is u,
// counted as running until it finishes (Finished) or ends (End).
func (e *Estimator) Learned(k Kind, p Policy, u float64) *Learned {
	l := &Learned{def: p.Budgeted(u), e: e, kind: k}
	e.join(k, l)
	return l
}

// Next records what the latest look saw, then plans the look the wait's
// signals call for (see plan), and the default schedule's otherwise.
func (l *Learned) Next(look Look) time.Duration {
	l.lastSent, l.lastAt = look.Sent, look.At
	if look.N > 0 && !look.Failed {
		l.unfinishedAt = look.Sent
		l.e.running(l.kind, l, look.Sent)
		if look.HasProgress {
			l.prog.read(look.Sent, look.Progress)
			lo := time.Duration(0)
			if l.prog.ok {
				lo = l.prog.lo
			}
			l.e.progressed(l.kind, lo)
		}
	}
	return l.e.reserve(l, l.origin+look.At, l.origin+l.next(look)) - l.origin
}

func (l *Learned) next(look Look) time.Duration {
	if look.RetryAfter > 0 || look.Failed {
		return l.def.Next(look)
	}
	at, firm, ok := l.plan(look.N, look.At)
	switch {
	case ok:
		l.def.resumeFrom(look.At)
	case !l.scout() && !l.e.finished(l.kind):
		reports, _ := l.e.kindProgress(l.kind)
		l.def.resumeFrom(look.At)
		at = l.explore(look.At+l.def.p.Initial/2, reports)
	default:
		at = l.def.Next(look)
	}
	if !l.scout() && !firm {
		// A member of a batch never has made more looks than the default
		// schedule would have by then: a batch whose times spread widely
		// costs no more than the waits would alone.
		at = max(at, l.def.p.defaultMark(look.N+1))
	}
	return at
}

// plan is the look the wait's signals call for after elapsed, for a wait that
// has made n looks, first to last: its task's own progress, its siblings'
// progress, its batch's window, the learned window; false when none does.
// firm says the look replaces the planned one even when it is later: it
// comes from progress, which says the task cannot be done sooner.
func (l *Learned) plan(n int, elapsed time.Duration) (at time.Duration, firm, ok bool) {
	p := l.def.p
	floor := p.Initial / learnedSpacingFloorOfInitial
	// The aim counts from the latest look, whenever the plan is made: news
	// from other waits does not move it.
	_, to, window := l.e.batchWindow(l.kind)
	window = window && l.batch
	// A projection past the end of the window the batch's finishes opened is
	// progress that does not keep pace (it speeds up at the end): the batch's
	// window, not the projection, says when to look.
	if at, ok := l.prog.aim(l.lastAt, floor, p.Max); ok && (!window || l.prog.lo <= to) {
		return max(at, elapsed, p.pace(n+1)), true, true
	}
	if reports, lo := l.e.kindProgress(l.kind); reports && lo > 0 && l.prog.last.p <= 0 && !l.e.finished(l.kind) {
		if at := scale(lo, progressSiblingReadAt); at >= elapsed+floor {
			return max(at, p.pace(n+1)), true, true
		}
	}
	if l.batch {
		// A look of the batch's window is made only when the default schedule
		// would have made as many by then (see next).
		if at, ok := l.siblingLook(l.lastSent, elapsed); ok && at >= p.defaultMark(n+1) {
			return at, false, true
		}
		// Outside its window a member keeps the schedule it would have alone:
		// the scout the learned one, the others the default (see next).
		if !l.scout() {
			return 0, false, false
		}
	}
	at, ok = l.learnedNext(n, elapsed)
	return at, false, ok
}

// Finished records that the look at at found the task done, which teaches the
// Estimator how long tasks of the kind take, and ends the wait.
func (l *Learned) Finished(at time.Duration) {
	l.lastSent, l.lastAt = at, at
	l.End()
	l.e.observe(l.kind, l.unfinishedAt, at)
}

// End says the wait is over, whichever way it ended: its task no longer
// counts as one of the kind still running.
func (l *Learned) End() { l.e.ended(l.kind, l) }

// news is closed when a task of the kind next finishes.
func (l *Learned) news() <-chan struct{} { return l.e.changes(l.kind) }

// learnedNext is the learned look after elapsed of a wait that has made n looks, or
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
func (l *Learned) learnedNext(n int, elapsed time.Duration) (time.Duration, bool) {
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
