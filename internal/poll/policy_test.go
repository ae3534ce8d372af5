package poll

import (
	"math"
	"testing"
	"time"
)

func sec(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// pollTimes runs a policy's default schedule alone: the times of its first n
// looks for a wait with shift fraction u, each look taking no time.
func pollTimes(p Policy, u float64, n int) []time.Duration { return looks(p.Budgeted(u), n) }

// after plans the look after one made at elapsed, by a wait that has made n
// looks and whose default schedule aimed at mark, and returns the delay until
// it and the mark the default schedule keeps. The look reports no send time,
// so that a Learned schedule's own wait does not stretch its kind's window.
func after(s Schedule, n int, mark, elapsed, hint time.Duration, failed bool) (time.Duration, time.Duration) {
	b, ok := s.(*Budgeted)
	if l, learned := s.(*Learned); learned {
		b, ok = l.def, true
	}
	if !ok {
		return s.Next(Look{N: n, At: elapsed, RetryAfter: hint, Failed: failed}) - elapsed, 0
	}
	b.mark = mark
	at := s.Next(Look{N: n, At: elapsed, RetryAfter: hint, Failed: failed})
	return at - elapsed, b.mark
}

func TestFixed(t *testing.T) {
	t.Parallel()
	p := Policy{Initial: time.Second, FastPolls: 3, Max: 5 * time.Second, Jitter: 0.5, Fixed: 3 * time.Second}
	s := p.Schedule(NewEstimator(), "kind", 0.9)
	if _, ok := s.(Fixed); !ok {
		t.Fatalf("a policy with a fixed interval gave a %T, want Fixed (no shift, no learning)", s)
	}
	for _, at := range []time.Duration{0, time.Second, 5 * time.Second, time.Hour} {
		if got, _ := after(s, 1, 0, at, 0, false); got != 3*time.Second {
			t.Fatalf("delay at %s = %s, want the fixed 3s", at, got)
		}
	}
	if got, _ := after(s, 1, 0, time.Second, 30*time.Second, false); got != 3*time.Second {
		t.Errorf("delay with a Retry-After on a successful poll = %s, want poll_interval to override it", got)
	}
	// Never undercuts a rate limit.
	if got, _ := after(s, 1, 0, time.Second, 7*time.Second, true); got != 7*time.Second {
		t.Errorf("delay after a 429 with Retry-After 7s = %s, want 7s", got)
	}
	if got, _ := after(s, 1, 0, time.Second, 0, true); got != 3*time.Second {
		t.Errorf("delay after an error without Retry-After = %s, want the fixed 3s", got)
	}
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	def := DefaultPolicy()
	tests := []struct {
		name  string
		p     Policy
		check func(t *testing.T, p Policy)
	}{
		{
			name: "default schedule: five quick looks, then every multiple of 4s",
			p:    def,
			check: func(t *testing.T, p Policy) {
				want := []int64{450, 900, 1350, 1800, 2250, 4000, 8000, 12000, 16000} // ms
				for i, got := range p.Looks(len(want)) {
					if w := time.Duration(want[i]) * time.Millisecond; got != w {
						t.Fatalf("poll %d at %s, want %s", i+1, got, w)
					}
				}
			},
		},
		{
			name: "a wait's shift delays every look by the same fraction of its interval",
			p:    def,
			check: func(t *testing.T, p Policy) {
				// u = 0.5 and Jitter 0.1: 22.5ms after the fast marks, 200ms after the later ones.
				want := []int64{472500, 922500, 1372500, 1822500, 2272500, 4200000, 8200000, 12200000} // µs
				for i, got := range pollTimes(p, 0.5, len(want)) {
					if w := time.Duration(want[i]) * time.Microsecond; got != w {
						t.Fatalf("poll %d at %s, want %s", i+1, got, w)
					}
				}
			},
		},
		{
			name: "a slow poll or a long hint resumes at the next mark, without a burst",
			p:    def,
			check: func(t *testing.T, p Policy) {
				cases := []struct{ last, at, want time.Duration }{
					{900 * time.Millisecond, 1900 * time.Millisecond, 2250 * time.Millisecond}, // skips 1.35s and 1.8s
					{2250 * time.Millisecond, 2300 * time.Millisecond, 4 * time.Second},
					{16 * time.Second, 17300 * time.Millisecond, 20 * time.Second},
					{16 * time.Second, 19800 * time.Millisecond, 24 * time.Second}, // 20s is closer than Initial/2
					{4 * time.Second, 4001 * time.Millisecond, 8 * time.Second},
				}
				for _, c := range cases {
					if got := p.nextMark(c.last, c.at, 0); got != c.want {
						t.Errorf("nextMark(last %s, at %s) = %s, want %s", c.last, c.at, got, c.want)
					}
				}
			},
		},
		{
			name: "no fast start begins on the marks",
			p:    Policy{Initial: 500 * time.Millisecond, Max: 2 * time.Second},
			check: func(t *testing.T, p Policy) {
				if got := p.Looks(1)[0]; got != 2*time.Second {
					t.Errorf("first look at %s, want the first 2s mark", got)
				}
			},
		},
		{
			name: "a hint on a successful poll replaces the schedule, within bounds",
			p:    def,
			check: func(t *testing.T, p Policy) {
				cases := []struct {
					at, hint time.Duration
					failed   bool
					want     time.Duration
				}{
					{450 * time.Millisecond, 10 * time.Second, false, 10 * time.Second},
					{4 * time.Second, time.Second, false, time.Second}, // sooner than the schedule
					{time.Second, time.Millisecond, false, p.Initial},
					{4 * time.Second, 30 * time.Second, true, 30 * time.Second},
					{4 * time.Second, time.Second, true, 4 * time.Second}, // the schedule's next mark is later
				}
				for _, c := range cases {
					if got, _ := after(p.Budgeted(0), 1, c.at, c.at, c.hint, c.failed); got != c.want {
						t.Errorf("delay at %s with Retry-After %s (failed %v) = %s, want %s", c.at, c.hint, c.failed, got, c.want)
					}
				}
				// The shift applies to a hint too, later only.
				if got, _ := after(p.Budgeted(0.5), 1, time.Second, time.Second, 5*time.Second, false); got != 5250*time.Millisecond {
					t.Errorf("hinted delay with shift 0.5 = %s, want 5.25s", got)
				}
				// After a hinted poll the schedule resumes at its next mark.
				if _, mark := after(p.Budgeted(0), 1, 8*time.Second, 9*time.Second, 5*time.Second, false); mark != 8*time.Second {
					t.Errorf("mark after a hint = %s, want the previous mark kept", mark)
				}
			},
		},
		{
			name: "default",
			p:    def,
			check: func(t *testing.T, p Policy) {
				if p.Fixed != 0 || p.Initial <= 0 || p.Max < p.Initial || p.FastPolls < 1 || p.MaxConsecutiveErrors < 1 || p.Jitter <= 0 {
					t.Fatalf("DefaultPolicy() = %+v", p)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, tt.p)
		})
	}
}

// The reasoning of DefaultPolicy's comment, checked for every generation time T
// from 0.05 s to 10 min and for the smallest and largest shifts: the GETs up to and
// including the one that finds the clip stay within 1.25 x T/5 s + 6, a
// clip is noticed within 0.5 s while the fast start lasts, within 10% of T from 40 s
// on, and never more than Max late.
func TestDefaultPolicyBudget(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	for _, u := range []float64{0, 0.5, 0.9999} {
		polls := pollTimes(p, u, 200)
		for T := 50 * time.Millisecond; T <= 10*time.Minute; T += 50 * time.Millisecond {
			n := 0
			for polls[n] < T {
				n++
			}
			gets, latency := n+1, polls[n]-T
			if budget := 1.25*T.Seconds()/5 + 6; float64(gets) > budget {
				t.Fatalf("u=%v, T=%s: %d GETs, over the budget of %.2f", u, T, gets, budget)
			}
			if latency > p.Max {
				t.Fatalf("u=%v, T=%s: noticed %s late, more than Max", u, T, latency)
			}
			if T <= 2250*time.Millisecond && latency > 500*time.Millisecond {
				t.Fatalf("u=%v, T=%s: noticed %s late during the fast start, want at most 0.5s", u, T, latency)
			}
			if T >= 40*time.Second && latency > T/10 {
				t.Fatalf("u=%v, T=%s: noticed %s late, want at most 10%% of T", u, T, latency)
			}
		}
	}
}

// The default schedule stays within the budget that bounds learned looks.
func TestDefaultScheduleWithinBudget(t *testing.T) {
	t.Parallel()
	for _, p := range []Policy{DefaultPolicy(), {Initial: time.Second, FastPolls: 5, Max: 2 * time.Second},
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
func TestBudgetedKeepsThePace(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	if got, mark := after(p.Budgeted(0), 9, sec(8), sec(6), 0, false); got != sec(10) || mark != sec(16) {
		t.Errorf("after nine looks by 6 s: next in %s (mark %s), want 10s (the 16 s mark)", got, mark)
	}
	if got, _ := after(p.Budgeted(0), 7, sec(8), sec(6), 0, false); got != sec(2) {
		t.Errorf("after seven looks by 6 s: next in %s, want 2s (the 8 s mark keeps the pace)", got)
	}
}
