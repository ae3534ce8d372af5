package poll

import "time"

// The constants of looks aimed by progress. Services report progress in
// whole percents (new-api's "30%", OpenAI's 0-100), so a reading bounds a
// task's finish only to within about 1% of its length; the aim spends a GET
// or two more to notice it within a few tenths of a second.
const (
	// progressQuantum: a reading of p says the task was between p and p plus
	// this done.
	progressQuantum = 0.01
	// progressStep is the widest part of the projected finish window one look
	// covers: a window that wide or less gets one look at its end; a wider
	// one is stepped through in parts no wider than this. It is the latency a
	// task whose progress keeps its pace is noticed within.
	progressStep = 400 * time.Millisecond
	// progressCoarse: a window wider than this many steps is too coarse to
	// step through (a reading early in the task); the wait reads again
	// progressReadAt of the way to its start, where the reading pins the
	// finish closer.
	progressCoarse = 4
	progressReadAt = 0.75
	// progressSiblingReadAt: a wait whose own task has reported no progress
	// yet, in a batch where a sibling's has, reads its own this share of the
	// way to the earliest finish the siblings' progress projects: tasks of one
	// kind vary, and the reading must come before the fastest of them is done.
	progressSiblingReadAt = 0.85
)

// reading is one look's progress: at is when the look was sent, counted from
// the task's submission.
type reading struct {
	at time.Duration
	p  float64
}

// progress is what a wait's own readings say about when its task finishes.
// Its model is progress that grows in proportion to the time since
// submission: each reading bounds the finish, and the bounds of successive
// readings are intersected. Progress that does not keep that pace breaks the
// model in one of two ways, both handled:
//
//   - readings whose bounds do not overlap (a jump, a slow start): the window
//     restarts from the latest reading, and the rate between the latest two
//     readings may move its start earlier;
//   - a look at or after the window's end that finds the task unfinished, or
//     a reading no higher than the one before (a stall, 99% for long): misses
//     counts them, and the looks back off from
//     the floor's spacing up to Max, the default schedule's long-run rate;
//   - progress that speeds up: no look comes more than half the time waited
//     after the one before, and in a batch, a projection past the window its
//     finishes opened gives way to the window (see Learned.plan).
type progress struct {
	lo, hi     time.Duration
	ok         bool
	last       reading
	misses     int
	reportedAt bool // some answer of the wait carried progress
}

// read records the reading p of the look sent at, which found the task
// unfinished.
func (pr *progress) read(at time.Duration, p float64) {
	pr.reportedAt = true
	if p <= 0 {
		// Not started, or a service that reports 0 until the end: no bound.
		return
	}
	if pr.ok && (at >= pr.hi || p <= pr.last.p) {
		// Done by now if progress kept its pace, or no progress since the
		// last reading: a stall.
		pr.misses++
	} else {
		pr.misses = 0
	}
	var lo, hi time.Duration
	if p >= 1 {
		lo, hi = at, at
	} else {
		lo, hi = scale(at, 1/min(1, p+progressQuantum)), scale(at, 1/p)
	}
	if pr.ok && pr.hi > at {
		if l, h := max(pr.lo, lo), min(pr.hi, hi); l <= h {
			lo, hi = l, h
		}
	}
	if prev := pr.last; prev.p > 0 && p > prev.p && at > prev.at && p < 1 {
		// The latest rate: earlier than the proportional model when progress
		// speeds up.
		rate := (p - prev.p) / float64(at-prev.at)
		lo = min(lo, at+time.Duration((1-p-progressQuantum)/rate))
	}
	pr.lo, pr.hi, pr.ok = max(lo, at), max(hi, at), true
	pr.last = reading{at: at, p: p}
}

// aim is the next look of a wait whose latest look came at elapsed, by its own
// readings; floor is the closest two looks come, ceiling the widest back-off.
func (pr *progress) aim(elapsed, floor, ceiling time.Duration) (time.Duration, bool) {
	if !pr.ok {
		return 0, false
	}
	if pr.misses > 0 || pr.hi <= elapsed {
		gap := floor
		for range pr.misses {
			gap = min(2*gap, ceiling)
		}
		return elapsed + max(gap, floor), true
	}
	lo := max(pr.lo, elapsed)
	var at time.Duration
	switch w := pr.hi - lo; {
	case w > progressCoarse*progressStep:
		at = elapsed + scale(lo-elapsed, progressReadAt)
	case w > progressStep:
		parts := (w + progressStep - 1) / progressStep
		at = lo + w/parts
	default:
		at = pr.hi
	}
	// Progress that speeds up (or stalls and then finishes at once) makes
	// the projection late: no look comes more than half the time waited
	// after the one before.
	return max(min(at, elapsed+elapsed/2), elapsed+floor), true
}

// scale is d times f.
func scale(d time.Duration, f float64) time.Duration { return time.Duration(float64(d) * f) }
