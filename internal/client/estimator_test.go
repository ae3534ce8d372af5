package client

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"
)

func sec(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

func TestKindOf(t *testing.T) {
	t.Parallel()
	yes := true
	got := KindOf(VideoRequest{Model: "m", Prompt: "any", Seconds: "5",
		Metadata: &Metadata{Resolution: "720p", GenerateAudio: &yes, Ratio: "16:9"}})
	want := TaskKind{Model: "m", Seconds: "5", Resolution: "720p", Audio: "true"}
	if got != want {
		t.Errorf("KindOf = %+v, want %+v", got, want)
	}
	if got := KindOf(VideoRequest{Model: "m", Prompt: "other prompt"}); got != (TaskKind{Model: "m"}) {
		t.Errorf("KindOf without metadata = %+v", got)
	}
}

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
			e := newEstimator()
			k := TaskKind{Model: "m"}
			for _, o := range tt.obs {
				e.observe(k, sec(o[0]), sec(o[1]))
			}
			w, ok := e.window(k)
			if ok != tt.trust {
				t.Fatalf("trusted = %v, want %v: %s", ok, tt.trust, tt.why)
			}
			if tt.noWindow {
				return
			}
			if w.from != sec(tt.want[0]) || w.to != sec(tt.want[1]) {
				t.Errorf("window = [%s, %s], want [%vs, %vs]: %s", w.from, w.to, tt.want[0], tt.want[1], tt.why)
			}
			if _, ok := e.window(TaskKind{Model: "other"}); ok {
				t.Error("another kind has a window too")
			}
		})
	}
}

// The window follows recent tasks: after a change of speed the old observations
// first make it disagree (the default schedule takes over) and then drop out.
func TestEstimatorForgetsOldObservations(t *testing.T) {
	t.Parallel()
	e := newEstimator()
	k := TaskKind{Model: "m", Seconds: "4"}
	for range estimatorHistory {
		e.observe(k, sec(3.8), sec(4.1))
	}
	if w, ok := e.window(k); !ok || w.from != sec(3.8) || w.to != sec(4.1) {
		t.Fatalf("window = %+v, %v", w, ok)
	}
	e.observe(k, sec(11.8), sec(12.1))
	if _, ok := e.window(k); ok {
		t.Fatal("a task three times slower than the rest did not make the estimate disagree")
	}
	for range estimatorHistory - 1 {
		e.observe(k, sec(11.8), sec(12.1))
	}
	if w, ok := e.window(k); !ok || w.from != sec(11.8) || w.to != sec(12.1) {
		t.Fatalf("after a full history of slower tasks, window = %+v, %v; want [11.8s, 12.1s]", w, ok)
	}
}

// A wait still in progress is a task that has taken at least as long as its
// latest look that found it unfinished: it stretches the window, and makes it
// disagree when it has taken more than twice as long as the fastest task.
func TestEstimatorCountsTasksStillRunning(t *testing.T) {
	t.Parallel()
	e := newEstimator()
	k := TaskKind{Model: "m"}
	for range estimatorMinObservations {
		e.observe(k, sec(3.8), sec(4.1))
	}
	slow, slower := &waitPlan{}, &waitPlan{}
	e.running(k, slow, sec(4.5))
	if w, ok := e.window(k); !ok || w.from != sec(3.8) || w.to != sec(4.5) {
		t.Errorf("with a task unfinished at 4.5 s, window = %+v, %v; want [3.8s, 4.5s]", w, ok)
	}
	e.running(k, slower, sec(9))
	if _, ok := e.window(k); ok {
		t.Error("a task still running at 9 s did not make a window starting at 3.8 s disagree")
	}
	e.ended(k, slower)
	e.ended(k, slow)
	if w, ok := e.window(k); !ok || w.from != sec(3.8) || w.to != sec(4.1) {
		t.Errorf("after both waits ended, window = %+v, %v; want [3.8s, 4.1s]", w, ok)
	}
}

func TestEstimatorIgnoresImpossibleIntervals(t *testing.T) {
	t.Parallel()
	e := newEstimator()
	k := TaskKind{Model: "m"}
	for _, o := range [][2]float64{{0, 0}, {-1, 2}, {3, 3}, {4, 2}} {
		e.observe(k, sec(o[0]), sec(o[1]))
	}
	if n := len(e.history(k).obs); n != 0 {
		t.Errorf("%d impossible intervals recorded", n)
	}
}

