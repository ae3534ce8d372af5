package mockapi

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

const (
	statusSubmitted = "submitted"
	statusRunning   = "running"
	statusSucceeded = "succeeded"
	statusFailed    = "failed"
)

var (
	durationMarker = regexp.MustCompile(`\[mock:duration=([^\]]*)\]`)
	htmlMarker     = "[mock:html]"
	holdMarker     = "[mock:hold]"
)

// task is one submitted generation. Fields above the blank line are fixed at
// submission; the rest are guarded by Server.mu.
type task struct {
	id          string
	model       string
	prompt      string
	seconds     string
	metadata    []byte // exactly as received; nil when absent
	callbackURL string
	key         *keyState
	cost        int64
	base        string // scheme://host of the submission, for webhook URLs
	html        bool
	failReason  string // non-empty when the task is destined to fail
	filtered    bool   // the failure is a Veo safety filter's (Google's dialects)
	storageURI  string // Veo on Vertex AI: the gs:// destination of the clip
	submittedAt time.Time
	// submitStatus is the status the submission was answered with: 200, or
	// 504 when the gateway fault swallowed the answer; the last answer's
	// when its Idempotency-Key was sent again.
	submitStatus int
	// replays counts the submissions answered with this task by their
	// Idempotency-Key, none of them billed.
	replays int

	runningAt       time.Time
	finalAt         time.Time // zero while held
	held            bool      // waits for FinishTask or FailTask instead of finalAt
	timer           *time.Timer
	final           bool
	finalStatus     string
	errMsg          string
	billed          bool
	deleted         bool
	clipGone        bool // ExpireClip: the clip's storage expired, the task stays
	deletedStatus   string
	getCount        int
	getTimes        []time.Time
	finalObservedAt *time.Time
	// clipServed counts the times the clip's bytes were served: its
	// downloads, and vertex operation reads that carried it inline.
	clipServed int
	// stored: the vertex dialect wrote the clip under storageURI.
	stored bool
}

// read counts a GET of the task at now. Callers hold s.mu.
func (t *task) read(now time.Time) {
	t.getCount++
	t.getTimes = append(t.getTimes, now)
}

// observe returns the task's status at now, finalising it first when its time
// has come. Doing this on every observation, not only from the timer, keeps
// status, billing and webhooks consistent even if the timer is late.
// Callers hold s.mu.
func (s *Server) observe(t *task, now time.Time) string {
	switch {
	case t.deleted:
		return t.deletedStatus
	case t.final:
		return t.finalStatus
	case !t.held && !now.Before(t.finalAt):
		s.finalize(t)
		return t.finalStatus
	case !now.Before(t.runningAt):
		return statusRunning
	default:
		return statusSubmitted
	}
}

// finalize decides the outcome, bills a success and starts the webhook.
// Callers hold s.mu.
func (s *Server) finalize(t *task) {
	if t.final || t.deleted {
		return
	}
	t.final = true
	switch {
	case t.failReason != "":
		t.finalStatus, t.errMsg = statusFailed, t.failReason
	case t.key.Balance != nil && *t.key.Balance < t.cost:
		// Balance is checked at submit but not reserved, so concurrent tasks
		// can exhaust it; the later ones fail unbilled rather than go negative.
		t.finalStatus = statusFailed
		t.errMsg = fmt.Sprintf("insufficient balance when the task completed: it costs %d and the key's balance is %d; top up and submit a new task",
			t.cost, *t.key.Balance)
	default:
		t.finalStatus = statusSucceeded
		t.billed = true
		if t.key.Balance != nil {
			*t.key.Balance -= t.cost
		}
	}
	if t.callbackURL != "" && !s.closed {
		s.startWebhook(t, s.view(t, t.base, s.now()))
	}
	s.notify()
}

// onTimer finalises a task when its duration has elapsed without a GET.
func (s *Server) onTimer(t *task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.observe(t, s.now())
	}
}

// progress is a running task's progress in percent, as the dialects that
// report one show it: Config.ProgressCurve of the share of its time elapsed
// since submission, 0 for a held task (which has no planned end), never 100
// before the task is final. Callers hold s.mu.
func (s *Server) progress(t *task, now time.Time) int {
	if t.held || t.finalAt.IsZero() || !t.finalAt.After(t.submittedAt) {
		return 0
	}
	x := min(max(float64(now.Sub(t.submittedAt))/float64(t.finalAt.Sub(t.submittedAt)), 0), 1)
	switch s.cfg.ProgressCurve {
	case ProgressStall:
		x = min(2*x, 0.99)
	case ProgressJump:
		x = map[bool]float64{true: 0.1, false: 0.9}[x < 0.5]
	case ProgressLate:
		x = x * x * x
	}
	return min(int(100*x), 99)
}

