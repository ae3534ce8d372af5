package poll

import (
	"slices"
	"sync"
	"time"
)

// Kind is what makes tasks take about as long as each other, as a comparable
// value (internal/client's TaskKind: the same model asked for the same length,
// resolution and audio). Tasks of different kinds teach each other nothing.
type Kind any

// The Estimator learns, within one process, how long tasks of each kind take.
// A wait cannot see a task finish: it sees it unfinished at one look and
// finished at the next. So each completed wait gives an interval, (lo, hi]:
// the time since submission of its last look that found the task unfinished
// (0 when none did) and of the first that found it done. The Estimator keeps
// the most recent estimatorHistory intervals of each kind, so that it follows
// a service that speeds up or slows down, and predicts a finish window from
// them:
//
//   - From is the earliest hi: some task of the kind was done by then;
//   - To is the latest lo: some task of the kind was still running then (when
//     every task was done at its first look, no lo says anything, and To is
//     From).
//
// Whatever the tasks' true times, they spread over at least [From, To], and
// when the intervals overlap (From > To) they can all have finished within
// [To, From]; either way the window is the span between the two. Waits of the
// kind still in progress count too: a task seen unfinished at t has taken
// longer than t, so the window reaches at least to the latest such t. It is
// used only when it deserves trust; otherwise the waiter keeps the default
// schedule:
//
//   - few: fewer than estimatorMinObservations intervals;
//   - disagreeing: the window ends more than estimatorMaxSpread times as late
//     as it starts (tasks of the kind vary by more than that, or one still
//     running has already taken that many times as long as the fastest).
//
// When at least half of the recent tasks were already done at their wait's
// first look, the window may start too late (the service got faster, or the
// first looks came late), and its start moves down (see predict).
type Estimator struct {
	mu    sync.Mutex
	kinds map[Kind]*kindHistory
	// epoch is the Estimator's clock's zero, and slots the looks planned on
	// it, for the rate every wait shares (see reserve).
	epoch time.Time
	slots []slot
}

const (
	// estimatorHistory is how many recent intervals of a kind are kept: enough
	// that a kind whose times vary widely shows it (sixteen tasks finishing one
	// after another over a minute are not mistaken for a kind whose last eight
	// happened to finish close together), few enough that a service that
	// changed speed is followed within one batch of that size.
	estimatorHistory = 16
	// estimatorMinObservations is how many intervals a window needs: two tasks
	// that finished close together may be chance, three rarely are.
	estimatorMinObservations = 3
	// estimatorMaxSpread: a window that ends more than this many times as late
	// as it starts is not trusted. Learned looks spread over such a window
	// would be no denser than the default schedule's, and the slowest tasks
	// would wait for the pace after them.
	estimatorMaxSpread = 2
	// estimatorEarlyShift: when half the recent tasks were done at their first
	// look, the window starts this fraction (an eighth) earlier. That is more
	// than the 10% by which DefaultPolicy's shift can delay a look, so the next
	// first looks come before the finish of a task as fast as the fastest seen,
	// and little enough that a look before any task is done, which nearly every
	// wait would pay for, stays rare.
	estimatorEarlyShift = 8
)

// Window is when tasks of a kind finish, counted from their submission.
type Window struct {
	From, To time.Duration
}

type interval struct {
	lo, hi time.Duration
}

type kindHistory struct {
	obs []interval // most recent last
	// running is, for each wait of the kind in progress, when its latest look
	// found its task unfinished: a task that has taken at least that long.
	running map[*Learned]time.Duration
	// learned is closed, and replaced, whenever a task of the kind finishes or
	// first reports progress, so that the waits of that kind in progress can
	// re-plan their next look.
	learned chan struct{}
	// joined is how many waits have joined the kind's batch (see Learned.batch):
	// the next one's rank.
	joined int
	// reports says an answer for the kind carried progress; finishLo, when
	// positive, is the earliest finish a wait's own progress projected.
	reports  bool
	finishLo time.Duration
}

// NewEstimator returns an Estimator that knows nothing yet.
func NewEstimator() *Estimator { return &Estimator{kinds: map[Kind]*kindHistory{}, epoch: time.Now()} }

func (e *Estimator) history(k Kind) *kindHistory {
	h := e.kinds[k]
	if h == nil {
		h = &kindHistory{learned: make(chan struct{}), running: map[*Learned]time.Duration{}}
		e.kinds[k] = h
	}
	return h
}

// observe records a task of kind k seen unfinished at lo (0 when never) and done
// at hi, both counted from its submission.
func (e *Estimator) observe(k Kind, lo, hi time.Duration) {
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
	h.news()
}

// news wakes the waits of the kind. Callers hold e.mu.
func (h *kindHistory) news() {
	close(h.learned)
	h.learned = make(chan struct{})
}

// join registers a new wait of kind k: it joins the kind's batch, with the
// next rank, when no task of the kind has finished yet.
func (e *Estimator) join(k Kind, w *Learned) {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := e.history(k)
	h.running[w] = 0
	if len(h.obs) == 0 {
		w.batch, w.rank = true, h.joined
		h.joined++
	}
}

// progressed records that an answer for kind k carried progress and, when
// lo is positive, that a wait's own readings project its task to finish no
// sooner than lo. The first projection, and any that is earlier by more than
// a progress step, is news to the other waits.
func (e *Estimator) progressed(k Kind, lo time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := e.history(k)
	h.reports = true
	if lo > 0 && (h.finishLo == 0 || lo < h.finishLo-progressStep) {
		h.finishLo = lo
		h.news()
	} else if lo > 0 {
		h.finishLo = min(h.finishLo, lo)
	}
}

// kindProgress says whether answers for kind k carry progress, and the earliest
// finish a wait's progress projected (0: none yet).
func (e *Estimator) kindProgress(k Kind) (bool, time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := e.kinds[k]
	if h == nil {
		return false, 0
	}
	return h.reports, h.finishLo
}

// running records that the task of wait w, of kind k, was unfinished at the
// look sent at, counted from its submission; at 0 just registers the wait.
func (e *Estimator) running(k Kind, w *Learned, at time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.history(k).running[w] = at
}

// ended forgets wait w of kind k, which finished or stopped waiting.
func (e *Estimator) ended(k Kind, w *Learned) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.history(k).running, w)
	e.release(w)
}

// finished says a task of kind k has finished.
func (e *Estimator) finished(k Kind) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := e.kinds[k]
	return h != nil && len(h.obs) > 0
}

// changes returns a channel that is closed when a task of kind k next finishes.
func (e *Estimator) changes(k Kind) <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.history(k).learned
}

// Window predicts when a task of kind k finishes; false means the waiter
// should keep its default schedule (see the rules above).
func (e *Estimator) Window(k Kind) (Window, bool) {
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
func predict(obs []interval, unfinished time.Duration) (Window, bool) {
	if len(obs) < estimatorMinObservations {
		return Window{}, false
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
	if to > estimatorMaxSpread*from {
		return Window{From: from, To: to}, false
	}
	if 2*doneAtFirstLook >= len(obs) {
		// A task done at its first look says only that it finished by then. When
		// that is true of half the recent tasks, the kind has got faster, or the
		// first looks came late (behind a rate limit, say): start the window
		// earlier, so that the next first looks come before the finish and the
		// window follows the service down.
		from -= from / estimatorEarlyShift
	}
	return Window{From: from, To: to}, true
}
