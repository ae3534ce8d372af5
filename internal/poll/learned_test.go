package poll

import (
	"testing"
	"time"
)

// Learned looks: evenly spaced from the window's start to past
// its end, then gaps that double up to Max, then nothing (the default schedule
// takes over).
func TestLearnedLook(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	w := Window{From: sec(4), To: sec(4.9)} // spacing 0.3 s
	var looks []time.Duration
	at := time.Duration(0)
	for {
		next, ok := p.learnedLook(w, at, 0, 0)
		if !ok {
			break
		}
		looks = append(looks, next)
		at = next
	}
	want := []time.Duration{sec(4), sec(4.3), sec(4.6), sec(4.9), sec(5.2), // the window
		sec(5.5), sec(6.1), sec(7.3), sec(9.7)} // slower than every task seen: gaps of 0.3, 0.6, 1.2 and 2.4 s
	if len(looks) != len(want) {
		t.Fatalf("looks = %v, want %v", looks, want)
	}
	for i := range want {
		if looks[i] != want[i] {
			t.Fatalf("looks = %v, want %v", looks, want)
		}
	}
	// Narrow windows keep looks at least a third of Initial apart and, for a
	// wait with no look to spare, a fifteenth of the window's start; wide ones
	// at most Max.
	if next, _ := p.learnedLook(Window{From: sec(1), To: sec(1)}, sec(1), 0, 0); next != sec(1.15) {
		t.Errorf("look after 1 s in a zero-width window at %s, want 1.15s (0.15 s spacing, from 1 s)", next)
	}
	if next, _ := p.learnedLook(Window{From: sec(15), To: sec(15)}, sec(15), 0, 0); next != sec(16) {
		t.Errorf("look after 15 s in a zero-width window at %s, want 16s (1 s spacing, from 15 s)", next)
	}
	if next, _ := p.learnedLook(Window{From: sec(15), To: sec(15.3)}, sec(15), 0, 3); next != sec(15.15) {
		t.Errorf("look after 15 s with three looks to spare at %s, want 15.15s (0.15 s spacing)", next)
	}
	// A wait with one look to spare spreads it over what is left of the window.
	if next, _ := p.learnedLook(Window{From: sec(1.8), To: sec(2.2)}, sec(1.8), 0, 1); next != sec(2.2) {
		t.Errorf("look after 1.8 s with one look to spare at %s, want 2.2s (the window's end)", next)
	}
	if next, _ := p.learnedLook(Window{From: sec(20), To: sec(39)}, sec(18), 0, 0); next != sec(20) {
		t.Errorf("look after 18 s in a 19 s window at %s, want 20s (the window's start)", next)
	}
	// Inside that window, looks Max apart are no denser than the default
	// schedule's, which takes over.
	if next, ok := p.learnedLook(Window{From: sec(20), To: sec(39)}, sec(20), 0, 0); ok {
		t.Errorf("look after 20 s in a 19 s window at %s, want none (the default schedule)", next)
	}
	// A late start joins the grid of the window instead of starting over.
	if next, _ := p.learnedLook(w, sec(4.4), 0, 0); next != sec(4.6) {
		t.Errorf("first look of a wait at 4.4 s = %s, want 4.6s", next)
	}
	// The wait's shift moves every learned look by the same fraction of the spacing.
	if next, _ := p.learnedLook(w, 0, 0.5, 0); next != sec(4.015) {
		t.Errorf("shifted first look = %s, want 4.015s", next)
	}
}

// learnedWait is a Learned schedule of a kind the estimator has seen take the
// intervals obs (seconds: unfinished at [0], done at [1]).
func learnedWait(obs ...[2]float64) (*Estimator, *Learned) {
	e := NewEstimator()
	for _, o := range obs {
		e.observe("m", sec(o[0]), sec(o[1]))
	}
	return e, e.Learned("m", DefaultPolicy(), 0)
}

