package mockapi

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

// The new-api dialect (DialectNewAPI) answers as new-api v0.10.0 does in
// front of a Doubao video channel, whose upstream is ByteDance's Ark task
// API. Its shapes come from that version's code, not from its OpenAPI
// document, which describes the flat shapes of the canonical dialect.

// newAPIModelsCreated is the "created" new-api gives every model it lists.
const newAPIModelsCreated = 1626777600

// Task statuses of new-api's task record.
const (
	newAPINotStart   = "NOT_START"
	newAPIInProgress = "IN_PROGRESS"
	newAPISuccess    = "SUCCESS"
	newAPIFailure    = "FAILURE"
)

// newAPIFailReason is what new-api's Doubao channel puts in fail_reason for
// every failed task; the upstream's reason is only in the raw record.
const newAPIFailReason = "task failed"

// newAPIEnvelope is new-api's {"code","message","data"} answer, used for
// tasks (code "success") and for the errors of its task relay.
type newAPIEnvelope struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data"`
}

// newAPITask is new-api's task record (its TaskDto).
type newAPITask struct {
	TaskID     string          `json:"task_id"`
	Action     string          `json:"action"`
	Status     string          `json:"status"`
	FailReason string          `json:"fail_reason"`
	SubmitTime int64           `json:"submit_time"`
	StartTime  int64           `json:"start_time"`
	FinishTime int64           `json:"finish_time"`
	Progress   string          `json:"progress"`
	Data       json.RawMessage `json:"data"`
}

// arkRatio and arkFPS are what the upstream makes when no ratio or frame
// rate reaches it, which through this channel is always.
const (
	arkRatio = "16:9"
	arkFPS   = 24
)

// arkFrame is the frame size of each resolution at arkRatio, from which the
// upstream counts a clip's tokens.
var arkFrame = map[string][2]int64{"480p": {864, 480}, "720p": {1280, 720}, "1080p": {1920, 1080}}

// newAPIView renders t as new-api's GET answer. The clip is what the
// upstream made from model and prompt alone: the model's default length at
// its highest resolution. Callers hold s.mu.
func (s *Server) newAPIView(t *task, base string, now time.Time) newAPIEnvelope {
	v := newAPITask{TaskID: t.id, Action: "generate", SubmitTime: t.submittedAt.Unix()}
	rec := ArkTask{ID: t.id, Model: t.model, CreatedAt: t.submittedAt.Unix(), UpdatedAt: now.Unix()}
	switch s.observe(t, now) {
	case statusSubmitted:
		// Before new-api's first status query the record is the
		// submission's answer.
		v.Status, v.Progress = newAPINotStart, "0%"
		rec = ArkTask{ID: t.id}
	case statusRunning:
		v.Status, v.Progress, v.StartTime = newAPIInProgress, fmt.Sprintf("%d%%", s.progress(t, now)), t.runningAt.Unix()
		rec.Status = "running"
	case statusSucceeded:
		url := s.clipURL(base, t.id, now)
		v.Status, v.Progress, v.FailReason = newAPISuccess, "100%", url
		v.StartTime, v.FinishTime = t.runningAt.Unix(), t.finalAt.Unix()
		m := s.models[t.model]
		res := m.Resolutions[len(m.Resolutions)-1]
		frame := arkFrame[res]
		tokens := ArkTokens(frame[0], frame[1], arkFPS, int64(m.DefaultSeconds))
		rec.Status, rec.UpdatedAt = "succeeded", t.finalAt.Unix()
		rec.Content = &ArkContent{VideoURL: url}
		rec.Usage = &ArkUsage{CompletionTokens: tokens, TotalTokens: tokens}
		rec.Seed = arkSeed(t.id)
		rec.Resolution, rec.Ratio, rec.Duration, rec.FramesPerSecond = res, arkRatio, m.DefaultSeconds, arkFPS
	case statusFailed:
		v.Status, v.Progress, v.FailReason = newAPIFailure, "100%", newAPIFailReason
		v.StartTime, v.FinishTime = t.runningAt.Unix(), t.finalAt.Unix()
		rec.Status, rec.UpdatedAt = "failed", t.finalAt.Unix()
		rec.Error = &ArkError{Code: "InternalServiceError", Message: t.errMsg}
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		panic(err) // ArkTask always marshals
	}
	v.Data = raw
	return newAPIEnvelope{Code: "success", Data: v}
}

// arkSeed is the seed the upstream reports having drawn, fixed per task.
func arkSeed(id string) int64 {
	sum := sha256.Sum256([]byte(id))
	return int64(binary.BigEndian.Uint32(sum[:4]) >> 1)
}

// newAPISubmitRequest is what new-api reads from a submission (its
// TaskSubmitReq): wrongly typed known fields fail the request, unknown ones
// are ignored.
type newAPISubmitRequest struct {
	Prompt   string          `json:"prompt"`
	Model    string          `json:"model"`
	Seconds  string          `json:"seconds"`
	Duration int             `json:"duration"`
	Images   []string        `json:"images"`
	Metadata json.RawMessage `json:"metadata"`
}

