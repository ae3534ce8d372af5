package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func task(status string) reply {
	return okReply(`{"task_id":"task-1","status":"` + status + `"}`)
}

func TestWaitForVideo(t *testing.T) {
	t.Parallel()
	unavailable := errReply(http.StatusServiceUnavailable, "upstream busy")
	// Each poll is one attempt plus one retry (WithMaxRetries(1)), so a failed poll is two 503s.
	tests := []struct {
		name     string
		replies  []reply
		maxErrs  int
		timeout  time.Duration
		wantURL  string
		wantHits int
		check    func(t *testing.T, v *Video, err error)
	}{
		{
			name: "submitted, running, succeeded",
			replies: []reply{task("submitted"), task("running"), task("running"),
				okReply(`{"task_id":"task-1","status":"succeeded","url":"https://cdn.example.com/1.mp4","format":"mp4"}`)},
			wantURL:  "https://cdn.example.com/1.mp4",
			wantHits: 4,
		},
		{
			name: "failed",
			replies: []reply{task("running"),
				okReply(`{"task_id":"task-1","status":"failed","error":{"message":"content policy violation"}}`)},
			wantHits: 2,
			check: func(t *testing.T, v *Video, err error) {
				var failed *TaskFailedError
				if !errors.As(err, &failed) {
					t.Fatalf("error = %v (%T), want *TaskFailedError", err, err)
				}
				if failed.TaskID != "task-1" || failed.Reason != "content policy violation" {
					t.Errorf("TaskFailedError = %+v", failed)
				}
				if !strings.Contains(err.Error(), "content policy violation") {
					t.Errorf("Error() = %q lacks the reason", err)
				}
				if v == nil || v.Status != StatusFailed {
					t.Errorf("returned video = %+v, want the failed task", v)
				}
			},
		},
		{
			name:     "transient errors within the limit are tolerated",
			replies:  []reply{task("running"), unavailable, unavailable, unavailable, unavailable, task("succeeded")},
			maxErrs:  2,
			wantHits: 6,
		},
		{
			name:     "errors reset after a good poll",
			replies:  []reply{unavailable, unavailable, task("running"), unavailable, unavailable, task("succeeded")},
			maxErrs:  1,
			wantHits: 6,
		},
		{
			name:     "too many transient errors",
			replies:  []reply{task("running"), unavailable},
			maxErrs:  2,
			wantHits: 1 + 3*2,
			check: func(t *testing.T, v *Video, err error) {
				var we *WaitError
				if !errors.As(err, &we) {
					t.Fatalf("error = %v (%T), want *WaitError", err, err)
				}
				if we.LastStatus != StatusRunning || we.Polls != 4 || we.Interrupted() {
					t.Errorf("WaitError = %+v, want last status running after 4 polls, not interrupted", we)
				}
				if !IsServerError(err) || !strings.Contains(err.Error(), "upstream busy") {
					t.Errorf("error %q does not carry the service's 503", err)
				}
				if v == nil || v.Status != StatusRunning {
					t.Errorf("returned video = %+v, want the last state seen", v)
				}
			},
		},
		{
			name:     "404 stops at once",
			replies:  []reply{task("running"), errReply(http.StatusNotFound, "task not found"), task("succeeded")},
			maxErrs:  5,
			wantHits: 2,
			check: func(t *testing.T, _ *Video, err error) {
				var we *WaitError
				if !errors.As(err, &we) || !IsNotFound(err) || we.Interrupted() {
					t.Fatalf("error = %v, want a WaitError wrapping a 404", err)
				}
				if we.LastStatus != StatusRunning || we.Polls != 2 {
					t.Errorf("WaitError = %+v", we)
				}
			},
		},
		{
			name: "unknown status keeps waiting",
			replies: []reply{task("running"), task("paused"), task("paused"),
				okReply(`{"task_id":"task-1","status":"succeeded","url":"https://cdn.example.com/1.mp4"}`)},
			wantURL:  "https://cdn.example.com/1.mp4",
			wantHits: 4,
		},
		{
			name:     "expired stops",
			replies:  []reply{task("running"), task("expired"), task("succeeded")},
			wantHits: 2,
			check: func(t *testing.T, v *Video, err error) {
				var failed *TaskFailedError
				if !errors.As(err, &failed) || !strings.Contains(err.Error(), `"expired"`) {
					t.Fatalf("error = %v (%T), want a *TaskFailedError naming the status", err, err)
				}
				if v == nil || v.Status != StatusExpired || v.RawStatus != "expired" {
					t.Errorf("returned video = %+v, want the expired task", v)
				}
			},
		},
		{
			name:     "cancelled stops",
			replies:  []reply{task("submitted"), task("CANCELED"), task("succeeded")},
			wantHits: 2,
			check: func(t *testing.T, v *Video, err error) {
				var failed *TaskFailedError
				if !errors.As(err, &failed) || !strings.Contains(err.Error(), `"CANCELED"`) {
					t.Fatalf("error = %v (%T), want a *TaskFailedError naming the status", err, err)
				}
				if v == nil || v.Status != StatusCancelled {
					t.Errorf("returned video = %+v, want the cancelled task", v)
				}
			},
		},
		{
			name:    "deadline",
			replies: []reply{task("submitted"), task("running")},
			timeout: 150 * time.Millisecond,
			check: func(t *testing.T, v *Video, err error) {
				var we *WaitError
				if !errors.As(err, &we) {
					t.Fatalf("error = %v (%T), want *WaitError", err, err)
				}
				if !we.Interrupted() || !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Interrupted() = false for %v", err)
				}
				if we.LastStatus != StatusRunning || we.TaskID != "task-1" || we.Polls < 2 {
					t.Errorf("WaitError = %+v, want last status running", we)
				}
				if !strings.Contains(err.Error(), "last status seen: running") {
					t.Errorf("Error() = %q", err)
				}
				if v == nil || v.Status != StatusRunning {
					t.Errorf("returned video = %+v", v)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, tt.replies...)
			c := newTestClient(t, srv.URL, WithMaxRetries(1),
				WithPollPolicy(PollPolicy{Fixed: 2 * time.Millisecond, MaxConsecutiveErrors: tt.maxErrs}))
			ctx := t.Context()
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			v, err := c.WaitForVideo(ctx, "task-1")
			if tt.check != nil {
				tt.check(t, v, err)
			} else {
				if err != nil {
					t.Fatalf("WaitForVideo: %v", err)
				}
				if v.Status != StatusSucceeded || v.URL != tt.wantURL {
					t.Fatalf("WaitForVideo = %+v, want succeeded with url %q", v, tt.wantURL)
				}
			}
			if tt.wantHits > 0 && s.hits() != tt.wantHits {
				t.Errorf("server hits = %d, want %d", s.hits(), tt.wantHits)
			}
			for i := range s.hits() {
				if p := s.request(i).Path; p != "/v1/video/generations/task-1" {
					t.Errorf("poll %d went to %q", i, p)
				}
			}
		})
	}
}

