package mockapi

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// Ledger is what the mock has seen and done, for tests to assert on: tasks
// received, requests and responses counted, webhook attempts made. It never
// contains API keys.
type Ledger struct {
	Tasks     []LedgerTask     `json:"tasks"`     // in submission order
	Requests  map[string]int   `json:"requests"`  // per endpoint pattern, e.g. "POST /v1/video/generations"; "unmatched" for unknown paths
	Responses map[string]int   `json:"responses"` // per status code, e.g. "200", "429"
	Webhooks  []WebhookAttempt `json:"webhooks"`  // in the order attempts were made
	// RangeRequests counts, per endpoint pattern, the requests among Requests
	// that asked for a byte range: a GET of a clip's first byte asks whether
	// it still serves (where the host refuses HEAD), it downloads no clip.
	RangeRequests map[string]int `json:"range_requests,omitempty"`
}

// LedgerTask is one received task as the mock saw it.
type LedgerTask struct {
	TaskID          string          `json:"task_id"`
	Model           string          `json:"model"`
	Prompt          string          `json:"prompt"`
	Seconds         string          `json:"seconds,omitempty"`
	Metadata        json.RawMessage `json:"metadata,omitempty"` // exactly as received
	Status          string          `json:"status"`             // current, by time; frozen when deleted
	Billed          bool            `json:"billed"`
	Cost            int64           `json:"cost,omitempty"` // what it draws on the key's balance when billed: seconds (or the model's default_seconds) x price_per_second
	Held            bool            `json:"held,omitempty"` // waiting for FinishTask or FailTask
	SubmittedAt     time.Time       `json:"submitted_at"`
	SubmitStatus    int             `json:"submit_status"`               // answer to the submission: 200, or 504 from the gateway fault
	Replays         int             `json:"replays,omitempty"`           // submissions answered with this task by their Idempotency-Key, not billed
	FinalAt         time.Time       `json:"final_at"`                    // when it becomes or became final; zero while held
	FinalObservedAt *time.Time      `json:"final_observed_at,omitempty"` // first GET that returned the final status
	GetCount        int             `json:"get_count"`                   // GETs of this task, including 404s after deletion
	GetTimes        []time.Time     `json:"get_times,omitempty"`         // when each of them came
	Deleted         bool            `json:"deleted,omitempty"`           // forgotten: DeleteTask, or Config.TaskRetention
	ClipExpired     bool            `json:"clip_expired,omitempty"`      // its clip's storage expired: ExpireClip, or Config.ClipRetention
	ClipServed      int             `json:"clip_served,omitempty"`       // times its clip's bytes were served: downloads (not HEAD), vertex operations carrying it inline
}

// WebhookAttempt is one delivery attempt of a task-completion callback.
type WebhookAttempt struct {
	TaskID     string    `json:"task_id"`
	URL        string    `json:"url"`
	Attempt    int       `json:"attempt"` // 1-based
	StatusCode int       `json:"status_code,omitempty"`
	Error      string    `json:"error,omitempty"` // connection error, if no response came
	At         time.Time `json:"at"`
}

// Task returns the ledger entry of the task with the given ID.
func (l Ledger) Task(id string) (LedgerTask, bool) {
	for _, t := range l.Tasks {
		if t.TaskID == id {
			return t, true
		}
	}
	return LedgerTask{}, false
}

// RequestCount is how many requests the mock received, on every endpoint.
func (l Ledger) RequestCount() int {
	n := 0
	for _, c := range l.Requests {
		n += c
	}
	return n
}

// Ledger returns a snapshot that shares no memory with the server. Tasks
// whose time has come are finalised first, so Status and Billed agree with
// what a GET would say now.
func (s *Server) Ledger() Ledger {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	l := Ledger{
		Tasks:     make([]LedgerTask, 0, len(s.order)),
		Requests:  maps.Clone(s.requests),
		Responses: maps.Clone(s.responses),
		Webhooks:  slices.Clone(s.webhooks),

		RangeRequests: maps.Clone(s.rangeRequests),
	}
	if l.Webhooks == nil {
		l.Webhooks = []WebhookAttempt{}
	}
	for _, t := range s.order {
		s.retain(t, now)
		lt := LedgerTask{
			TaskID:       t.id,
			Model:        t.model,
			Prompt:       t.prompt,
			Seconds:      t.seconds,
			Metadata:     slices.Clone(t.metadata),
			Status:       s.observe(t, now),
			Billed:       t.billed,
			Cost:         t.cost,
			Held:         t.held && !t.final && !t.deleted,
			SubmittedAt:  t.submittedAt,
			SubmitStatus: t.submitStatus,
			Replays:      t.replays,
			FinalAt:      t.finalAt,
			GetCount:     t.getCount,
			GetTimes:     slices.Clone(t.getTimes),
			Deleted:      t.deleted,
			ClipExpired:  !t.deleted && t.final && t.finalStatus == statusSucceeded && s.clipExpired(t, now),
			ClipServed:   t.clipServed,
		}
		if t.finalObservedAt != nil {
			at := *t.finalObservedAt
			lt.FinalObservedAt = &at
		}
		l.Tasks = append(l.Tasks, lt)
	}
	return l
}