// taskView is the task object, as GET returns it and as webhooks deliver it.
type taskView struct {
	TaskID   string          `json:"task_id"`
	Status   string          `json:"status"`
	URL      string          `json:"url,omitempty"`
	Format   string          `json:"format"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Error    *taskError      `json:"error,omitempty"`
}

type taskError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
}

// view renders t for base (scheme://host). Callers hold s.mu.
func (s *Server) view(t *task, base string, now time.Time) taskView {
	v := taskView{TaskID: t.id, Status: s.observe(t, now), Format: "mp4", Metadata: t.metadata}
	switch v.Status {
	case statusSucceeded:
		v.URL = s.clipURL(base, t.id, now)
	case statusFailed:
		v.Error = &taskError{Message: t.errMsg, Type: "generation_failed"}
	}
	return v
}

func (s *Server) handleGetTask(w http.ResponseWriter, r *http.Request, id string) {
	now := s.now()
	s.mu.Lock()
	t := s.lookup(id, now)
	if t == nil || t.deleted {
		if t != nil {
			t.read(now)
			s.notify()
		}
		s.mu.Unlock()
		switch {
		case s.newAPI:
			writeTaskError(w, http.StatusBadRequest, "task_not_exist", "task_not_exist")
			return
		case s.videos:
			writeVideoNotFound(w, id)
			return
		}
		writeError(w, http.StatusNotFound, "not_found_error", "task_id",
			fmt.Sprintf("unknown task id %q: no such task exists (it may have been deleted); submit a new task", id))
		return
	}
	t.read(now)
	var v any
	switch {
	case s.newAPI:
		v = s.newAPIView(t, baseURL(r), now)
	case s.videos:
		v = s.openAIVideoView(t, now)
	default:
		v = s.view(t, baseURL(r), now)
	}
	if t.final && t.finalObservedAt == nil {
		at := now
		t.finalObservedAt = &at
	}
	s.notify()
	s.mu.Unlock()
	if s.newAPI {
		writeGatewayJSON(w, http.StatusOK, "application/json", v)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

type submitResponse struct {
	TaskID string `json:"task_id"`
	Status string `json:"status"`
}

func (s *Server) handleSubmit(w http.ResponseWriter, r *http.Request, ks *keyState) {
	if s.newAPI {
		s.handleNewAPISubmit(w, r, ks)
		return
	}
	parse := s.parseSubmit
	if s.videos {
		parse = s.parseVideoSubmit
	}
	req, apiErr := parse(w, r, ks)
	if apiErr != nil {
		writeError(w, apiErr.status, apiErr.Type, apiErr.Param, apiErr.Message)
		return
	}
	t := s.accept(r, ks, req)
	if t.submitStatus == http.StatusGatewayTimeout {
		writeGatewayTimeout(w)
		return
	}
	s.echoKey(w, r)
	if s.videos {
		// OpenAI answers a submission with the whole video object.
		s.mu.Lock()
		v := s.openAIVideoView(t, s.now())
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, v)
		return
	}
	writeJSON(w, http.StatusOK, submitResponse{TaskID: t.id, Status: statusSubmitted})
}

// accept creates the task of a validated submission. Its submitStatus says
// how the submission is to be answered: 200, or 504 when the gateway fault
// swallows the answer.
func (s *Server) accept(r *http.Request, ks *keyState, req *submitRequest) *task {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.replay(r, ks, req, now); t != nil {
		// The first submission's task, billed once; this answer may be
		// lost on the way back like any other.
		t.replays++
		t.submitStatus = s.drawSubmitStatus()
		s.notify()
		return t
	}
	// Draw for every task, marked or not, so one task's marker doesn't shift
	// which later tasks fail.
	if draw := s.failRNG.Float64(); req.failReason == "" && draw < s.cfg.TaskFailureRate {
		req.failReason = "the video could not be generated (simulated failure, task_failure_rate); submit a new task"
	}
	t := &task{
		id:           s.newTaskID(now, req),
		model:        req.model,
		prompt:       req.prompt,
		seconds:      req.seconds,
		metadata:     req.metadata,
		callbackURL:  req.callbackURL,
		key:          ks,
		cost:         req.cost,
		base:         baseURL(r),
		html:         strings.Contains(req.prompt, htmlMarker),
		failReason:   req.failReason,
		filtered:     req.filtered,
		storageURI:   req.storageURI,
		submittedAt:  now,
		submitStatus: http.StatusOK,
		runningAt:    now.Add(req.duration / 4),
		held:         s.cfg.HoldTasks || strings.Contains(req.prompt, holdMarker),
	}
	t.submitStatus = s.drawSubmitStatus()
	if !t.held {
		t.finalAt = now.Add(req.duration)
		if !s.closed {
			t.timer = time.AfterFunc(req.duration, func() { s.onTimer(t) })
		}
	}
	s.tasks[t.id] = t
	s.order = append(s.order, t)
	s.remember(r, ks, t, now)
	s.notify()
	return t
}

// drawSubmitStatus is how an accepted submission is answered: 200, or 504
// when the gateway fault swallows the answer. Callers hold s.mu.
func (s *Server) drawSubmitStatus() int {
	if s.gatewayFailures == 0 {
		return http.StatusOK
	}
	if s.gatewayFailures > 0 {
		s.gatewayFailures--
	}
	return http.StatusGatewayTimeout
}

// newTaskID draws from the seeded stream so the same seed gives the same IDs.
// The new-api dialect's IDs look like its upstream's ("cgt-" and the
// submission time), so only their random part repeats with a seed.
// Callers hold s.mu.
func (s *Server) newTaskID(now time.Time, req *submitRequest) string {
	for {
		var id string
		switch {
		case s.gemini:
			// Google's operation names: models/{model}/operations/{id}.
			id = "models/" + req.model + "/operations/" + s.randomHex()[:12]
		case s.vertex:
			id = req.resource + "/operations/" + uuidOf(s.randomHex())
		case s.videos:
			id = "video_" + s.randomHex()
		case s.newAPI:
			id = fmt.Sprintf("cgt-%s-%05x", now.UTC().Format("20060102150405"), s.idRNG.Uint64()&0xfffff)
		default:
			id = "task_" + s.randomHex()
		}
		if s.tasks[id] == nil {
			return id
		}
	}
}

// randomHex is 32 hex digits from the seeded stream. Callers hold s.mu.
func (s *Server) randomHex() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], s.idRNG.Uint64())
	binary.BigEndian.PutUint64(b[8:], s.idRNG.Uint64())
	return hex.EncodeToString(b[:])
}

// uuidOf writes 32 hex digits as a UUID, as Vertex AI names its operations.
func uuidOf(h string) string {
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
