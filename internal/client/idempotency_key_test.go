package client

import (
	"net/http"
	"strings"
	"testing"
)

// A submission's Idempotency-Key goes out as its header on every attempt,
// the retry of a 429 included, on both APIs, and never in the body; a read
// and a submission without a key send none.
func TestSubmissionSendsItsIdempotencyKeyOnEveryAttempt(t *testing.T) {
	t.Parallel()
	for _, api := range []API{APIVideoGenerations, APIOpenAIVideos} {
		t.Run(string(api), func(t *testing.T) {
			t.Parallel()
			answer := `{"task_id":"t1","status":"submitted"}`
			if api == APIOpenAIVideos {
				answer = `{"id":"t1","object":"video","status":"queued"}`
			}
			srv, s := newScriptServer(t, errReply(http.StatusTooManyRequests, "slow down"), okReply(answer))
			c := newTestClient(t, srv.URL, WithAPI(api))
			req := VideoRequest{Model: "m", Prompt: "p", Seconds: "4", IdempotencyKey: "note-key-1"}
			if _, err := c.SubmitVideo(t.Context(), req); err != nil {
				t.Fatalf("SubmitVideo: %v", err)
			}
			if s.hits() != 2 {
				t.Fatalf("the server saw %d requests, want the 429 and its retry", s.hits())
			}
			for i := range 2 {
				r := s.request(i)
				if got := r.Header.Get(IdempotencyKeyHeader); got != "note-key-1" {
					t.Errorf("attempt %d sent Idempotency-Key %q, want note-key-1", i+1, got)
				}
				if strings.Contains(string(r.Body), "note-key-1") {
					t.Errorf("attempt %d carries the key in its body: %s", i+1, r.Body)
				}
			}
			req.IdempotencyKey = ""
			if _, err := c.SubmitVideo(t.Context(), req); err != nil {
				t.Fatalf("SubmitVideo: %v", err)
			}
			if _, err := c.GetVideo(t.Context(), "t1"); err != nil {
				t.Fatalf("GetVideo: %v", err)
			}
			for i := 2; i < s.hits(); i++ {
				if got, ok := s.request(i).Header[IdempotencyKeyHeader]; ok {
					t.Errorf("request %d (%s) sent Idempotency-Key %q, want none", i+1, s.request(i).Method, got)
				}
			}
		})
	}
}
