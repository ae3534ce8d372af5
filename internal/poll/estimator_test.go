package poll

import "testing"

// The estimator only knows what looks saw: each task was unfinished at one look
// and done at the next. The window is the span the intervals prove tasks of the
// kind cover, or the span they may all share.
func TestEstimatorIntervalCensoredWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		obs      [][2]float64 // seen unfinished at [0], done at [1], seconds
		want     [2]float64
		trust    bool
		why      string
		noWindow bool
	}{
		{name: "few", obs: [][2]float64{{3.6, 4.0}, {3.8, 4.2}}, noWindow: true,
			why: "two observations are too few to trust"},
		{name: "spread", obs: [][2]float64{{3.0, 3.5}, {4.2, 4.6}, {3.6, 4.0}}, want: [2]float64{3.5, 4.2}, trust: true,
			why: "one task was done by 3.5 s and another still running at 4.2 s: the kind spans at least that"},
		{name: "overlapping", obs: [][2]float64{{2.25, 4.0}, {2.25, 4.0}, {3.0, 4.4}}, want: [2]float64{3.0, 4.0}, trust: true,
			why: "coarse intervals that overlap: every task may have finished between 3.0 s and 4.0 s"},
		{name: "disagree: more than twice as long", obs: [][2]float64{{1, 2}, {9, 10}, {5, 6}}, want: [2]float64{2, 9},
			why: "tasks of the kind took from under 2 s to over 9 s"},
		{name: "done at the first look", obs: [][2]float64{{0, 4.0}, {0, 4.1}, {3.9, 4.3}, {3.8, 4.2}},
			want: [2]float64{3.4125, 4.0}, trust: true,
			why: "half the tasks were done when first looked at: the window [3.9 s, 4.0 s] may start too late, so it starts an eighth of 3.9 s sooner"},
		{name: "all done at the first look", obs: [][2]float64{{0, 4.8}, {0, 4.7}, {0, 5.0}},
			want: [2]float64{4.1125, 4.7}, trust: true,
			why: "no look found a task unfinished (behind a rate limit, first looks come late): the window is where the first was seen done, started an eighth sooner"},
		{name: "exact times", obs: [][2]float64{{9.9, 10.1}, {9.95, 10.05}, {9.8, 10.2}}, want: [2]float64{9.95, 10.05}, trust: true,
			why: "narrow intervals give a narrow window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := NewEstimator()
			k := "m"
			for _, o := range tt.obs {
				e.observe(k, sec(o[0]), sec(o[1]))
			}
			w, ok := e.Window(k)
			if ok != tt.trust {
				t.Fatalf("trusted = %v, want %v: %s", ok, tt.trust, tt.why)
			}
			if tt.noWindow {
				return
			}
			if w.From != sec(tt.want[0]) || w.To != sec(tt.want[1]) {
				t.Errorf("window = [%s, %s], want [%vs, %vs]: %s", w.From, w.To, tt.want[0], tt.want[1], tt.why)
			}
			if _, ok := e.Window("other"); ok {
				t.Error("another kind has a window too")
			}
		})
	}
}

// The window follows recent tasks: after a change of speed the old observations
// first make it disagree (the default schedule takes over) and then drop out.
func TestEstimatorForgetsOldObservations(t *testing.T) {
	t.Parallel()
	e := NewEstimator()
	k := "m 4s"
	for range estimatorHistory {
		e.observe(k, sec(3.8), sec(4.1))
	}
	if w, ok := e.Window(k); !ok || w.From != sec(3.8) || w.To != sec(4.1) {
		t.Fatalf("window = %+v, %v", w, ok)
	}
	e.observe(k, sec(11.8), sec(12.1))
	if _, ok := e.Window(k); ok {
		t.Fatal("a task three times slower than the rest did not make the estimate disagree")
	}
	for range estimatorHistory - 1 {
		e.observe(k, sec(11.8), sec(12.1))
	}
	if w, ok := e.Window(k); !ok || w.From != sec(11.8) || w.To != sec(12.1) {
		t.Fatalf("after a full history of slower tasks, window = %+v, %v; want [11.8s, 12.1s]", w, ok)
	}
}

// A wait still in progress is a task that has taken at least as long as its
// latest look that found it unfinished: it stretches the window, and makes it
// disagree when it has taken more than twice as long as the fastest task.
func TestEstimatorCountsTasksStillRunning(t *testing.T) {
	t.Parallel()
	e := NewEstimator()
	k := "m"
	for range estimatorMinObservations {
		e.observe(k, sec(3.8), sec(4.1))
	}
	p := DefaultPolicy()
	slow, slower := e.Learned(k, p, 0), e.Learned(k, p, 0)
	slow.Next(Look{N: 1, Sent: sec(4.5), At: sec(4.5)})
	if w, ok := e.Window(k); !ok || w.From != sec(3.8) || w.To != sec(4.5) {
		t.Errorf("with a task unfinished at 4.5 s, window = %+v, %v; want [3.8s, 4.5s]", w, ok)
	}
	slower.Next(Look{N: 1, Sent: sec(9), At: sec(9)})
	if _, ok := e.Window(k); ok {
		t.Error("a task still running at 9 s did not make a window starting at 3.8 s disagree")
	}
	// A failed look says nothing about the task.
	slower.Next(Look{N: 2, Sent: sec(20), At: sec(20), Failed: true})
	if n := e.history(k).running[slower]; n != sec(9) {
		t.Errorf("after a failed look at 20 s, the wait counts as unfinished at %s, want 9s", n)
	}
	slower.End()
	slow.End()
	if w, ok := e.Window(k); !ok || w.From != sec(3.8) || w.To != sec(4.1) {
		t.Errorf("after both waits ended, window = %+v, %v; want [3.8s, 4.1s]", w, ok)
	}
}

func TestEstimatorIgnoresImpossibleIntervals(t *testing.T) {
	t.Parallel()
	e := NewEstimator()
	k := "m"
	for _, o := range [][2]float64{{0, 0}, {-1, 2}, {3, 3}, {4, 2}} {
		e.observe(k, sec(o[0]), sec(o[1]))
	}
	if n := len(e.history(k).obs); n != 0 {
		t.Errorf("%d impossible intervals recorded", n)
	}
}