// A wait of a known kind uses the learned looks only while the estimate is
// trusted, and the default rules whenever the service sends Retry-After or a
// look failed.
func TestLearnedFallsBack(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	def := p.Looks(1)[0]
	if _, s := learnedWait(); s.Next(Look{}) != def {
		t.Fatalf("with nothing learned, first look at %s, want the default %s", s.Next(Look{}), def)
	}
	e, s := learnedWait([2]float64{3.7, 4.0}, [2]float64{4.0, 4.3}, [2]float64{3.9, 4.2})
	if got := s.Next(Look{}); got != sec(4) {
		t.Errorf("first look of a learned wait at %s, want 4s (the window is [4.0s, 4.0s])", got)
	}
	if got := p.Schedule(e, nil, 0).Next(Look{}); got != def {
		t.Errorf("a wait without a kind looks first at %s, want the default %s", got, def)
	}
	if got, _ := after(e.Learned("m", p, 0), 1, 0, sec(1), 7*time.Second, false); got != 7*time.Second {
		t.Errorf("with Retry-After 7s on a running task = %s, want 7s", got)
	}
	if got, _ := after(e.Learned("m", p, 0), 1, 0, sec(1), 0, true); got == sec(3) {
		t.Errorf("after a failed look the learned schedule was used")
	}
	// Past the window and its doubling looks (0.27 s apart, then gaps up to
	// 2.13 s: the last at 8.27 s), the default schedule's next mark.
	if got, _ := after(e.Learned("m", p, 0), 6, sec(2.25), sec(10), 0, false); got != sec(2) {
		t.Errorf("past the window at 10 s: delay %s, want 2s (the 12 s mark)", got)
	}
}

// Learning may move and save looks but keeps the wait within the default
// schedule's GET budget: a wait that would exceed it by its next learned look
// keeps the default schedule.
func TestLearnedLooksWithinTheBudget(t *testing.T) {
	t.Parallel()
	e, s := learnedWait([2]float64{19.8, 20.2}, [2]float64{20.1, 20.6}, [2]float64{20.4, 20.9})
	// The learned look at about 20.9 s is within a budget of 6 + 20.9/4 = 11.2 looks.
	if got, _ := after(s, 10, sec(20), sec(20.1), 0, false); got >= sec(3.9) {
		t.Errorf("with 10 looks made, next in %s: want the learned look, within the window", got)
	}
	if got, _ := after(e.Learned("m", DefaultPolicy(), 0), 11, sec(20), sec(20.1), 0, false); got != sec(3.9) {
		t.Errorf("with 11 looks made, next in %s: want the default schedule's 24 s mark", got)
	}
}

// A learned look that would leave a wait no look for the default schedule's
// next mark before its pace is not made: a clip slower than every one seen so
// far is still noticed when the default schedule would notice it, not a whole
// interval later.
func TestLearnedLooksKeepALookForTheDefaultMark(t *testing.T) {
	t.Parallel()
	e, s := learnedWait([2]float64{1.8, 1.9}, [2]float64{1.8, 2.0}, [2]float64{1.8, 1.95}) // window [1.8 s, 1.9 s]
	// Four looks by 1.8 s: the fifth may be learned, since a sixth is still
	// within the pace at the 2.25 s mark.
	if got, _ := after(s, 4, sec(1.8), sec(1.8), 0, false); got != sec(0.15) {
		t.Errorf("after four looks by 1.8 s: next in %s, want 0.15s (the learned look at 1.95 s)", got)
	}
	// Five looks by 1.95 s: a learned sixth at 2.1 s would leave none before
	// the pace of 4 s, so the sixth is the default schedule's, at 2.25 s.
	if got, _ := after(e.Learned("m", DefaultPolicy(), 0), 5, sec(1.8), sec(1.95), 0, false); got != sec(0.3) {
		t.Errorf("after five looks by 1.95 s: next in %s, want 0.3s (the default 2.25 s mark)", got)
	}
}

// A look that a learned schedule (or news from another wait) brought before
// the default mark planned for it must not push the default schedule on: when
// the learned looks run out, the next default mark follows the look.
func TestLearnedResumesDefaultFromTheLook(t *testing.T) {
	t.Parallel()
	_, s := learnedWait([2]float64{0.9, 1.1}, [2]float64{0.9, 1.1}, [2]float64{0.9, 1.1}) // learned looks end at 5.85 s
	// The default schedule had planned its next look for 12 s; the wait looked at 9 s instead.
	if got, mark := after(s, 8, sec(12), sec(9), 0, false); got != sec(3) || mark != sec(12) {
		t.Errorf("after a look at 9 s planned for 12 s: next in %s (mark %s), want 3s (the 12 s mark)", got, mark)
	}
}
