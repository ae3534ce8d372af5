package client

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

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

// Waits with a kind teach the client's estimator what their looks saw, so
// that after three of them it trusts a window for the kind; a fixed poll
// interval turns learning off. The client runs in a bubble, on its fake
// clock, against a scripted service in memory: every wait looks at exactly
// the default schedule's times.
func TestWaitForVideoLearns(t *testing.T) {
	t.Parallel()
	k := TaskKind{Model: "m", Seconds: "5"}
	learns := func(t *testing.T, policy PollPolicy) (ok bool) {
		synctest.Test(t, func(t *testing.T) {
			var replies []reply
			for range 3 {
				replies = append(replies, task("running"), task("running"), task("succeeded"))
			}
			c := newTestClient(t, "http://service.invalid", WithPollPolicy(policy),
				WithHTTPClient(&http.Client{Transport: inMemory{&script{t: t, replies: replies}}}))
			for range 3 {
				if _, err := c.WaitForVideo(t.Context(), "task-1", WithKind(k)); err != nil {
					t.Fatal(err)
				}
			}
			_, ok = c.learner.Window(k)
		})
		return ok
	}
	if !learns(t, DefaultPollPolicy()) {
		t.Error("after three waits of one kind, the client has no window for it")
	}
	if learns(t, PollPolicy{Fixed: time.Second, MaxConsecutiveErrors: 1}) {
		t.Error("with a fixed poll interval, the waits taught the client a window")
	}
}
