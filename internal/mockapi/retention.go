package mockapi

import (
	"fmt"
	"net/http"
	"time"
)

// Retention: what a real service keeps, and for how long. Vendors forget
// finished tasks after days, and their clip storage often expires sooner while
// the task still answers (Volcengine Ark's and new-api's clip URLs stop
// serving after about a day; OpenAI's content after its expires_at). Tests
// drive both with the controls (DeleteTask, ExpireClip) and never wait for
// Config.TaskRetention or Config.ClipRetention, which are for a person trying
// the provider by hand.

// lookup is the task with the given ID as the service knows it now: nil when
// it never existed, deleted (t.deleted) when the service forgot it, by
// DeleteTask or because Config.TaskRetention ran out since it became final.
// Callers hold s.mu.
func (s *Server) lookup(id string, now time.Time) *task {
	t := s.tasks[id]
	if t != nil {
		s.retain(t, now)
	}
	return t
}

// retain forgets t once Config.TaskRetention has passed since it became
// final, as DeleteTask does. Callers hold s.mu.
func (s *Server) retain(t *task, now time.Time) {
	if t.deleted || s.cfg.TaskRetention <= 0 {
		return
	}
	status := s.observe(t, now)
	if !t.final || now.Before(t.finalAt.Add(time.Duration(s.cfg.TaskRetention))) {
		return
	}
	t.deletedStatus, t.deleted = status, true
	s.notify()
}

// clipExpired reports whether t's clip storage is gone while the task itself
// still answers: ExpireClip was called, or Config.ClipRetention has passed
// since it finished. Its URLs then never serve again, whatever their
// signature. Callers hold s.mu.
func (s *Server) clipExpired(t *task, now time.Time) bool {
	return t.clipGone || t.final && s.cfg.ClipRetention > 0 && !now.Before(t.finalAt.Add(time.Duration(s.cfg.ClipRetention)))
}

// ExpireClip makes the storage of a succeeded task's clip expire now, while
// the task stays: reads of the task still answer succeeded with a URL, and
// every URL of its clip, old or fresh, answers 403 (a signed URL) or 404 (a
// clip behind the key) for ever. The ledger marks the task clip_expired. It
// reports whether the task is known and has succeeded.
func (s *Server) ExpireClip(id string) bool {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.lookup(id, now)
	if t == nil || t.deleted || s.observe(t, now) != statusSucceeded {
		return false
	}
	t.clipGone = true
	s.notify()
	return true
}

// handleExpireClip serves POST /_mock/tasks/{id}/expire-clip, the HTTP form
// of ExpireClip.
func (s *Server) handleExpireClip(w http.ResponseWriter, id string) {
	if s.ExpireClip(id) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	now := s.now()
	s.mu.Lock()
	t := s.lookup(id, now)
	known := t != nil && !t.deleted
	s.mu.Unlock()
	if !known {
		writeError(w, http.StatusNotFound, "not_found_error", "task_id", fmt.Sprintf("unknown task id %q", id))
		return
	}
	writeError(w, http.StatusConflict, "invalid_request_error", "task_id", fmt.Sprintf("task %q has not succeeded, so it has no clip", id))
}
