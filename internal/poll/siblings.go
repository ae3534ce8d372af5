package poll

import (
	"math"
	"time"
)

// A batch is the waits of one kind that start before any task of the kind has
// finished (Terraform starting the clips of one configuration): they take
// about as long as each other, so each sees for all. Counted from their own
// submissions, the waits of a batch share:
//
//   - before any finish, the looks: one scout keeps the default schedule,
//     and every other member makes one look inside the fast start and then one
//     per batchExplore, each at its own place (a golden-ratio phase by rank), so that
//     the batch as a whole looks at every moment of a finish time many times
//     a second while each member looks rarely (explore);
//   - the first finishes: they open a window from the earliest finish to
//     batchStretch times the latest time a finished task was seen unfinished,
//     inside which every member looks batchDenseOfFrom times per the window's
//     start, each at its own phase, so that the re-planned looks of the whole
//     batch spread over one spacing instead of coming in a burst
//     (siblingLook);
//   - progress: a member whose task has reported none reads it first at
//     progressSiblingReadAt of the earliest finish the others' progress
//     projects.
//
// A member seen unfinished past the window makes the batch wide: its times
// spread more than a batch's, and every member falls back to the schedule it
// would have alone (the learned window, then the default one), from where it
// is. The batch then costs a member no more than the looks of the window.
const (
	// batchScouts is how many members keep the default schedule before any
	// finish: a lone wait is one, and two make the batch's first finish seen as
	// soon as the default schedule would see it when the scouts are fast.
	batchScouts = 1
	// batchDenseOfFrom: inside the window members look every window start
	// divided by this (0.75 s for tasks of 9 s), between Initial divided by
	// learnedSpacingFloorOfInitial and Max divided by learnedDensity.
	batchDenseOfFrom = 12
	// batchStretch: the window ends this many times as late as the latest a
	// finished task was seen unfinished (or its earliest finish): batches
	// spread by ±10% fit inside, with room.
	batchStretch = 1.3
	// batchProgressQuiet: while the kind's answers carry progress but none has
	// moved yet, members other than the scouts look this many times less
	// often, from one such period after the fast start: the first reading
	// above zero re-plans them.
	batchProgressQuiet = 4
	// batchExploreOfMax: before any finish, members other than the scout look
	// once per Max times this after the fast start, an eighth less often than
	// the default schedule. Forty members then look at a finish time about
	// nine times a second, and a batch of 10 s clips costs under five GETs a
	// clip with its p95 near 0.8 s (TestBatchSeesItsFirstFinishes); at 1.25
	// it cost 4.2-4.8 GETs, but the first finish was seen later (make bench:
	// p95 1.21 s), at 1 (the default's rate) 4.5-5.2 GETs (make bench: 5.1).
	batchExploreOfMax = 1.125
)

// phi is the golden ratio's fraction: rank times it, modulo 1, spreads any
// number of members evenly over a period.
const phi = 0.6180339887498949

// phase is the member's place in a period, in [0, 1).
func (l *Learned) phase() float64 {
	_, f := math.Modf(float64(l.rank) * phi)
	return f
}

// scout says the member keeps the default schedule until the batch's first
// finish.
func (l *Learned) scout() bool { return !l.batch || l.rank < batchScouts }

// explore is a member's next look before any task of the batch has finished:
// one look inside the fast start, then one every batchExploreOfMax×Max
// (batchProgressQuiet times as long while progress is reported but has not
// moved), each at the member's phase, the first at or after earliest.
func (l *Learned) explore(earliest time.Duration, quiet bool) time.Duration {
	p := l.def.p
	f := l.phase()
	fastEnd := time.Duration(p.FastPolls+1) * p.Initial
	if first := p.Initial + scale(fastEnd-p.Initial, f); earliest <= first {
		return first
	}
	period := scale(p.Max, batchExploreOfMax)
	start := fastEnd + scale(period, f)
	if quiet {
		// Progress is reported: the scout's first reading above zero will
		// re-plan this wait, and its own looks wait a whole period more.
		period *= batchProgressQuiet
		start = fastEnd + scale(period, 1+f)
	}
	if earliest <= start {
		return start
	}
	return start + time.Duration((int64(earliest-start)+int64(period)-1)/int64(period))*period
}

// siblingLook is a member's next look inside the window its batch's finishes
// opened, after a wait whose latest look was sent at last and that re-plans
// at elapsed, or false when there is none (no finish yet, the batch is wide,
// or the look would come after the window). A member's first look inside the
// window comes within a quarter of the spacing of the news, at its phase: a
// member as old as the finished task may be done already. Later ones follow
// the member's grid of the spacing, at least half a spacing apart.
func (l *Learned) siblingLook(last, elapsed time.Duration) (time.Duration, bool) {
	from, to, ok := l.e.batchWindow(l.kind)
	if !ok {
		return 0, false
	}
	p := l.def.p
	d := min(max(from/batchDenseOfFrom, p.Initial/learnedSpacingFloorOfInitial), p.Max/learnedDensity)
	if last < from {
		return max(from, elapsed) + scale(d/4, l.phase()), true
	}
	earliest := max(elapsed, last+d/learnedSkip)
	first := from + scale(d, l.phase())
	at := first
	if earliest > first {
		at = first + time.Duration((int64(earliest-first)+int64(d)-1)/int64(d))*d
	}
	if at > to+d {
		return 0, false
	}
	return at, true
}

// batchWindow is the window of kind k's batch: from its earliest finish to
// batchStretch times the latest time a finished task was seen unfinished; false
// before any finish, and when a task of the kind still running has been seen
// unfinished past the window (the batch is wide).
func (e *Estimator) batchWindow(k Kind) (from, to time.Duration, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := e.kinds[k]
	if h == nil || len(h.obs) == 0 {
		return 0, 0, false
	}
	from, to = h.obs[0].hi, 0
	for _, o := range h.obs {
		from, to = min(from, o.hi), max(to, o.lo)
	}
	to = scale(max(to, from), batchStretch)
	for _, at := range h.running {
		if at > to {
			return 0, 0, false
		}
	}
	return from, to, true
}
