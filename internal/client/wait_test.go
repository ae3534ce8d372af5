package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
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
	synctest.Test(t, func(t *testing.T) {
		s := &script{t: t, replies: []reply{task("running")}}
		c := newTestClient(t, "http://service.invalid", WithPollPolicy(PollPolicy{Fixed: time.Hour}),
			WithHTTPClient(&http.Client{Transport: inMemory{s}}))
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := c.WaitForVideo(ctx, "task-1")
		if elapsed := time.Since(start); elapsed != 50*time.Millisecond {
			t.Fatalf("WaitForVideo returned after %s, want at the cancellation, 50ms in", elapsed)
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
	})
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

// Retry-After reaches the schedule from a real response, and poll_interval overrides
// it on a successful poll but not on a rate-limited one. The client runs in a
// bubble, so the wait's length is exact.
func TestWaitForVideoRetryAfter(t *testing.T) {
	t.Parallel()
	running := reply{status: http.StatusOK, body: `{"task_id":"task-1","status":"running"}`, header: map[string]string{"Retry-After": "1"}}
	limited := reply{status: http.StatusTooManyRequests, body: `{"error":{"message":"slow down","type":"rate_limit_error"}}`,
		header: map[string]string{"Retry-After": "1"}}
	tests := []struct {
		name     string
		first    reply
		policy   PollPolicy
		want     time.Duration // from the start of the wait to the look that sees the task done
		wantHits int
	}{
		{name: "hint on a running task is honoured", first: running,
			policy: PollPolicy{Initial: time.Millisecond, FastPolls: 100, Max: time.Millisecond, MaxConsecutiveErrors: 1},
			want:   time.Millisecond + time.Second, wantHits: 2},
		{name: "poll_interval overrides a hint on a running task", first: running,
			policy: PollPolicy{Fixed: 2 * time.Millisecond, MaxConsecutiveErrors: 1},
			want:   4 * time.Millisecond, wantHits: 2},
		{name: "poll_interval never undercuts a rate limit", first: limited,
			policy: PollPolicy{Fixed: 2 * time.Millisecond, MaxConsecutiveErrors: 1},
			want:   2*time.Millisecond + time.Second, wantHits: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := &script{t: t, replies: []reply{tt.first, task("succeeded")}}
				c := newTestClient(t, "http://service.invalid", WithMaxRetries(0), WithPollPolicy(tt.policy),
					WithHTTPClient(&http.Client{Transport: inMemory{s}}))
				start := time.Now()
				v, err := c.WaitForVideo(t.Context(), "task-1")
				if err != nil || v.Status != StatusSucceeded {
					t.Fatalf("WaitForVideo = %+v, %v", v, err)
				}
				if elapsed := time.Since(start); elapsed != tt.want {
					t.Errorf("the wait took %s, want %s", elapsed, tt.want)
				}
				if s.hits() != tt.wantHits {
					t.Errorf("server hits = %d, want %d", s.hits(), tt.wantHits)
				}
			})
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
