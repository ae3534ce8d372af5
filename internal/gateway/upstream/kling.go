package upstream

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// Kling's video API, as new-api's Kling adaptor (channel type 50) calls it:
// POST {base}/v1/videos/text2video (image2video with an image), then GET
// .../text2video/{id}, each with a JWT signed by the secret key as bearer
// token; the clip is a URL on Kling's storage, which needs no key.
const klingPath = "/v1/videos/"

// KlingDuration is the clip length new-api v0.10.0 asks Kling for whatever
// the request says: it reads an integer duration, never seconds.
const KlingDuration = "5"

// klingRequest is the part of new-api's Kling request the stand-in reads.
type klingRequest struct {
	Prompt      string `json:"prompt"`
	ModelName   string `json:"model_name"`
	Duration    string `json:"duration"`
	AspectRatio string `json:"aspect_ratio"`
}

// klingAnswer is Kling's answer to a submission or a query.
type klingAnswer struct {
	Code      int        `json:"code"`
	Message   string     `json:"message"`
	RequestID string     `json:"request_id"`
	Data      *klingTask `json:"data,omitempty"`
}

type klingTask struct {
	TaskID        string           `json:"task_id"`
	TaskStatus    string           `json:"task_status"`
	TaskStatusMsg string           `json:"task_status_msg,omitempty"`
	TaskResult    *klingTaskResult `json:"task_result,omitempty"`
	CreatedAt     int64            `json:"created_at"`
	UpdatedAt     int64            `json:"updated_at"`
}

type klingTaskResult struct {
	Videos []klingVideo `json:"videos"`
}

type klingVideo struct {
	ID       string `json:"id"`
	URL      string `json:"url"`
	Duration string `json:"duration"`
}

func (s *Server) serveKling(w http.ResponseWriter, r *http.Request) {
	if s.servesClip(w, r) {
		return
	}
	if !s.klingAuthorized(r.Header.Get("Authorization")) {
		writeJSON(w, http.StatusUnauthorized, klingAnswer{Code: 1000, Message: "Authentication failed", RequestID: randomHex(8)})
		return
	}
	rest, _ := strings.CutPrefix(r.URL.Path, klingPath)
	action, id, _ := strings.Cut(rest, "/")
	switch {
	case (action == "text2video" || action == "image2video") && id == "" && r.Method == http.MethodPost:
		s.klingSubmit(w, r)
	case (action == "text2video" || action == "image2video") && id != "" && r.Method == http.MethodGet:
		s.klingGet(w, id)
	default:
		writeJSON(w, http.StatusNotFound, klingAnswer{Code: 1200, Message: "no such endpoint: " + r.Method + " " + r.URL.Path, RequestID: randomHex(8)})
	}
}

// klingAuthorized checks the bearer token as Kling does: a JWT signed with
// HS256 by the secret key, issued by the access key, not expired.
func (s *Server) klingAuthorized(header string) bool {
	token, ok := strings.CutPrefix(header, "Bearer ")
	parts := strings.Split(token, ".")
	if !ok || len(parts) != 3 {
		return false
	}
	access, secret, _ := strings.Cut(s.Key, "|")
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(parts[0] + "." + parts[1]))
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, mac.Sum(nil)) {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var claims struct {
		Iss string `json:"iss"`
		Exp int64  `json:"exp"`
	}
	return json.Unmarshal(payload, &claims) == nil && claims.Iss == access && claims.Exp > time.Now().Unix()
}

func (s *Server) klingSubmit(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req klingRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, klingAnswer{Code: 1201, Message: "invalid request body", RequestID: randomHex(8)})
		return
	}
	sub := Submission{Model: req.ModelName, Prompt: req.Prompt, Body: body, IdempotencyKey: idempotencyKey(r)}
	if strings.Contains(req.Prompt, RejectMarker) || strings.TrimSpace(req.Prompt) == "" {
		s.record(sub, nil)
		writeJSON(w, http.StatusBadRequest, klingAnswer{Code: 1301, Message: "Trigger the content security policy", RequestID: randomHex(8)})
		return
	}
	t := newTask("CjikY2"+randomHex(8), req.ModelName)
	t.seconds = req.Duration
	s.record(sub, t)
	writeJSON(w, http.StatusOK, klingAnswer{Code: 0, Message: "SUCCEED", RequestID: randomHex(8), Data: &klingTask{
		TaskID: t.id, TaskStatus: "submitted", CreatedAt: t.created.UnixMilli(), UpdatedAt: t.updated.UnixMilli(),
	}})
}

func (s *Server) klingGet(w http.ResponseWriter, id string) {
	t, ok := s.fetch(id)
	if !ok {
		writeJSON(w, http.StatusNotFound, klingAnswer{Code: 1203, Message: "task not found", RequestID: randomHex(8)})
		return
	}
	// The query itself succeeds whatever became of the task: Kling's
	// top-level message is "SUCCEED" for a failed task too, and the reason
	// is the task's task_status_msg.
	rec := &klingTask{TaskID: t.id, TaskStatus: "processing", CreatedAt: t.created.UnixMilli(), UpdatedAt: t.updated.UnixMilli()}
	switch t.status {
	case succeeded:
		rec.TaskStatus = "succeed"
		rec.TaskResult = &klingTaskResult{Videos: []klingVideo{{ID: "v-" + t.id, URL: s.ClipURL(t.id), Duration: t.seconds}}}
	case failed:
		rec.TaskStatus, rec.TaskStatusMsg = "failed", t.errMsg
	}
	writeJSON(w, http.StatusOK, klingAnswer{Code: 0, Message: "SUCCEED", RequestID: randomHex(8), Data: rec})
}
