package mockapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
)

// defaultFailTaskReason is the task's error message when FailTask is given
// no reason.
const defaultFailTaskReason = "the video could not be generated (simulated failure); submit a new task"

// FinishTask ends a pending task now, as a successful generation: it is
// billed, its clip URL appears and its webhook, if any, is sent. A held task
// is released; a timed task stops waiting for its duration; a [mock:fail]
// marker is overridden. As at any completion, a key whose balance can no
// longer pay makes the task fail unbilled instead. It reports whether the
// task was pending: false for unknown, deleted or already final tasks.
func (s *Server) FinishTask(id string) bool {
	return s.release(id, "")
}

// FailTask ends a pending task now as failed, unbilled, with reason as its
// error message (a generic one when reason is empty). It reports whether the
// task was pending, as FinishTask does.
func (s *Server) FailTask(id, reason string) bool {
	if reason == "" {
		reason = defaultFailTaskReason
	}
	return s.release(id, reason)
}

// release makes a pending task final now; failReason "" means success.
func (s *Server) release(id, failReason string) bool {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[id]
	if t == nil || t.deleted {
		return false
	}
	if s.observe(t, now); t.final {
		return false
	}
	if t.timer != nil {
		t.timer.Stop()
	}
	t.held = false
	t.finalAt = now
	if t.runningAt.After(now) {
		t.runningAt = now
	}
	t.failReason = failReason
	// A success overrides a Veo safety filter as it overrides [mock:fail].
	t.filtered = t.filtered && failReason != ""
	s.finalize(t)
	return true
}

// SetGatewayFailuresAfterSubmit changes Config.GatewayFailuresAfterSubmit
// while serving: the next n accepted submissions are answered 504 after their
// task is created; any negative n means every one, 0 turns the fault off.
func (s *Server) SetGatewayFailuresAfterSubmit(n int) {
	s.mu.Lock()
	s.gatewayFailures = max(n, -1)
	s.mu.Unlock()
}

// SetKeyRevoked revokes a configured key (or, on the vertex dialect, access
// token) while serving, or restores it: a credential taken back between two
// runs. The key's rate allowance starts afresh. It reports whether the key
// is configured.
func (s *Server) SetKeyRevoked(key string, revoked bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ks := s.keys[key]
	if ks == nil {
		return false
	}
	// A new state, not a change of the old one: requests read a key's state
	// outside the lock.
	k := ks.Key
	k.Revoked = revoked
	s.keys[key] = &keyState{Key: k}
	return true
}

// RateLimitSubmissions answers the next n submissions 429, with
// Retry-After: 1 and before they have any effect, whatever the key's bucket
// holds: the service of a key whose allowance another client has used up. A
// test that must meet the rate limit uses it, because whether a burst of
// requests outruns the bucket depends on how fast the machine sends them.
func (s *Server) RateLimitSubmissions(n int) {
	s.mu.Lock()
	s.limitedSubmissions = max(n, 0)
	s.mu.Unlock()
}

// AwaitTasks blocks until the mock has received at least n tasks, or ctx
// ends. Tests use it instead of sleeping to know that a submission arrived.
func (s *Server) AwaitTasks(ctx context.Context, n int) error {
	var have int
	err := s.await(ctx, func() bool {
		have = len(s.order)
		return have >= n
	})
	if err != nil {
		return fmt.Errorf("mockapi: waiting for %d task(s), %d received: %w", n, have, err)
	}
	return nil
}

// AwaitGets blocks until the task with the given ID has been read (GET,
// including 404s after deletion) at least n times, or ctx ends. The task
// need not exist yet.
func (s *Server) AwaitGets(ctx context.Context, taskID string, n int) error {
	var have int
	err := s.await(ctx, func() bool {
		have = 0
		if t := s.tasks[taskID]; t != nil {
			have = t.getCount
		}
		return have >= n
	})
	if err != nil {
		return fmt.Errorf("mockapi: waiting for %d GET(s) of task %q, %d made: %w", n, taskID, have, err)
	}
	return nil
}

