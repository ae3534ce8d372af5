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
	tests := []struct {
		name  string
		p     PollPolicy
		check func(t *testing.T, p PollPolicy)
	}{
		{
			name: "fixed ignores growth and jitter",
			p:    PollPolicy{Initial: time.Second, Max: 5 * time.Second, Factor: 2, Jitter: 0.5, Fixed: 3 * time.Second},
			check: func(t *testing.T, p PollPolicy) {
				if p.first() != 3*time.Second || p.next(3*time.Second) != 3*time.Second || p.next(time.Hour) != 3*time.Second {
					t.Fatalf("fixed policy gave %s, %s", p.first(), p.next(3*time.Second))
				}
			},
		},
		{
			name: "no jitter is exact",
			p:    PollPolicy{Initial: time.Second, Max: 5 * time.Second, Factor: 1.5},
			check: func(t *testing.T, p PollPolicy) {
				if got := p.first(); got != time.Second {
					t.Errorf("first = %s", got)
				}
				if got := p.next(time.Second); got != 1500*time.Millisecond {
					t.Errorf("next(1s) = %s", got)
				}
				if got := p.next(4 * time.Second); got != 5*time.Second {
					t.Errorf("next(4s) = %s, want the 5s cap", got)
				}
			},
		},
		{
			name: "jitter bounds",
			p:    PollPolicy{Initial: time.Second, Max: 5 * time.Second, Factor: 1.5, Jitter: 0.2},
			check: func(t *testing.T, p PollPolicy) {
				for range 200 {
					within(t, "first", p.first(), time.Second, 0.2)
					within(t, "next(1s)", p.next(time.Second), 1500*time.Millisecond, 0.2)
					within(t, "next(10s)", p.next(10*time.Second), 5*time.Second, 0.2)
				}
			},
		},
		{
			name: "zero previous goes to max",
			p:    PollPolicy{Initial: 0, Max: 2 * time.Second, Factor: 1.5},
			check: func(t *testing.T, p PollPolicy) {
				if got := p.next(0); got != 2*time.Second {
					t.Fatalf("next(0) = %s, want max", got)
				}
			},
		},
		{
			name: "default",
			p:    DefaultPollPolicy(),
			check: func(t *testing.T, p PollPolicy) {
				if p.Fixed != 0 || p.Initial <= 0 || p.Max < p.Initial || p.Factor <= 1 || p.MaxConsecutiveErrors < 1 {
					t.Fatalf("DefaultPollPolicy() = %+v", p)
				}
				d := p.first()
				for range 20 {
					d = p.next(d)
					if d > time.Duration(float64(p.Max)*(1+p.Jitter)) {
						t.Fatalf("interval %s exceeds the jittered max", d)
					}
				}
				within(t, "settled interval", d, p.Max, p.Jitter)
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
