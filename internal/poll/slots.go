package poll

import (
	"cmp"
	"slices"
	"time"
)

// slot is a look a wait has planned, on its Estimator's clock.
type slot struct {
	at time.Duration
	w  *Learned
}

// reserve plans wait w's next look at the first time at or after at that is
// at least 1/Policy.Rate from every other wait's planned look, and returns it;
// now is the Estimator's clock. Each wait holds one slot, its next look, so
// that the looks of every wait together keep the rate however a finish
// re-plans them. Without a rate it returns at.
func (e *Estimator) reserve(w *Learned, now, at time.Duration) time.Duration {
	rate := w.def.p.Rate
	if rate <= 0 {
		return at
	}
	gap := time.Duration(float64(time.Second) / rate)
	e.mu.Lock()
	defer e.mu.Unlock()
	// A slot in the past is a look made: it counts until it is a gap old. A
	// wait's slot still to come is the look this one replaces.
	e.slots = slices.DeleteFunc(e.slots, func(s slot) bool { return s.at <= now-gap || (s.w == w && s.at > now) })
	for _, s := range e.slots { // sorted by time
		if s.at <= at-gap {
			continue
		}
		if s.at >= at+gap {
			break
		}
		at = s.at + gap
	}
	i, _ := slices.BinarySearchFunc(e.slots, at, func(s slot, t time.Duration) int { return cmp.Compare(s.at, t) })
	e.slots = slices.Insert(e.slots, i, slot{at: at, w: w})
	return at
}

// release forgets wait w's planned look, which it will not make: the wait
// ended. Its looks made count until they are old (see reserve). Callers hold
// e.mu.
func (e *Estimator) release(w *Learned) {
	e.slots = slices.DeleteFunc(e.slots, func(s slot) bool { return s.w == w && s.at > w.lastSent+w.origin })
}