// Learned looks: evenly spaced from the window's start to past
// its end, then gaps that double up to Max, then nothing (the default schedule
// takes over).
func TestLearnedLook(t *testing.T) {
	t.Parallel()
	p := DefaultPollPolicy()
	w := finishWindow{from: sec(4), to: sec(4.9)} // spacing 0.3 s
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
	if next, _ := p.learnedLook(finishWindow{from: sec(1), to: sec(1)}, sec(1), 0, 0); next != sec(1.15) {
		t.Errorf("look after 1 s in a zero-width window at %s, want 1.15s (0.15 s spacing, from 1 s)", next)
	}
	if next, _ := p.learnedLook(finishWindow{from: sec(15), to: sec(15)}, sec(15), 0, 0); next != sec(16) {
		t.Errorf("look after 15 s in a zero-width window at %s, want 16s (1 s spacing, from 15 s)", next)
	}
	if next, _ := p.learnedLook(finishWindow{from: sec(15), to: sec(15.3)}, sec(15), 0, 3); next != sec(15.15) {
		t.Errorf("look after 15 s with three looks to spare at %s, want 15.15s (0.15 s spacing)", next)
	}
	// A wait with one look to spare spreads it over what is left of the window.
	if next, _ := p.learnedLook(finishWindow{from: sec(1.8), to: sec(2.2)}, sec(1.8), 0, 1); next != sec(2.2) {
		t.Errorf("look after 1.8 s with one look to spare at %s, want 2.2s (the window's end)", next)
	}
	if next, _ := p.learnedLook(finishWindow{from: sec(20), to: sec(39)}, sec(18), 0, 0); next != sec(20) {
		t.Errorf("look after 18 s in a 19 s window at %s, want 20s (the window's start)", next)
	}
	// Inside that window, looks Max apart are no denser than the default
	// schedule's, which takes over.
	if next, ok := p.learnedLook(finishWindow{from: sec(20), to: sec(39)}, sec(20), 0, 0); ok {
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

// A wait of a known kind uses the learned looks only while the estimate is
// trusted, and the default rules whenever the service sends Retry-After or a
// look failed.
func TestNextPollFallsBack(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://localhost", WithPollPolicy(DefaultPollPolicy()))
	k := TaskKind{Model: "m"}
	o := waitOptions{kind: &k}
	def, _ := c.poll.delay(0, 0, 0, 0, false)
	if got, _ := c.nextPoll(o, 0, 0, 0, 0, 0, false); got != def {
		t.Fatalf("with nothing learned, first delay = %s, want the default %s", got, def)
	}
	for _, o := range [][2]float64{{3.7, 4.0}, {4.0, 4.3}, {3.9, 4.2}} {
		c.learner.observe(k, sec(o[0]), sec(o[1]))
	}
	if got, _ := c.nextPoll(o, 0, 0, 0, 0, 0, false); got != sec(4) {
		t.Errorf("first delay of a learned wait = %s, want 4s (the window is [4.0s, 4.0s])", got)
	}
	if got, _ := c.nextPoll(waitOptions{}, 0, 0, 0, 0, 0, false); got != def {
		t.Errorf("a wait without a kind = %s, want the default %s", got, def)
	}
	if got, _ := c.nextPoll(o, 1, 0, sec(1), 0, 7*time.Second, false); got != 7*time.Second {
		t.Errorf("with Retry-After 7s on a running task = %s, want 7s", got)
	}
	if got, _ := c.nextPoll(o, 1, 0, sec(1), 0, 0, true); got == sec(3) {
		t.Errorf("after a failed look the learned schedule was used")
	}
	// Past the window and its doubling looks (0.27 s apart, then gaps up to
	// 2.13 s: the last at 8.27 s), the default schedule's next mark.
	if got, _ := c.nextPoll(o, 6, sec(2.25), sec(10), 0, 0, false); got != sec(2) {
		t.Errorf("past the window at 10 s: delay %s, want 2s (the 12 s mark)", got)
	}
}

// Learning may move and save looks but keeps the wait within the default
// schedule's GET budget: a wait that would exceed it by its next learned look
// keeps the default schedule.
func TestLearnedLooksWithinTheBudget(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://localhost", WithPollPolicy(DefaultPollPolicy()))
	k := TaskKind{Model: "m"}
	for _, o := range [][2]float64{{19.8, 20.2}, {20.1, 20.6}, {20.4, 20.9}} {
		c.learner.observe(k, sec(o[0]), sec(o[1]))
	}
	o := waitOptions{kind: &k}
	// The learned look at about 20.9 s is within a budget of 6 + 20.9/4 = 11.2 looks.
	if got, _ := c.nextPoll(o, 10, sec(20), sec(20.1), 0, 0, false); got >= sec(3.9) {
		t.Errorf("with 10 looks made, next in %s: want the learned look, within the window", got)
	}
	if got, _ := c.nextPoll(o, 11, sec(20), sec(20.1), 0, 0, false); got != sec(3.9) {
		t.Errorf("with 11 looks made, next in %s: want the default schedule's 24 s mark", got)
	}
}

// A learned look that would leave a wait no look for the default schedule's
// next mark before its pace is not made: a clip slower than every one seen so
// far is still noticed when the default schedule would notice it, not a whole
// interval later.
func TestLearnedLooksKeepALookForTheDefaultMark(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://localhost", WithPollPolicy(DefaultPollPolicy()))
	k := TaskKind{Model: "m"}
	for _, o := range [][2]float64{{1.8, 1.9}, {1.8, 2.0}, {1.8, 1.95}} {
		c.learner.observe(k, sec(o[0]), sec(o[1])) // window [1.8 s, 1.9 s]
	}
	o := waitOptions{kind: &k}
	// Four looks by 1.8 s: the fifth may be learned, since a sixth is still
	// within the pace at the 2.25 s mark.
	if got, _ := c.nextPoll(o, 4, sec(1.8), sec(1.8), 0, 0, false); got != sec(0.15) {
		t.Errorf("after four looks by 1.8 s: next in %s, want 0.15s (the learned look at 1.95 s)", got)
	}
	// Five looks by 1.95 s: a learned sixth at 2.1 s would leave none before
	// the pace of 4 s, so the sixth is the default schedule's, at 2.25 s.
	if got, _ := c.nextPoll(o, 5, sec(1.8), sec(1.95), 0, 0, false); got != sec(0.3) {
		t.Errorf("after five looks by 1.95 s: next in %s, want 0.3s (the default 2.25 s mark)", got)
	}
}

// The default schedule stays within the budget that bounds learned looks.
func TestDefaultScheduleWithinBudget(t *testing.T) {
	t.Parallel()
	for _, p := range []PollPolicy{DefaultPollPolicy(), {Initial: time.Second, FastPolls: 5, Max: 2 * time.Second},
		{Initial: 100 * time.Millisecond, Max: time.Second}} {
		for i, at := range p.Looks(300) {
			if float64(i+1) > p.budget(at) {
				t.Fatalf("%+v: look %d at %s is over the budget of %.2f", p, i+1, at, p.budget(at))
			}
			if at < p.pace(i+1) {
				t.Fatalf("%+v: look %d at %s comes before its pace, %s", p, i+1, at, p.pace(i+1))
			}
		}
	}
}

// Learned looks that spent the default schedule's slack hold its next look
// back to the pace: nine looks by 6 s, the tenth not before 16 s.
func TestNextPollKeepsThePace(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://localhost", WithPollPolicy(DefaultPollPolicy()))
	if got, mark := c.nextPoll(waitOptions{}, 9, sec(8), sec(6), 0, 0, false); got != sec(10) || mark != sec(16) {
		t.Errorf("after nine looks by 6 s: next in %s (mark %s), want 10s (the 16 s mark)", got, mark)
	}
	if got, _ := c.nextPoll(waitOptions{}, 7, sec(8), sec(6), 0, 0, false); got != sec(2) {
		t.Errorf("after seven looks by 6 s: next in %s, want 2s (the 8 s mark keeps the pace)", got)
	}
}

// A look that a learned schedule (or news from another wait) brought before
// the default mark planned for it must not push the default schedule on: when
// the learned looks run out, the next default mark follows the look.
func TestNextPollResumesDefaultFromTheLook(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://localhost", WithPollPolicy(DefaultPollPolicy()))
	k := TaskKind{Model: "m"}
	for range estimatorMinObservations {
		c.learner.observe(k, sec(0.9), sec(1.1)) // window [0.9 s, 1.1 s]: learned looks end at 5.85 s
	}
	// The default schedule had planned its next look for 12 s; the wait looked at 9 s instead.
	got, mark := c.nextPoll(waitOptions{kind: &k}, 8, sec(12), sec(9), 0, 0, false)
	if got != sec(3) || mark != sec(12) {
		t.Errorf("after a look at 9 s planned for 12 s: next in %s (mark %s), want 3s (the 12 s mark)", got, mark)
	}
}

// A wait with a kind teaches the estimator what its looks saw; a fixed poll
// interval turns learning off.
func TestWaitForVideoLearns(t *testing.T) {
	t.Parallel()
	srv, _ := newScriptServer(t, task("running"), task("running"), task("succeeded"))
	c := newTestClient(t, srv.URL, WithPollPolicy(PollPolicy{Initial: time.Millisecond, FastPolls: 100, Max: time.Millisecond,
		MaxConsecutiveErrors: 1}))
	k := TaskKind{Model: "m", Seconds: "5"}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := c.WaitForVideo(ctx, "task-1", WithKind(k)); err != nil {
		t.Fatal(err)
	}
	obs := c.learner.history(k).obs
	if len(obs) != 1 || obs[0].lo <= 0 || obs[0].hi <= obs[0].lo {
		t.Fatalf("observations = %+v, want one interval from the second look to the third", obs)
	}

	srv2, _ := newScriptServer(t, task("running"), task("succeeded"))
	fixed := newTestClient(t, srv2.URL, WithPollPolicy(PollPolicy{Fixed: time.Millisecond, MaxConsecutiveErrors: 1}))
	if _, err := fixed.WaitForVideo(ctx, "task-1", WithKind(k)); err != nil {
		t.Fatal(err)
	}
	if n := len(fixed.learner.history(k).obs); n != 0 {
		t.Errorf("with a fixed poll interval, %d observations were recorded", n)
	}
}

// sleepingWait starts a wait of kind k on a service that answers with replies,
// and returns once its first look is done and the next is an hour away.
func sleepingWait(t *testing.T, ctx context.Context, k TaskKind, replies ...reply) (*Client, <-chan error) {
	t.Helper()
	srv, _ := newScriptServer(t, replies...)
	looked := make(chan struct{})
	var once sync.Once
	log := logFunc(func(msg string) {
		if msg == "videogen wait: polling again" {
			once.Do(func() { close(looked) })
		}
	})
	c := newTestClient(t, srv.URL, WithLogger(log), WithPollPolicy(PollPolicy{Initial: time.Millisecond, FastPolls: 1,
		Max: time.Hour, MaxConsecutiveErrors: 1}))
	done := make(chan error, 1)
	go func() {
		_, err := c.WaitForVideo(ctx, "task-1", WithKind(k))
		done <- err
	}()
	<-looked
	return c, done
}

// A wait in progress moves its next look sooner when another wait of the same
// kind finishes and the estimate becomes trusted: here its own schedule would
// not look again for an hour.
func TestWaitForVideoReplansWhenAPeerFinishes(t *testing.T) {
	t.Parallel()
	k := TaskKind{Model: "m"}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, done := sleepingWait(t, ctx, k, task("running"), task("succeeded"))
	for range estimatorMinObservations {
		c.learner.observe(k, 10*time.Millisecond, 11*time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatalf("the wait did not look again after peers finished: %v", err)
	}
}

// A wait that stops without its clip no longer counts as a task of its kind
// still running, or one abandoned wait would keep the kind's estimate from
// being trusted for the rest of the run.
func TestWaitForVideoForgetsAWaitThatStops(t *testing.T) {
	t.Parallel()
	k := TaskKind{Model: "m"}
	ctx, cancel := context.WithCancel(t.Context())
	c, done := sleepingWait(t, ctx, k, task("running"))
	running := func() int {
		c.learner.mu.Lock()
		defer c.learner.mu.Unlock()
		return len(c.learner.history(k).running)
	}
	if n := running(); n != 1 {
		t.Fatalf("%d waits of the kind running while one waits, want 1", n)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled wait returned no error")
	}
	if n := running(); n != 0 {
		t.Errorf("%d waits of the kind still counted as running after the only one stopped", n)
	}
}

type logFunc func(msg string)

func (f logFunc) Debug(_ context.Context, msg string, _ map[string]any) { f(msg) }
