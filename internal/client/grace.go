package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// SubmitInterruptGrace is how long a submission already sent keeps waiting for
// its answer after the run is interrupted (Ctrl-C, SIGTERM, a timeout). The
// answer carries the task ID, and without it a task the service created is
// billed and tracked by nobody. The service answers a submission as soon as it
// has recorded the task, well under a second even through a gateway, so ten
// seconds covers a slow answer many times over, while an interrupted run
// still ends soon after the user asked it to.
const SubmitInterruptGrace = 10 * time.Second

// ErrNotSubmitted ends a submission that was interrupted while none of its
// attempts was on the wire (before the first, or between attempts that the
// service provably did not act on): no task was created.
var ErrNotSubmitted = errors.New("interrupted before the submission reached the service; no task was created")

// submitGuard keeps one submission going through an interrupt while an
// attempt of it is on the wire, for SubmitInterruptGrace at most, and stops it
// at once otherwise. Its context is the submission's context without the
// caller's cancellation, cancelled by the guard instead:
//
//   - an interrupt while no attempt is on the wire (waiting for the rate
//     limiter, backing off between attempts) cancels it at once;
//   - an interrupt while an attempt is on the wire starts the grace; an answer
//     within it is read and returned as usual, and when the grace runs out the
//     attempt is abandoned: the service may have created the task (abandoned);
//   - no attempt starts after an interrupt (submissionGate refuses it), and no
//     retry is made (checkRetry asks interrupted).
type submitGuard struct {
	parent context.Context
	cancel context.CancelCauseFunc
	grace  time.Duration
	// hook, when set, learns how an interrupt was met (onWire: the grace began).
	hook func(onWire bool)

	mu        sync.Mutex
	onWire    bool
	abandoned bool
	timer     *time.Timer
	stopWatch func() bool
}

// guardSubmission returns the context a submission's requests carry, and its guard.
func (c *Client) guardSubmission(parent context.Context) (context.Context, *submitGuard) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	g := &submitGuard{parent: parent, cancel: cancel, grace: c.submitGrace, hook: c.interruptHook}
	g.stopWatch = context.AfterFunc(parent, g.interrupted)
	return ctx, g
}

func (g *submitGuard) interrupted() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.onWire {
		g.timer = time.AfterFunc(g.grace, g.graceOver)
	} else {
		g.cancel(context.Cause(g.parent))
	}
	if g.hook != nil {
		g.hook(g.onWire)
	}
}

func (g *submitGuard) graceOver() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.onWire {
		g.cancel(context.Cause(g.parent))
		return
	}
	g.abandoned = true
	g.cancel(fmt.Errorf("%w, and the service had not answered the submission %s later", context.Cause(g.parent), g.grace))
}

// begin lets an attempt leave this machine, unless the submission was interrupted.
func (g *submitGuard) begin() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.parent.Err() != nil {
		return false
	}
	g.onWire = true
	return true
}

// offWire records that no attempt is on the wire: its answer proved that the
// service did nothing (429), or the next attempt is being waited for. An
// interrupt that came while the attempt was out ends the submission now, as one
// off the wire does, instead of when the grace or the rate limiter's pause ends.
func (g *submitGuard) offWire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.onWire = false
	if g.parent.Err() != nil {
		g.cancel(context.Cause(g.parent))
	}
}

// isInterrupted reports whether the caller's context has ended.
func (g *submitGuard) isInterrupted() bool { return g.parent.Err() != nil }

// wasAbandoned reports an attempt given up on while it was on the wire: the
// service may have created its task.
func (g *submitGuard) wasAbandoned() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.abandoned
}

// stop releases the guard once the submission is over.
func (g *submitGuard) stop() {
	g.stopWatch()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.timer != nil {
		g.timer.Stop()
	}
	g.cancel(context.Canceled)
}

// submissionGate is the last step before an API call's attempt goes on the
// wire, behind the rate limiter: a submission's attempt passes only while the
// submission has not been interrupted. GETs pass untouched.
type submissionGate struct{ next http.RoundTripper }

func (t submissionGate) RoundTrip(req *http.Request) (*http.Response, error) {
	rec, _ := req.Context().Value(submitRecordKey{}).(*submitRecord)
	if rec == nil {
		return t.next.RoundTrip(req)
	}
	if !rec.guard.begin() {
		return nil, ErrNotSubmitted
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests {
		return resp, err
	}
	// A 429 created nothing. Its body is read now, so that an interrupt from
	// here on, which ends the submission at once, cannot cut the read short
	// and pass for a failure after the service may have acted.
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	rec.guard.offWire()
	return resp, nil
}

// gatedHTTPClient is hc with submissionGate in front of its transport.
func gatedHTTPClient(hc *http.Client) *http.Client {
	gated := *hc
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	gated.Transport = submissionGate{next: next}
	return &gated
}