// handleNewAPISubmit takes a submission in new-api's order: the model is
// read and routed first (its distributor), then the task request is
// validated, then the quota checked; only model and prompt go upstream.
func (s *Server) handleNewAPISubmit(w http.ResponseWriter, r *http.Request, ks *keyState) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		s.writeGatewayError(w, http.StatusBadRequest, "", "Invalid request, 无效的请求, "+err.Error())
		return
	}
	var route struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(body, &route); err != nil {
		s.writeGatewayError(w, http.StatusBadRequest, "", "Invalid request, 无效的请求, "+err.Error())
		return
	}
	switch {
	case route.Model == "":
		s.writeGatewayError(w, http.StatusBadRequest, "", "未指定模型名称，模型名称不能为空")
		return
	case !ks.allows(route.Model):
		s.writeGatewayError(w, http.StatusForbidden, "", "该令牌无权访问模型 "+route.Model)
		return
	case s.models[route.Model] == nil:
		s.writeGatewayError(w, http.StatusServiceUnavailable, "model_not_found",
			fmt.Sprintf("分组 default 下模型 %s 无可用渠道（distributor）", route.Model))
		return
	}
	var in newAPISubmitRequest
	if err := json.Unmarshal(body, &in); err != nil {
		writeTaskError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if strings.TrimSpace(in.Prompt) == "" {
		writeTaskError(w, http.StatusBadRequest, "invalid_request", "prompt is required")
		return
	}
	req := &submitRequest{model: in.Model, prompt: in.Prompt, seconds: in.Seconds}
	if len(in.Metadata) > 0 && string(in.Metadata) != "null" {
		req.metadata = in.Metadata
	}
	var rerr *requestError
	if req.duration, rerr = s.promptDuration(req.prompt); rerr != nil {
		writeTaskError(w, http.StatusBadRequest, "invalid_request", rerr.Message)
		return
	}
	if strings.Contains(req.prompt, s.cfg.FailMarker) {
		req.failReason = fmt.Sprintf("the video could not be generated (simulated failure: the prompt contains %q); submit a new task", s.cfg.FailMarker)
	}
	// The upstream makes, and the key pays for, the model's default length.
	req.cost = int64(s.models[req.model].DefaultSeconds) * s.cfg.PricePerSecond
	s.mu.Lock()
	short := ks.Balance != nil && *ks.Balance < req.cost
	s.mu.Unlock()
	if short {
		writeTaskError(w, http.StatusForbidden, "quota_not_enough", "user quota is not enough")
		return
	}
	t := s.accept(r, ks, req)
	if t.submitStatus == http.StatusGatewayTimeout {
		writeGatewayTimeout(w)
		return
	}
	writeGatewayJSON(w, http.StatusOK, ginJSON, map[string]string{"task_id": t.id})
}

type newAPIModelList struct {
	Data    []newAPIModel `json:"data"`
	Object  string        `json:"object"`
	Success bool          `json:"success"`
}

type newAPIModel struct {
	ID                     string   `json:"id"`
	Object                 string   `json:"object"`
	Created                int64    `json:"created"`
	OwnedBy                string   `json:"owned_by"`
	SupportedEndpointTypes []string `json:"supported_endpoint_types"`
}

// handleNewAPIModels lists the models the key may use as new-api does: no
// limits, one fixed creation time.
func (s *Server) handleNewAPIModels(w http.ResponseWriter, ks *keyState) {
	out := newAPIModelList{Data: []newAPIModel{}, Object: "list", Success: true}
	for _, m := range s.cfg.Models {
		if ks.allows(m.ID) {
			out.Data = append(out.Data, newAPIModel{
				ID: m.ID, Object: "model", Created: newAPIModelsCreated, OwnedBy: m.OwnedBy, SupportedEndpointTypes: []string{},
			})
		}
	}
	writeGatewayJSON(w, http.StatusOK, ginJSON, out)
}

// writeNewAPIFault answers a simulated failure the way it reaches a client
// through new-api: an upstream's failed submission relayed with its body in
// the message, a failed task lookup, or one of the gateway's own errors.
func (s *Server) writeNewAPIFault(w http.ResponseWriter, ep string, status int, msg string) {
	switch ep {
	case epGenerations:
		upstream, err := json.Marshal(map[string]ArkError{"error": {Code: "InternalServiceError", Message: msg}})
		if err != nil {
			panic(err) // a map of strings always marshals
		}
		writeTaskError(w, status, "fail_to_fetch_task", string(upstream))
	case epTask:
		writeTaskError(w, status, "get_task_failed", msg)
	default:
		s.writeGatewayError(w, status, "", msg)
	}
}

// ginJSON is the Content-Type of new-api's answers written by its web
// framework; task reads are sent as plain application/json.
const ginJSON = "application/json; charset=utf-8"

type gatewayErrorBody struct {
	Error gatewayError `json:"error"`
}

type gatewayError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Type    string `json:"type"`
}

// writeGatewayError answers with one of new-api's own errors: its
// {"error":{...}} body, type new_api_error, and the request ID it appends
// to every message.
func (s *Server) writeGatewayError(w http.ResponseWriter, status int, code, msg string) {
	now := s.now()
	id := fmt.Sprintf("%s%d%s", now.Format("20060102150405"), now.UnixNano()%1e9, randomLetters(8))
	writeGatewayJSON(w, status, ginJSON, gatewayErrorBody{Error: gatewayError{
		Code: code, Message: fmt.Sprintf("%s (request id: %s)", msg, id), Type: "new_api_error",
	}})
}

// writeTaskError answers with an error of new-api's task relay.
func writeTaskError(w http.ResponseWriter, status int, code, msg string) {
	writeGatewayJSON(w, status, ginJSON, newAPIEnvelope{Code: code, Message: msg})
}

// writeGatewayJSON writes v as new-api does: HTML-escaped JSON ("&" in a
// clip URL arrives as \u0026), without a trailing newline.
func writeGatewayJSON(w http.ResponseWriter, status int, contentType string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // every answer is built from plain structs

	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(b) // the client went away; nothing useful to do
}

// randomLetters draws n letters for request IDs, which nothing repeats.
func randomLetters(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[rand.IntN(len(letters))] //nolint:gosec // request IDs, not secrets
	}
	return string(b)
}