func TestWaitForVideoCancelledBeforeFirstPoll(t *testing.T) {
	t.Parallel()
	srv, s := newScriptServer(t, task("running"))
	c := newTestClient(t, srv.URL, WithPollPolicy(PollPolicy{Fixed: time.Hour}))
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.WaitForVideo(ctx, "task-1")
	if time.Since(start) > 2*time.Second {
		t.Fatal("WaitForVideo ignored the cancellation")
	}
	var we *WaitError
	if !errors.As(err, &we) || !we.Interrupted() || !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want an interrupted WaitError", err)
	}
	if we.LastStatus != "" || !strings.Contains(err.Error(), "unknown (no successful poll)") {
		t.Errorf("WaitError = %+v / %q", we, err)
	}
	if s.hits() != 0 {
		t.Errorf("hits = %d, want 0", s.hits())
	}
}

// A service that keeps timing out single requests is a service failure, not the end
// of the caller's deadline: Interrupted must say false, or the provider will tell the
// user to raise a timeout that was never reached.
func TestWaitForVideoRequestTimeoutsAreNotInterruptions(t *testing.T) {
	t.Parallel()
	srv, _ := newScriptServer(t, task("running"), reply{hang: true})
	c := newTestClient(t, srv.URL, WithMaxRetries(0), WithRequestTimeout(50*time.Millisecond),
		WithPollPolicy(PollPolicy{Fixed: time.Millisecond, MaxConsecutiveErrors: 1}))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := c.WaitForVideo(ctx, "task-1")
	var we *WaitError
	if !errors.As(err, &we) {
		t.Fatalf("error = %v (%T), want *WaitError", err, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the caller's deadline passed: %v", ctx.Err())
	}
	var tErr *TransportError
	if !errors.As(err, &tErr) {
		t.Errorf("error = %v, want a TransportError inside", err)
	}
	if we.Interrupted() {
		t.Errorf("Interrupted() = true although the caller's context is live; error: %v", err)
	}
	if we.LastStatus != StatusRunning {
		t.Errorf("LastStatus = %q, want running", we.LastStatus)
	}
}

// pollTimes runs a policy without a service: the times of its first n polls for a
// wait with shift fraction u, each poll taking no time.
func pollTimes(p PollPolicy, u float64, n int) []time.Duration {
	if u == 0 {
		return p.Looks(n)
	}
	var out []time.Duration
	var at, mark time.Duration
	for range n {
		var d time.Duration
		d, mark = p.delay(mark, at, u, 0, false)
		at += d
		out = append(out, at)
	}
	return out
}

func TestPollPolicy(t *testing.T) {
	t.Parallel()
	def := DefaultPollPolicy()
	tests := []struct {
		name  string
		p     PollPolicy
		check func(t *testing.T, p PollPolicy)
	}{
		{
			name: "fixed ignores the schedule, the shift and a hint on a successful poll",
			p:    PollPolicy{Initial: time.Second, FastPolls: 3, Max: 5 * time.Second, Jitter: 0.5, Fixed: 3 * time.Second},
			check: func(t *testing.T, p PollPolicy) {
				for _, at := range []time.Duration{0, time.Second, 5 * time.Second, time.Hour} {
					if got, _ := p.delay(0, at, 0.9, 0, false); got != 3*time.Second {
						t.Fatalf("delay at %s = %s, want the fixed 3s", at, got)
					}
				}
				if got, _ := p.delay(0, time.Second, 0.9, 30*time.Second, false); got != 3*time.Second {
					t.Errorf("delay with a Retry-After on a successful poll = %s, want poll_interval to override it", got)
				}
			},
		},
		{
			name: "fixed never undercuts a rate limit",
			p:    PollPolicy{Fixed: time.Second},
			check: func(t *testing.T, p PollPolicy) {
				if got, _ := p.delay(0, time.Second, 0, 7*time.Second, true); got != 7*time.Second {
					t.Errorf("delay after a 429 with Retry-After 7s = %s, want 7s", got)
				}
				if got, _ := p.delay(0, time.Second, 0, 0, true); got != time.Second {
					t.Errorf("delay after an error without Retry-After = %s, want the fixed 1s", got)
				}
			},
		},
		{
			name: "default schedule: five quick looks, then every multiple of 4s",
			p:    def,
			check: func(t *testing.T, p PollPolicy) {
				want := []int64{450, 900, 1350, 1800, 2250, 4000, 8000, 12000, 16000} // ms
				for i, got := range pollTimes(p, 0, len(want)) {
					if w := time.Duration(want[i]) * time.Millisecond; got != w {
						t.Fatalf("poll %d at %s, want %s", i+1, got, w)
					}
				}
			},
		},
		{
			name: "a wait's shift delays every look by the same fraction of its interval",
			p:    def,
			check: func(t *testing.T, p PollPolicy) {
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
			check: func(t *testing.T, p PollPolicy) {
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
			p:    PollPolicy{Initial: 500 * time.Millisecond, Max: 2 * time.Second},
			check: func(t *testing.T, p PollPolicy) {
				if got, _ := p.delay(0, 0, 0, 0, false); got != 2*time.Second {
					t.Errorf("first delay = %s, want the first 2s mark", got)
				}
			},
		},
		{
			name: "a hint on a successful poll replaces the schedule, within bounds",
			p:    def,
			check: func(t *testing.T, p PollPolicy) {
				cases := []struct {
					at, hint time.Duration
					failed   bool
					want     time.Duration
				}{
					{450 * time.Millisecond, 10 * time.Second, false, 10 * time.Second},
					{4 * time.Second, time.Second, false, time.Second}, // sooner than the schedule
					{time.Second, time.Millisecond, false, p.Initial},
					{time.Second, time.Hour, false, RetryAfterCeiling},
					{4 * time.Second, 30 * time.Second, true, 30 * time.Second},
					{4 * time.Second, time.Second, true, 4 * time.Second}, // the schedule's next mark is later
				}
				for _, c := range cases {
					if got, _ := p.delay(c.at, c.at, 0, c.hint, c.failed); got != c.want {
						t.Errorf("delay at %s with Retry-After %s (failed %v) = %s, want %s", c.at, c.hint, c.failed, got, c.want)
					}
				}
				// The shift applies to a hint too, later only.
				if got, _ := p.delay(time.Second, time.Second, 0.5, 5*time.Second, false); got != 5250*time.Millisecond {
					t.Errorf("hinted delay with shift 0.5 = %s, want 5.25s", got)
				}
				// After a hinted poll the schedule resumes at its next mark.
				if _, mark := p.delay(8*time.Second, 9*time.Second, 0, 5*time.Second, false); mark != 8*time.Second {
					t.Errorf("mark after a hint = %s, want the previous mark kept", mark)
				}
			},
		},
		{
			name: "default",
			p:    def,
			check: func(t *testing.T, p PollPolicy) {
				if p.Fixed != 0 || p.Initial <= 0 || p.Max < p.Initial || p.FastPolls < 1 || p.MaxConsecutiveErrors < 1 || p.Jitter <= 0 {
					t.Fatalf("DefaultPollPolicy() = %+v", p)
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

// The reasoning of DefaultPollPolicy's comment, checked for every generation time T
// from 0.05 s to 10 min and for the smallest and largest shifts: the GETs up to and
// including the one that finds the clip stay within 1.25 x T/5 s + 6, a
// clip is noticed within 0.5 s while the fast start lasts, within 10% of T from 40 s
// on, and never more than Max late.
func TestDefaultPollPolicyBudget(t *testing.T) {
	t.Parallel()
	p := DefaultPollPolicy()
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

// Retry-After reaches the schedule from a real response, and poll_interval overrides
// it on a successful poll but not on a rate-limited one.
func TestWaitForVideoRetryAfter(t *testing.T) {
	t.Parallel()
	running := reply{status: http.StatusOK, body: `{"task_id":"task-1","status":"running"}`, header: map[string]string{"Retry-After": "1"}}
	limited := reply{status: http.StatusTooManyRequests, body: `{"error":{"message":"slow down","type":"rate_limit_error"}}`,
		header: map[string]string{"Retry-After": "1"}}
	// A long hint keeps "overridden" seconds away from "honoured" on a loaded machine.
	runningLongHint := reply{status: http.StatusOK, body: `{"task_id":"task-1","status":"running"}`,
		header: map[string]string{"Retry-After": "30"}}
	tests := []struct {
		name     string
		first    reply
		policy   PollPolicy
		atLeast  time.Duration
		atMost   time.Duration
		wantHits int
	}{
		{name: "hint on a running task is honoured", first: running,
			policy:  PollPolicy{Initial: time.Millisecond, FastPolls: 100, Max: time.Millisecond, MaxConsecutiveErrors: 1},
			atLeast: time.Second, atMost: 5 * time.Second, wantHits: 2},
		{name: "poll_interval overrides a hint on a running task", first: runningLongHint,
			policy:  PollPolicy{Fixed: 2 * time.Millisecond, MaxConsecutiveErrors: 1},
			atLeast: 0, atMost: 5 * time.Second, wantHits: 2},
		{name: "poll_interval never undercuts a rate limit", first: limited,
			policy:  PollPolicy{Fixed: 2 * time.Millisecond, MaxConsecutiveErrors: 1},
			atLeast: time.Second, atMost: 5 * time.Second, wantHits: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, tt.first, task("succeeded"))
			c := newTestClient(t, srv.URL, WithMaxRetries(0), WithPollPolicy(tt.policy))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			start := time.Now()
			v, err := c.WaitForVideo(ctx, "task-1")
			elapsed := time.Since(start)
			if err != nil || v.Status != StatusSucceeded {
				t.Fatalf("WaitForVideo = %+v, %v", v, err)
			}
			if elapsed < tt.atLeast || elapsed > tt.atMost {
				t.Errorf("the wait took %s, want between %s and %s", elapsed, tt.atLeast, tt.atMost)
			}
			if s.hits() != tt.wantHits {
				t.Errorf("server hits = %d, want %d", s.hits(), tt.wantHits)
			}
		})
	}
}

func TestWaitErrorMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{
			name: "wait error",
			err:  &WaitError{TaskID: "t1", LastStatus: StatusRunning, Elapsed: 90 * time.Second, Polls: 12, Err: context.DeadlineExceeded},
			want: "stopped waiting for task t1 after 1m30s and 12 polls; last status seen: running: context deadline exceeded",
		},
		{
			name: "task failed with reason",
			err:  &TaskFailedError{TaskID: "t1", Reason: "NSFW"},
			want: "task t1 failed: NSFW",
		},
		{
			name: "task failed without reason",
			err:  &TaskFailedError{TaskID: "t1"},
			want: "task t1 failed; the service gave no reason",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.err.Error(); got != tt.want {
				t.Fatalf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}
