// Package arkstub is a stand-in for ByteDance's Ark content generation task
// API, the upstream of new-api's Doubao video channel (channel type 54), for
// the end-to-end gateway test. It serves the two calls that channel makes,
// POST /api/v3/contents/generations/tasks and GET .../tasks/{id}, with the
// request and answer shapes new-api v0.10.0 reads, and the clips it hands
// out. Tasks stay queued until the test finishes or fails them, so the test
// drives every task's lifecycle and never waits for a timer of the stand-in.
// Every submission is recorded, so the test can count what would be billed.
package arkstub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// Paths of the task API, as new-api's Doubao adaptor builds them from the
// channel's base URL.
const (
	TasksPath = "/api/v3/contents/generations/tasks"
	clipsPath = "/clips/"
)

// RejectMarker in a prompt makes the stand-in refuse the submission with a
// 400, as Ark does for content it will not generate; no task is created.
const RejectMarker = "[ark:reject]"

// What the upstream makes when only model and prompt reach it, as through
// new-api v0.10.0's Doubao channel: the model's defaults.
const (
	DefaultResolution = "1080p"
	DefaultRatio      = "16:9"
	DefaultDuration   = 5
	defaultFPS        = 24
)

// Submission is one POST to the task API, accepted or not.
type Submission struct {
	Model  string
	Prompt string
	// Body is the request body as received, to check what the gateway
	// forwarded.
	Body []byte
	// TaskID is the task created, empty for a refused submission.
	TaskID string
}

// Server is the stand-in. Start it with New; its zero value is not usable.
type Server struct {
	// URL is the base URL to give new-api's channel: http://127.0.0.1:port.
	URL string
	// Key is the API key the channel must send as a bearer token.
	Key string

	ts *httptest.Server

	mu          sync.Mutex
	submissions []Submission
	tasks       map[string]*task
	changed     chan struct{} // closed and replaced on every submission
}

type task struct {
	id, model string
	status    string // queued, succeeded, failed
	errMsg    string
	created   time.Time
	updated   time.Time
	fetches   int
}

// New starts a stand-in on a loopback port, closed when Close is called.
func New() *Server {
	s := &Server{Key: "ark-" + randomHex(8), tasks: map[string]*task{}, changed: make(chan struct{})}
	s.ts = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.URL = s.ts.URL
	return s
}

// Close stops the listener and waits for the requests in flight.
func (s *Server) Close() { s.ts.Close() }

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
			return got, fmt.Errorf("waiting for submission %d of the stand-in upstream (%d so far): %w", n, len(got), ctx.Err())
		}
	}
}

// Succeed finishes task id: from now on it reports a clip served by the
// stand-in, made at the model's defaults.
func (s *Server) Succeed(id string) error { return s.finish(id, "succeeded", "") }

// Fail ends task id as failed with message as the upstream's reason.
func (s *Server) Fail(id, message string) error { return s.finish(id, "failed", message) }

func (s *Server) finish(id, status, msg string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[id]
	if t == nil {
		return fmt.Errorf("arkstub: no task %q", id)
	}
	if t.status != "queued" {
		return fmt.Errorf("arkstub: task %s already %s", id, t.status)
	}
	t.status, t.errMsg, t.updated = status, msg, time.Now()
	return nil
}

// ClipURL is where task id's clip is served.
func (s *Server) ClipURL(id string) string { return s.URL + clipsPath + id + ".mp4" }

