// Package upstream holds stand-ins for the vendors' video APIs behind
// new-api's video channels, for the end-to-end gateway test: ByteDance's Ark
// (the Doubao channel), Kling, OpenAI's videos API (the Sora channel) and the
// Gemini API's Veo. Each serves the calls new-api v0.10.0's adaptor for that
// channel makes, with the endpoints, authentication, request and answer
// shapes that adaptor reads, and the clips it hands out. Tasks stay
// unfinished until the test finishes or fails them, so the test drives
// every task's lifecycle and never waits for a timer of the stand-in. Every
// submission is recorded, so the test can count what would be billed.
package upstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// Vendor names the API a stand-in speaks.
type Vendor string

// The vendors, named after new-api's channels.
const (
	Ark   Vendor = "ark"
	Kling Vendor = "kling"
	Sora  Vendor = "sora"
	Veo   Vendor = "veo"
)

// RejectMarker in a prompt makes the stand-in refuse the submission with a
// 400, as each vendor does for content it will not generate; no task is
// created.
const RejectMarker = "[upstream:reject]"

// Submission is one submission to the stand-in, accepted or not.
type Submission struct {
	Model  string
	Prompt string
	// Body is the request body as received, to check what the gateway
	// forwarded.
	Body []byte
	// Fields are the members of a submission to OpenAI's videos API, as
	// strings, whether it came as JSON or as multipart/form-data (Sora only).
	Fields map[string]string
	// TaskID is the upstream's ID of the task created, empty for a refused
	// submission.
	TaskID string
	// GatewayID is the task ID new-api gives the task: the upstream's, but
	// for Veo, whose operation name new-api encodes.
	GatewayID string
	// IdempotencyKey is the submission's Idempotency-Key header as it
	// reached the upstream, to check whether the gateway forwards the
	// client's.
	IdempotencyKey string
}

// Server is one vendor's stand-in. Start it with New; its zero value is not
// usable.
type Server struct {
	// URL is the base URL to give new-api's channel: http://127.0.0.1:port.
	URL string
	// Key is the channel key to give new-api; for Kling an access key and a
	// secret key joined by "|", as new-api's Kling channel takes them.
	Key string

	vendor Vendor
	ts     *httptest.Server

	mu          sync.Mutex
	submissions []Submission
	tasks       map[string]*task
	changed     chan struct{} // closed and replaced on every submission
}

// Task states of the stand-in; each vendor spells them its own way.
const (
	queued    = "queued"
	succeeded = "succeeded"
	failed    = "failed"
)

type task struct {
	id, model string
	status    string // queued, succeeded, failed
	errMsg    string
	created   time.Time
	updated   time.Time
	fetches   int
	// seconds and size are what the clip is made at, where the vendor's
	// record says so (Kling, Sora).
	seconds string
	size    string
}

// New starts a stand-in of vendor on a loopback port, closed when Close is
// called.
func New(vendor Vendor) *Server {
	s := &Server{vendor: vendor, Key: randomHex(8), tasks: map[string]*task{}, changed: make(chan struct{})}
	switch vendor {
	case Ark:
		s.Key = "ark-" + s.Key
	case Kling:
		s.Key = "ak-" + s.Key + "|sk-" + randomHex(8)
	case Sora:
		s.Key = "sk-proj-" + s.Key
	case Veo:
		s.Key = "AIza" + s.Key
	default:
		panic("upstream: unknown vendor " + string(vendor))
	}
	s.ts = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.URL = s.ts.URL
	return s
}

// Vendor is the API the stand-in speaks.
func (s *Server) Vendor() Vendor { return s.vendor }

// Close stops the listener and waits for the requests in flight.
func (s *Server) Close() { s.ts.Close() }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch s.vendor {
	case Ark:
		s.serveArk(w, r)
	case Kling:
		s.serveKling(w, r)
	case Sora:
		s.serveSora(w, r)
	case Veo:
		s.serveVeo(w, r)
	}
}

// Submissions returns every submission so far, in order.
func (s *Server) Submissions() []Submission {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Submission(nil), s.submissions...)
}

