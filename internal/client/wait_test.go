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
			name:     "unknown status stops",
			replies:  []reply{task("running"), task("paused")},
			maxErrs:  5,
			wantHits: 2,
			check: func(t *testing.T, _ *Video, err error) {
				if err == nil || !strings.Contains(err.Error(), `"paused"`) {
					t.Fatalf("error = %v, want the unknown status named", err)
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

func TestPollPolicy(t *testing.T) {
	t.Parallel()
	within := func(t *testing.T, name string, got, center time.Duration, jitter float64) {
		t.Helper()
		lo := time.Duration(float64(center) * (1 - jitter))
		hi := time.Duration(float64(center) * (1 + jitter))
		if got < lo || got > hi {
			t.Fatalf("%s = %s, want within [%s, %s]", name, got, lo, hi)
		}
	}
	noJitter := DefaultPollPolicy()
	noJitter.Jitter = 0
	tests := []struct {
		name  string
		p     PollPolicy
		check func(t *testing.T, p PollPolicy)
	}{
		{
			name: "fixed ignores the schedule, jitter and a hint on a successful poll",
			p:    PollPolicy{Initial: time.Second, FastPolls: 3, Max: 5 * time.Second, Jitter: 0.5, Fixed: 3 * time.Second},
			check: func(t *testing.T, p PollPolicy) {
				for _, polls := range []int{0, 1, 5, 100} {
					if got := p.delay(polls, time.Duration(polls)*time.Second, 0, false); got != 3*time.Second {
						t.Fatalf("delay after %d polls = %s, want the fixed 3s", polls, got)
					}
				}
				if got := p.delay(1, time.Second, 30*time.Second, false); got != 3*time.Second {
					t.Errorf("delay with a Retry-After on a successful poll = %s, want poll_interval to override it", got)
				}
			},
		},
		{
			name: "fixed never undercuts a rate limit",
			p:    PollPolicy{Fixed: time.Second},
			check: func(t *testing.T, p PollPolicy) {
				if got := p.delay(1, time.Second, 7*time.Second, true); got != 7*time.Second {
					t.Errorf("delay after a 429 with Retry-After 7s = %s, want 7s", got)
				}
				if got := p.delay(1, time.Second, 0, true); got != time.Second {
					t.Errorf("delay after an error without Retry-After = %s, want the fixed 1s", got)
				}
			},
		},
		{
			name: "default schedule: five quick looks, then every multiple of 4s",
			p:    noJitter,
			check: func(t *testing.T, p PollPolicy) {
				want := []time.Duration{450, 900, 1350, 1800, 2250, 4000, 8000, 12000, 16000}
				var at time.Duration
				for i, w := range want {
					at += p.delay(i, at, 0, false)
					if at != w*time.Millisecond {
						t.Fatalf("poll %d at %s, want %s", i+1, at, w*time.Millisecond)
					}
				}
			},
		},
		{
			name: "a jittered poll keeps to the marks",
			p:    noJitter,
			check: func(t *testing.T, p PollPolicy) {
				// Early by 0.15s before the 4s mark: the next look is at 8s, not a second one at 4s.
				if got := p.interval(6, 3850*time.Millisecond); got != 4150*time.Millisecond {
					t.Errorf("interval at 3.85s = %s, want 4.15s (to the 8s mark)", got)
				}
				if got := p.interval(6, 4300*time.Millisecond); got != 3700*time.Millisecond {
					t.Errorf("interval at 4.3s = %s, want 3.7s (to the 8s mark)", got)
				}
				// After a long Retry-After the schedule resumes at the next mark, without a burst.
				if got := p.interval(7, 17300*time.Millisecond); got != 2700*time.Millisecond {
					t.Errorf("interval at 17.3s = %s, want 2.7s (to the 20s mark)", got)
				}
				if got := p.interval(7, 19800*time.Millisecond); got != 4200*time.Millisecond {
					t.Errorf("interval at 19.8s = %s, want 4.2s (the 20s mark is closer than Initial)", got)
				}
			},
		},
		{
			name: "no fast start begins on the marks",
			p:    PollPolicy{Initial: 500 * time.Millisecond, Max: 2 * time.Second},
			check: func(t *testing.T, p PollPolicy) {
				if got := p.delay(0, 0, 0, false); got != 2*time.Second {
					t.Errorf("first delay = %s, want the first 2s mark", got)
				}
			},
		},
		{
			name: "a hint on a successful poll replaces the schedule, within bounds",
			p:    noJitter,
			check: func(t *testing.T, p PollPolicy) {
				if got := p.delay(1, 450*time.Millisecond, 10*time.Second, false); got != 10*time.Second {
					t.Errorf("delay with Retry-After 10s = %s, want 10s", got)
				}
				if got := p.delay(6, 4*time.Second, time.Second, false); got != time.Second {
					t.Errorf("delay with Retry-After 1s = %s, want 1s (sooner than the schedule)", got)
				}
				if got := p.delay(1, time.Second, time.Millisecond, false); got != p.Initial {
					t.Errorf("delay with a tiny Retry-After = %s, want Initial", got)
				}
				if got := p.delay(1, time.Second, time.Hour, false); got != RetryAfterCeiling {
					t.Errorf("delay with Retry-After 1h = %s, want the ceiling", got)
				}
				if got := p.delay(6, 4*time.Second, 30*time.Second, true); got != 30*time.Second {
					t.Errorf("delay after a 429 with Retry-After 30s = %s, want 30s", got)
				}
				if got := p.delay(6, 4*time.Second, time.Second, true); got != 4*time.Second {
					t.Errorf("delay after a 429 with Retry-After 1s = %s, want the schedule's 4s", got)
				}
			},
		},
		{
			name: "jitter bounds",
			p:    DefaultPollPolicy(),
			check: func(t *testing.T, p PollPolicy) {
				for range 200 {
					within(t, "first", p.delay(0, 0, 0, false), 450*time.Millisecond, p.Jitter)
					within(t, "after the fast start", p.delay(5, 2250*time.Millisecond, 0, false), 1750*time.Millisecond, p.Jitter)
					within(t, "settled", p.delay(9, 16*time.Second, 0, false), 4*time.Second, p.Jitter)
					if got := p.delay(3, time.Second, 5*time.Second, false); got < 5*time.Second || got > 5500*time.Millisecond {
						t.Fatalf("hinted delay = %s, want within [5s, 5.5s]: jitter never undercuts a hint", got)
					}
				}
			},
		},
		{
			name: "default",
			p:    DefaultPollPolicy(),
			check: func(t *testing.T, p PollPolicy) {
				if p.Fixed != 0 || p.Initial <= 0 || p.Max < p.Initial || p.FastPolls < 1 || p.MaxConsecutiveErrors < 1 {
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
// from 0.05 s to 10 min without jitter: the GETs up to and including the one that
// finds the clip stay within issue 6's 1.25 x T/5 s + 6, a clip is noticed within
// 0.5 s while the fast start lasts, within 10% of T from 40 s on, and never more
// than Max late.
func TestDefaultPollPolicyBudget(t *testing.T) {
	t.Parallel()
	p := DefaultPollPolicy()
	p.Jitter = 0
	var polls []time.Duration
	var at time.Duration
	for at < 11*time.Minute {
		at += p.delay(len(polls), at, 0, false)
		polls = append(polls, at)
	}
	for T := 50 * time.Millisecond; T <= 10*time.Minute; T += 50 * time.Millisecond {
		n := 0
		for polls[n] < T {
			n++
		}
		gets, latency := n+1, polls[n]-T
		if budget := 1.25*T.Seconds()/5 + 6; float64(gets) > budget {
			t.Fatalf("T=%s: %d GETs, over the budget of %.2f", T, gets, budget)
		}
		if latency > p.Max {
			t.Fatalf("T=%s: noticed %s late, more than Max", T, latency)
		}
		if T <= 2250*time.Millisecond && latency > 500*time.Millisecond {
			t.Fatalf("T=%s: noticed %s late during the fast start, want at most 0.5s", T, latency)
		}
		if T >= 40*time.Second && latency > T/10 {
			t.Fatalf("T=%s: noticed %s late, want at most 10%% of T", T, latency)
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
		{name: "poll_interval overrides a hint on a running task", first: running,
			policy:  PollPolicy{Fixed: 2 * time.Millisecond, MaxConsecutiveErrors: 1},
			atLeast: 0, atMost: 900 * time.Millisecond, wantHits: 2},
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