// Clip is the bytes ClipURL serves for task id.
func Clip(id string) []byte { return mockapi.ClipFor(id) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if id, ok := strings.CutPrefix(r.URL.Path, clipsPath); ok && r.Method == http.MethodGet {
		s.serveClip(w, strings.TrimSuffix(id, ".mp4"))
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Key {
		writeError(w, http.StatusUnauthorized, "AuthenticationError", "the API key in the request is missing or invalid", "Unauthorized")
		return
	}
	switch {
	case r.URL.Path == TasksPath && r.Method == http.MethodPost:
		s.submit(w, r)
	case strings.HasPrefix(r.URL.Path, TasksPath+"/") && r.Method == http.MethodGet:
		s.get(w, strings.TrimPrefix(r.URL.Path, TasksPath+"/"))
	default:
		writeError(w, http.StatusNotFound, "NotFound", "no such endpoint: "+r.Method+" "+r.URL.Path, "NotFound")
	}
}

// submitRequest is the body new-api's Doubao adaptor sends.
type submitRequest struct {
	Model   string `json:"model"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func (s *Server) submit(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "InvalidParameter", "reading the request: "+err.Error(), "BadRequest")
		return
	}
	var req submitRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "InvalidParameter", "the request body is not valid JSON", "BadRequest")
		return
	}
	var prompt []string
	for _, c := range req.Content {
		if c.Type == "text" {
			prompt = append(prompt, c.Text)
		}
	}
	sub := Submission{Model: req.Model, Prompt: strings.Join(prompt, "\n"), Body: body}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		s.submissions = append(s.submissions, sub)
		close(s.changed)
		s.changed = make(chan struct{})
	}()
	if strings.Contains(sub.Prompt, RejectMarker) || sub.Prompt == "" {
		writeError(w, http.StatusBadRequest, "InputTextSensitiveContentDetected",
			"The request failed because the input text may contain sensitive information.", "BadRequest")
		return
	}
	now := time.Now()
	sub.TaskID = "cgt-" + now.UTC().Format("20060102150405") + "-" + randomHex(3)[:5]
	s.tasks[sub.TaskID] = &task{id: sub.TaskID, model: req.Model, status: "queued", created: now, updated: now}
	writeJSON(w, http.StatusOK, map[string]string{"id": sub.TaskID})
}

// taskRecord is Ark's task object, the fields new-api's adaptor reads.
type taskRecord struct {
	ID              string     `json:"id"`
	Model           string     `json:"model"`
	Status          string     `json:"status"`
	Content         *content   `json:"content,omitempty"`
	Error           *taskError `json:"error,omitempty"`
	Usage           *usage     `json:"usage,omitempty"`
	Seed            int64      `json:"seed,omitempty"`
	Resolution      string     `json:"resolution,omitempty"`
	Ratio           string     `json:"ratio,omitempty"`
	Duration        int        `json:"duration,omitempty"`
	FramesPerSecond int        `json:"framespersecond,omitempty"`
	CreatedAt       int64      `json:"created_at"`
	UpdatedAt       int64      `json:"updated_at"`
}

type content struct {
	VideoURL string `json:"video_url"`
}

type taskError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type usage struct {
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

func (s *Server) get(w http.ResponseWriter, id string) {
	s.mu.Lock()
	t := s.tasks[id]
	var rec taskRecord
	if t != nil {
		t.fetches++
		rec = taskRecord{ID: t.id, Model: t.model, Status: t.status, CreatedAt: t.created.Unix(), UpdatedAt: t.updated.Unix()}
		switch t.status {
		case "succeeded":
			// Ark counts 1920x1080 frames at 24 fps over 5 s as tokens.
			tokens := int64(1920 * 1080 * defaultFPS * DefaultDuration / 1024)
			rec.Content = &content{VideoURL: s.ClipURL(t.id)}
			rec.Usage = &usage{CompletionTokens: tokens, TotalTokens: tokens}
			rec.Seed, rec.Resolution, rec.Ratio = 42, DefaultResolution, DefaultRatio
			rec.Duration, rec.FramesPerSecond = DefaultDuration, defaultFPS
		case "failed":
			rec.Error = &taskError{Code: "OutputVideoSensitiveContentDetected", Message: t.errMsg}
		}
	}
	s.mu.Unlock()
	if t == nil {
		writeError(w, http.StatusNotFound, "ResourceNotFound", "The specified task "+id+" is not found.", "NotFound")
		return
	}
	writeJSON(w, http.StatusOK, rec)
}

func (s *Server) serveClip(w http.ResponseWriter, id string) {
	s.mu.Lock()
	t := s.tasks[id]
	ok := t != nil && t.status == "succeeded"
	s.mu.Unlock()
	if !ok {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "video/mp4")
	_, _ = w.Write(Clip(id)) //nolint:gosec // G705: the body is MP4 bytes served as video/mp4, not a page
}

// writeError writes Ark's error body.
func writeError(w http.ResponseWriter, status int, code, msg, typ string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg, "type": typ}})
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
