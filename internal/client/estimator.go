package client

import (
	"slices"
	"strconv"
	"sync"
	"time"
)

// TaskKind is what makes tasks take about as long as each other: the same model
// asked for the same length, resolution and audio. Empty fields are the service's
// defaults.
type TaskKind struct {
	Model      string
	Seconds    string
	Resolution string
	Audio      string // "true", "false" or "" when not asked for
}

// KindOf is the kind of the task that req submits.
func KindOf(req VideoRequest) TaskKind {
	k := TaskKind{Model: req.Model, Seconds: req.Seconds}
	if md := req.Metadata; md != nil {
		k.Resolution = md.Resolution
		if md.GenerateAudio != nil {
			k.Audio = strconv.FormatBool(*md.GenerateAudio)
		}
	}
	return k
}

// The estimator learns, within one Client, how long tasks of each kind take. A
// wait cannot see a task finish: it sees it unfinished at one look and finished
// at the next. So each completed wait gives an interval, (lo, hi]: the time since
// submission of its last look that found the task unfinished (0 when none did)
// and of the first that found it done. The estimator keeps the most recent
// estimatorHistory intervals of each kind, so that it follows a service that
// speeds up or slows down, and predicts a finish window from them:
//
//   - from is the earliest hi: some task of the kind was done by then;
//   - to is the latest lo: some task of the kind was still running then (when
//     every task was done at its first look, no lo says anything, and to is
//     from).
//
// Whatever the tasks' true times, they spread over at least [from, to], and when
// the intervals overlap (from > to) they can all have finished within [to, from];
// either way the window is the span between the two. Waits of the kind still in
// progress count too: a task seen unfinished at t has taken longer than t, so
// the window reaches at least to the latest such t. It is used only when it
// deserves trust; otherwise the waiter keeps the default schedule:
//
//   - few: fewer than estimatorMinObservations intervals;
//   - disagreeing: the window ends more than twice as late as it starts (tasks of
//     the kind vary by more than a factor of two, or one still running has
//     already taken twice as long as the fastest).
//
// When at least half of the recent tasks were already done at their wait's
// first look, the window may start too late (the service got faster, or the
// first looks came late), and its start moves down (see predict). The history
// is long enough that a kind whose times vary widely shows it: sixteen tasks
// finishing one after another over a minute are not mistaken for a kind whose
// last eight happened to finish close together.
const (
	estimatorHistory         = 16
	estimatorMinObservations = 3
)

// finishWindow is when tasks of a kind finish, counted from their submission.
type finishWindow struct {
	from, to time.Duration
}

type interval struct {
	lo, hi time.Duration
}

type estimator struct {
	mu    sync.Mutex
	kinds map[TaskKind]*kindHistory
}

type kindHistory struct {
	obs []interval // most recent last
	// running is, for each wait of the kind in progress, when its latest look
	// found its task unfinished: a task that has taken at least that long.
	running map[*waitPlan]time.Duration
	// learned is closed, and replaced, whenever a task of the kind finishes, so
	// that the waits of that kind in progress can move their next look sooner.
	learned chan struct{}
}

func newEstimator() *estimator { return &estimator{kinds: map[TaskKind]*kindHistory{}} }

func (e *estimator) history(k TaskKind) *kindHistory {
	h := e.kinds[k]
	if h == nil {
		h = &kindHistory{learned: make(chan struct{}), running: map[*waitPlan]time.Duration{}}
		e.kinds[k] = h
	}
	return h
}

// observe records a task of kind k seen unfinished at lo (0 when never) and done
// at hi, both counted from its submission.
func (e *estimator) observe(k TaskKind, lo, hi time.Duration) {
	if hi <= 0 || lo < 0 || lo >= hi {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	h := e.history(k)
	h.obs = append(h.obs, interval{lo: lo, hi: hi})
	if len(h.obs) > estimatorHistory {
		h.obs = slices.Clone(h.obs[len(h.obs)-estimatorHistory:])
	}
	close(h.learned)
	h.learned = make(chan struct{})
}

// running records that the task of wait w, of kind k, was unfinished at the
// look sent at, counted from its submission; at 0 just registers the wait.
func (e *estimator) running(k TaskKind, w *waitPlan, at time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.history(k).running[w] = at
}

// ended forgets wait w of kind k, which finished or stopped waiting.
func (e *estimator) ended(k TaskKind, w *waitPlan) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.history(k).running, w)
}

// changes returns a channel that is closed when a task of kind k next finishes.
func (e *estimator) changes(k TaskKind) <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.history(k).learned
}

// window predicts when a task of kind k finishes; false means the waiter should
// keep its default schedule (see the rules above).
func (e *estimator) window(k TaskKind) (finishWindow, bool) {
	e.mu.Lock()
	var obs []interval
	var longest time.Duration
	if h := e.kinds[k]; h != nil {
		obs = slices.Clone(h.obs)
		for _, at := range h.running {
			longest = max(longest, at)
		}
	}
	e.mu.Unlock()
	return predict(obs, longest)
}

// predict is the window of the completed intervals obs when tasks of the
// kind still running have been seen unfinished up to unfinished since their
// submission.
func predict(obs []interval, unfinished time.Duration) (finishWindow, bool) {
	if len(obs) < estimatorMinObservations {
		return finishWindow{}, false
	}
	from, to := obs[0].hi, obs[0].lo
	doneAtFirstLook := 0
	for _, o := range obs {
		from, to = min(from, o.hi), max(to, o.lo)
		if o.lo == 0 {
			doneAtFirstLook++
		}
	}
	if to == 0 {
		// Every task was done at its first look: all that is known is when the
		// first of them was seen done.
		to = from
	}
	if from > to {
		from, to = to, from
	}
	// A task still running proves the kind takes at least that long, as a
	// completed one that was seen unfinished then would.
	to = max(to, unfinished)
	if to > 2*from {
		return finishWindow{from: from, to: to}, false
	}
	if 2*doneAtFirstLook >= len(obs) {
		// A task done at its first look says only that it finished by then. When
		// that is true of half the recent tasks, the kind has got faster, or the
		// first looks came late (behind a rate limit, say): start the window an
		// eighth earlier, so that the next first looks come before the finish and
		// the window follows the service down.
		from -= from / 8
	}
	return finishWindow{from: from, to: to}, true
}
