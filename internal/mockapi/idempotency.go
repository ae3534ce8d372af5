package mockapi

import (
	"bytes"
	"net/http"
	"time"
)

// IdempotencyKeyHeader is the request header by which a client names a
// submission, so that sending it again (a retry after a lost answer, a
// re-apply) returns the task the first one created instead of billing a
// second. The default dialect (the API as described) honours it for
// Config.IdempotencyWindow and echoes it in its answer, which tells a client
// that the server deduplicates; every other dialect accepts it and ignores
// it, as the server it plays does (new-api, OpenAI's video API and Google's
// Veo APIs document no deduplication by it), and so does the default
// dialect with Config.IgnoreIdempotencyKeys (or
// Server.SetIgnoreIdempotencyKeys), a server that does not deduplicate.
const IdempotencyKeyHeader = "Idempotency-Key"

// defaultIdempotencyWindow is how long a key is honoured when the
// configuration sets no window: a day, as payment APIs keep theirs.
const defaultIdempotencyWindow = 24 * time.Hour

// keyedSubmission is the task a submission with a key created.
type keyedSubmission struct {
	task *task
	at   time.Time
}

// honoursKeys reports whether the server deduplicates submissions by key.
// Callers hold s.mu.
func (s *Server) honoursKeys() bool { return !s.ignoreKeys && !s.newAPI && !s.videos && !s.google() }

// replay returns the task that an earlier submission of the same request
// with r's key (for the same API key, within the window) created; nil when
// there is none, or the server ignores keys. A key sent again with another
// request names no task: it creates one as any submission does. Callers hold
// s.mu.
func (s *Server) replay(r *http.Request, ks *keyState, req *submitRequest, now time.Time) *task {
	key := r.Header.Get(IdempotencyKeyHeader)
	if key == "" || !s.honoursKeys() {
		return nil
	}
	k, ok := s.keyed[ks.Key.Key+"\x00"+key]
	window := time.Duration(s.cfg.IdempotencyWindow)
	if window == 0 {
		window = defaultIdempotencyWindow
	}
	if !ok || now.Sub(k.at) > window {
		return nil
	}
	t := k.task
	if t.model != req.model || t.prompt != req.prompt || t.seconds != req.seconds || !bytes.Equal(t.metadata, req.metadata) {
		return nil
	}
	return t
}

// remember keeps the task that a submission with r's key created. Callers
// hold s.mu.
func (s *Server) remember(r *http.Request, ks *keyState, t *task, now time.Time) {
	key := r.Header.Get(IdempotencyKeyHeader)
	if key == "" || !s.honoursKeys() {
		return
	}
	s.keyed[ks.Key.Key+"\x00"+key] = keyedSubmission{task: t, at: now}
}

// echoKey says in the answer to a submission that the server honoured its
// key.
func (s *Server) echoKey(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get(IdempotencyKeyHeader)
	s.mu.Lock()
	honours := s.honoursKeys()
	s.mu.Unlock()
	if key != "" && honours {
		w.Header().Set(IdempotencyKeyHeader, key)
	}
}

// SetIgnoreIdempotencyKeys changes Config.IgnoreIdempotencyKeys while
// serving: true plays a server that does not deduplicate submissions.
func (s *Server) SetIgnoreIdempotencyKeys(ignore bool) {
	s.mu.Lock()
	s.ignoreKeys = ignore
	s.mu.Unlock()
}