// AwaitWebhooks blocks until the ledger records at least n delivery
// attempts of the task's webhook, or ctx ends. A receiver sees a delivery
// before the mock records its answer, so tests that check the ledger wait
// here first.
func (s *Server) AwaitWebhooks(ctx context.Context, taskID string, n int) error {
	var have int
	err := s.await(ctx, func() bool {
		have = 0
		for _, a := range s.webhooks {
			if a.TaskID == taskID {
				have++
			}
		}
		return have >= n
	})
	if err != nil {
		return fmt.Errorf("mockapi: waiting for %d webhook attempt(s) of task %q, %d made: %w", n, taskID, have, err)
	}
	return nil
}

// await blocks until cond, evaluated with s.mu held, is true or ctx ends.
// It re-evaluates cond after every notify, so it never misses a change and
// never sleeps.
func (s *Server) await(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ok := cond()
		changed := s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// notify wakes every await. Callers hold s.mu.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
	s.saveState()
}

// handleRelease serves POST /_mock/tasks/{id}/finish and .../fail, the HTTP
// form of FinishTask and FailTask for the standalone server. A fail request
// may carry {"reason": "..."}.
func (s *Server) handleRelease(w http.ResponseWriter, r *http.Request, ep, id string) {
	var released bool
	if ep == epMockFinish {
		released = s.FinishTask(id)
	} else {
		reason, rerr := readFailReason(w, r)
		if rerr != nil {
			writeError(w, rerr.status, rerr.Type, rerr.Param, rerr.Message)
			return
		}
		released = s.FailTask(id, reason)
	}
	if released {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.mu.Lock()
	t := s.tasks[id]
	known := t != nil && !t.deleted
	s.mu.Unlock()
	if !known {
		writeError(w, http.StatusNotFound, "not_found_error", "task_id", fmt.Sprintf("unknown task id %q", id))
		return
	}
	writeError(w, http.StatusConflict, "invalid_request_error", "task_id", fmt.Sprintf("task %q is already final", id))
}

// readFailReason reads the optional {"reason": "..."} body of a fail request.
func readFailReason(w http.ResponseWriter, r *http.Request) (string, *requestError) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return "", invalid("", "could not read the request body: %v", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return "", nil
	}
	fields, rerr := decodeObject(body)
	if rerr != nil {
		return "", rerr
	}
	for k := range fields {
		if k != "reason" {
			return "", invalid(k, "unexpected member %q; the body may only hold \"reason\"", k)
		}
	}
	raw, ok := fields["reason"]
	if !ok {
		return "", nil
	}
	reason, ok := asString(raw)
	if !ok {
		return "", invalid("reason", "reason must be a string, not %s", jsonKind(raw))
	}
	return reason, nil
}

// Control is one endpoint outside /v1, which needs no key: what a person trying
// the provider by hand uses to see what was billed and to drive a task's life.
type Control struct {
	Method, Path, Does string
}

// Controls lists them for videogen-mock -help and cmd/videogen-mock/README.md (a
// test keeps the README's table complete).
var Controls = []Control{
	{"GET", epLedger, "the ledger as JSON: every task received (task_id, model, prompt, metadata as sent, status, " +
		"billed, held, submitted_at, final_at, get_count), requests per endpoint (range_requests: those asking a byte range, " +
		"such as a one-byte GET asking whether a clip still serves, not a download), responses per status, webhook attempts. " +
		"Count its tasks to see how many clips were submitted, and billed ones to see what was charged"},
	{"POST", epMockFinish, "a pending task (held with -hold, or still running) succeeds now and is billed: 204; " +
		"404 unknown task; 409 already final"},
	{"POST", epMockFail, `a pending task fails now, unbilled, with an optional body {"reason": "..."}: 204; 404; 409`},
	{"DELETE", epMockTask, "the task vanishes from the service: its reads answer 404 and it is never billed unless it " +
		"already was; the ledger keeps it, marked deleted"},
	{"POST", epExpireClip, "the task's clip storage expires while the task stays, as Ark's and new-api's do after a day: " +
		"the task still answers succeeded with a url, and every url of its clip answers 403 (404 behind the key) for ever; " +
		"the ledger marks it clip_expired: 204; 404 unknown task; 409 not succeeded"},
	{"POST", epExpireURLs, "every clip URL handed out so far expires (403), as signed URLs do; a fresh read gives a new one"},
	{"GET", epClips + "/{task_id}.mp4?sig=...", "a clip download (GET, HEAD, Range), as signed in a task's url"},
}