// Tasks counts the tasks created: the clips billed or billable.
func (s *Server) Tasks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks)
}

// Fetches counts the status queries the gateway made for task id.
func (s *Server) Fetches(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tasks[id]; t != nil {
		return t.fetches
	}
	return 0
}

// AwaitSubmissions blocks until at least n submissions arrived (accepted or
// not) and returns them all, or returns ctx's error.
func (s *Server) AwaitSubmissions(ctx context.Context, n int) ([]Submission, error) {
	for {
		s.mu.Lock()
		got, changed := append([]Submission(nil), s.submissions...), s.changed
		s.mu.Unlock()
		if len(got) >= n {
			return got, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return got, fmt.Errorf("waiting for submission %d of the %s stand-in (%d so far): %w", n, s.vendor, len(got), ctx.Err())
		}
	}
}

// Succeed finishes task id (the upstream's ID): from now on it reports a
// clip served by the stand-in.
func (s *Server) Succeed(id string) error { return s.finish(id, succeeded, "") }

// Fail ends task id as failed with message as the upstream's reason.
func (s *Server) Fail(id, message string) error { return s.finish(id, failed, message) }

func (s *Server) finish(id, status, msg string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[id]
	if t == nil {
		return fmt.Errorf("upstream: no %s task %q", s.vendor, id)
	}
	if t.status != queued {
		return fmt.Errorf("upstream: %s task %s already %s", s.vendor, id, t.status)
	}
	t.status, t.errMsg, t.updated = status, msg, time.Now()
	return nil
}

// record adds a submission and, when t is not nil, its task; it wakes
// AwaitSubmissions.
func (s *Server) record(sub Submission, t *task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t != nil {
		sub.TaskID = t.id
		if sub.GatewayID == "" {
			sub.GatewayID = t.id
		}
		s.tasks[t.id] = t
	}
	s.submissions = append(s.submissions, sub)
	close(s.changed)
	s.changed = make(chan struct{})
}

// newTask is a queued task of model, created now.
func newTask(id, model string) *task {
	now := time.Now()
	return &task{id: id, model: model, status: queued, created: now, updated: now}
}

// fetch returns a copy of task id as a status query sees it, counting the
// query, or false when there is no such task.
func (s *Server) fetch(id string) (task, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[id]
	if t == nil {
		return task{}, false
	}
	t.fetches++
	return *t, true
}

// done reports whether task id has succeeded, for the clip downloads.
func (s *Server) done(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[id]
	return t != nil && t.status == succeeded
}

// Clip is the bytes the stand-in serves as task id's clip (the upstream's
// ID), whatever the vendor.
func Clip(id string) []byte { return mockapi.ClipFor(id) }

// clipsPath is where Ark's and Kling's stand-ins serve their clips, as a
// storage host would: without a key.
const clipsPath = "/clips/"

// ClipURL is where Ark's or Kling's stand-in serves task id's clip; Sora's
// and Veo's serve theirs behind the key (SoraContentPath, VeoFilePath).
func (s *Server) ClipURL(id string) string { return s.URL + clipsPath + id + ".mp4" }

// servesClip answers a GET of ClipURL and reports whether r was one.
func (s *Server) servesClip(w http.ResponseWriter, r *http.Request) bool {
	id, ok := strings.CutPrefix(r.URL.Path, clipsPath)
	if !ok || r.Method != http.MethodGet {
		return false
	}
	s.serveClip(w, strings.TrimSuffix(id, ".mp4"))
	return true
}

// serveClip serves task id's clip, or a 404 before it has succeeded.
func (s *Server) serveClip(w http.ResponseWriter, id string) {
	if !s.done(id) {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "video/mp4")
	_, _ = w.Write(Clip(id)) //nolint:gosec // G705: the body is MP4 bytes served as video/mp4, not a page
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// idempotencyKey is the Idempotency-Key header of a submission, as the
// provider names it.
func idempotencyKey(r *http.Request) string { return r.Header.Get(mockapi.IdempotencyKeyHeader) }
