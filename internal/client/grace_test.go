package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// heldSubmission is a service that takes a submission and holds its answer
// until the test releases it.
type heldSubmission struct {
	received chan struct{} // closed when the submission arrived
	release  chan struct{} // closed by the test: answer now
	aborted  atomic.Bool   // the client gave up on the request
	hits     atomic.Int32
}

func newHeldSubmission(t *testing.T, answer string) (*httptest.Server, *heldSubmission) {
	t.Helper()
	h := &heldSubmission{received: make(chan struct{}), release: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if h.hits.Add(1) == 1 {
			close(h.received)
		}
		select {
		case <-h.release:
		case <-r.Context().Done():
			h.aborted.Store(true)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-h.release:
		default:
			close(h.release)
		}
	})
	return srv, h
}

// An interrupt while the submission is on the wire does not throw its answer
// away: the task ID comes back.
func TestSubmitInterruptedOnTheWireKeepsTheTaskID(t *testing.T) {
	t.Parallel()
	srv, h := newHeldSubmission(t, `{"task_id":"cgt-kept"}`)
	c := newTestClient(t, srv.URL)
	c.submitGrace = time.Hour // the answer, not a timer, must end the wait
	met := make(chan bool, 1)
	c.interruptHook = func(onWire bool) { met <- onWire }
	ctx, cancel := context.WithCancel(t.Context())
	type result struct {
		v   *Video
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := c.SubmitVideo(ctx, VideoRequest{Model: "m", Prompt: "p"})
		done <- result{v, err}
	}()
	<-h.received
	cancel()
	if onWire := <-met; !onWire {
		t.Fatal("the interrupt was not met with the grace")
	}
	close(h.release)
	r := <-done
	if r.err != nil || r.v == nil || r.v.TaskID != "cgt-kept" {
		t.Fatalf("SubmitVideo = %+v, %v; want task cgt-kept", r.v, r.err)
	}
	if h.aborted.Load() || h.hits.Load() != 1 {
		t.Errorf("aborted %v, hits %d; want the one request answered", h.aborted.Load(), h.hits.Load())
	}
}

// When the grace runs out, the submission is given up with the doubt said.
func TestSubmitInterruptedGraceRunsOut(t *testing.T) {
	t.Parallel()
	srv, h := newHeldSubmission(t, `{"task_id":"never"}`)
	c := newTestClient(t, srv.URL)
	// The service never answers: any grace runs out, however long the machine takes.
	c.submitGrace = time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-h.received
		cancel()
	}()
	_, err := c.SubmitVideo(ctx, VideoRequest{Model: "m", Prompt: "p"})
	if !IsAmbiguousSubmit(err) || !errors.Is(err, context.Canceled) || errors.Is(err, ErrNotSubmitted) {
		t.Fatalf("error = %v, want an ambiguous submission wrapping context.Canceled", err)
	}
	if !strings.Contains(err.Error(), "had not answered the submission") {
		t.Errorf("error %q does not say that the answer never came", err)
	}
	if h.hits.Load() != 1 {
		t.Errorf("hits = %d, want 1", h.hits.Load())
	}
}

// An interrupt met on the wire by a 429 ends the submission when the refusal
// comes back, not after the pause it asks for or the grace: the service did
// nothing, so nothing is left to wait for.
func TestSubmitInterruptedOnTheWireThenRateLimited(t *testing.T) {
	t.Parallel()
	received, release := make(chan struct{}), make(chan struct{})
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if hits.Add(1) == 1 {
			close(received)
		}
		<-release
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit_error"}}`)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, WithRetryWait(time.Hour, time.Hour), WithMaxRetries(3))
	c.submitGrace = time.Hour
	met := make(chan bool, 1)
	c.interruptHook = func(onWire bool) { met <- onWire }
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := c.SubmitVideo(ctx, VideoRequest{Model: "m", Prompt: "p"})
		done <- err
	}()
	<-received
	cancel()
	if onWire := <-met; !onWire {
		t.Fatal("the interrupt was not met with the grace")
	}
	close(release)
	// A bound that only a wait for the pause can reach: the answer ends the call
	// at once, where the pause lasts RetryAfterCeiling and the grace an hour.
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotSubmitted) || IsAmbiguousSubmit(err) {
			t.Fatalf("error = %v, want ErrNotSubmitted without doubt", err)
		}
	case <-time.After(RetryAfterCeiling / 2):
		t.Fatalf("the submission still waits %s after its attempt was refused and the run interrupted", RetryAfterCeiling/2)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("hits = %d, want 1: no attempt after an interrupt", n)
	}
}

// An interrupt after a refused attempt ends the submission without another
// attempt and without a doubt: the service did nothing. (Whether the interrupt
// meets the answer on the wire or the back-off after it, the outcome is the same.)
func TestSubmitInterruptedAfterARefusal(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"message":"busy","type":"overloaded"}}`)
		cancel()
	}))
	t.Cleanup(srv.Close)
	// Long back-off: only the interrupt can end this call quickly.
	c := newTestClient(t, srv.URL, WithRetryWait(time.Hour, time.Hour), WithMaxRetries(3))
	c.submitGrace = time.Hour // the refusal, not a timer, must end the attempt
	_, err := c.SubmitVideo(ctx, VideoRequest{Model: "m", Prompt: "p"})
	if err == nil || IsAmbiguousSubmit(err) {
		t.Fatalf("error = %v, want one without doubt: the only attempt was refused", err)
	}
	if hits.Load() != 1 {
		t.Errorf("hits = %d, want 1", hits.Load())
	}
}
