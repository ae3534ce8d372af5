package poll

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// hourly is a policy whose looks, after a first one at 1 ms, are an hour
// apart: a wait that looks again within the hour was moved by news.
func hourly() Policy {
	return Policy{Initial: time.Millisecond, FastPolls: 1, Max: time.Hour, MaxConsecutiveErrors: 1}
}

// A Wait sleeps until its schedule's looks, counting them, on the bubble's
// clock.
func TestWaitSleepsUntilTheSchedulesLooks(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := NewWait(DefaultPolicy().Budgeted(0))
		defer w.End()
		for i, want := range DefaultPolicy().Looks(7) {
			if err := w.Sleep(t.Context()); err != nil {
				t.Fatal(err)
			}
			if w.Elapsed() != want || w.Looks() != i+1 {
				t.Fatalf("look %d at %s, want look %d at %s", w.Looks(), w.Elapsed(), i+1, want)
			}
			w.Looked(0, false)
		}
	})
}

// A wait in progress moves its next look sooner when another wait of the same
// kind finishes and the estimate becomes trusted: here its own schedule would
// not look again for an hour.
func TestWaitLooksSoonerWhenAPeerFinishes(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := NewEstimator()
		w := NewWait(hourly().Schedule(e, "m", 0))
		defer w.End()
		if err := w.Sleep(t.Context()); err != nil {
			t.Fatal(err)
		}
		w.Looked(0, false)
		done := make(chan error)
		go func() { done <- w.Sleep(t.Context()) }()
		synctest.Wait()
		for range estimatorMinObservations {
			e.observe("m", 10*time.Millisecond, 11*time.Millisecond)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if w.Elapsed() >= time.Hour {
			t.Errorf("the wait looked again after %s, not sooner when its peers finished", w.Elapsed())
		}
	})
}

// A wait that stops without its task no longer counts as a task of its kind
// still running, or one abandoned wait would keep the kind's estimate from
// being trusted for the rest of the run.
func TestWaitForgetsAWaitThatStops(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := NewEstimator()
		running := func() int {
			e.mu.Lock()
			defer e.mu.Unlock()
			return len(e.history("m").running)
		}
		ctx, cancel := context.WithCancel(t.Context())
		w := NewWait(hourly().Schedule(e, "m", 0))
		if err := w.Sleep(ctx); err != nil {
			t.Fatal(err)
		}
		w.Looked(0, false)
		if n := running(); n != 1 {
			t.Fatalf("%d waits of the kind running while one waits, want 1", n)
		}
		time.AfterFunc(time.Minute, cancel)
		if err := w.Sleep(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("Sleep = %v, want the cancellation", err)
		}
		w.End()
		if n := running(); n != 0 {
			t.Errorf("%d waits of the kind still counted as running after the only one stopped", n)
		}
	})
}

// A finished wait teaches its kind the interval its looks saw: unfinished at
// the latest look that found it so, done at the look that found it done.
func TestWaitFinishedTeachesTheEstimator(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := NewEstimator()
		w := NewWait(DefaultPolicy().Schedule(e, "m", 0))
		for range 2 {
			if err := w.Sleep(t.Context()); err != nil {
				t.Fatal(err)
			}
			w.Looked(0, false)
		}
		if err := w.Sleep(t.Context()); err != nil {
			t.Fatal(err)
		}
		w.Finished()
		w.End()
		if obs := e.history("m").obs; len(obs) != 1 || obs[0] != (interval{lo: 900 * time.Millisecond, hi: 1350 * time.Millisecond}) {
			t.Errorf("observations = %+v, want one from 0.9 s (the second look) to 1.35 s (the third)", obs)
		}
	})
}
