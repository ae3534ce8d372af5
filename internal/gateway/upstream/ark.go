package upstream

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// Ark's task API, as new-api's Doubao adaptor (channel type 54) calls it:
// POST {base}/api/v3/contents/generations/tasks with the key as a bearer
// token, then GET .../tasks/{id}; the clip is a URL on Ark's storage, which
// needs no key.
const ArkTasksPath = "/api/v3/contents/generations/tasks"

// What Ark makes when only model and prompt reach it, as through new-api
// v0.10.0's Doubao channel: the model's defaults.
const (
	ArkResolution = "1080p"
	ArkRatio      = "16:9"
	ArkDuration   = 5
	arkFPS        = 24
)

func (s *Server) serveArk(w http.ResponseWriter, r *http.Request) {
	if s.servesClip(w, r) {
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Key {
		writeArkError(w, http.StatusUnauthorized, "AuthenticationError", "the API key in the request is missing or invalid", "Unauthorized")
		return
	}
	switch {
	case r.URL.Path == ArkTasksPath && r.Method == http.MethodPost:
		s.arkSubmit(w, r)
	case strings.HasPrefix(r.URL.Path, ArkTasksPath+"/") && r.Method == http.MethodGet:
		s.arkGet(w, strings.TrimPrefix(r.URL.Path, ArkTasksPath+"/"))
	default:
		writeArkError(w, http.StatusNotFound, "NotFound", "no such endpoint: "+r.Method+" "+r.URL.Path, "NotFound")
	}
}

// arkSubmitRequest is the body new-api's Doubao adaptor sends.
type arkSubmitRequest struct {
	Model   string `json:"model"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func (s *Server) arkSubmit(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeArkError(w, http.StatusBadRequest, "InvalidParameter", "reading the request: "+err.Error(), "BadRequest")
		return
	}
	var req arkSubmitRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeArkError(w, http.StatusBadRequest, "InvalidParameter", "the request body is not valid JSON", "BadRequest")
		return
	}
	var prompt []string
	for _, c := range req.Content {
		if c.Type == "text" {
			prompt = append(prompt, c.Text)
		}
	}
	sub := Submission{Model: req.Model, Prompt: strings.Join(prompt, "\n"), Body: body, IdempotencyKey: idempotencyKey(r)}
	if strings.Contains(sub.Prompt, RejectMarker) || sub.Prompt == "" {
		s.record(sub, nil)
		writeArkError(w, http.StatusBadRequest, "InputTextSensitiveContentDetected",
			"The request failed because the input text may contain sensitive information.", "BadRequest")
		return
	}
	t := newTask("cgt-"+time.Now().UTC().Format("20060102150405")+"-"+randomHex(3)[:5], req.Model)
	s.record(sub, t)
	writeJSON(w, http.StatusOK, map[string]string{"id": t.id})
}

func (s *Server) arkGet(w http.ResponseWriter, id string) {
	t, ok := s.fetch(id)
	if !ok {
		writeArkError(w, http.StatusNotFound, "ResourceNotFound", "The specified task "+id+" is not found.", "NotFound")
		return
	}
	rec := mockapi.ArkTask{ID: t.id, Model: t.model, Status: t.status, CreatedAt: t.created.Unix(), UpdatedAt: t.updated.Unix()}
	switch t.status {
	case succeeded:
		tokens := mockapi.ArkTokens(1920, 1080, arkFPS, ArkDuration)
		rec.Content = &mockapi.ArkContent{VideoURL: s.ClipURL(t.id)}
		rec.Usage = &mockapi.ArkUsage{CompletionTokens: tokens, TotalTokens: tokens}
		rec.Seed, rec.Resolution, rec.Ratio = 42, ArkResolution, ArkRatio
		rec.Duration, rec.FramesPerSecond = ArkDuration, arkFPS
	case failed:
		rec.Error = &mockapi.ArkError{Code: "OutputVideoSensitiveContentDetected", Message: t.errMsg}
	}
	writeJSON(w, http.StatusOK, rec)
}

// writeArkError writes Ark's error body.
func writeArkError(w http.ResponseWriter, status int, code, msg, typ string) {
	writeJSON(w, status, map[string]mockapi.ArkError{"error": {Code: code, Message: msg, Type: typ}})
}
