package mockapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The openai-videos dialect (DialectOpenAIVideos) is OpenAI's video API as
// openai-go v3.98 reads and writes it: POST /v1/videos takes multipart/form-data
// (model, prompt, seconds, size, and input_reference as a file or as
// input_reference[image_url] / input_reference[file_id]), and answers a video
// object; GET /v1/videos/{id} reads it; GET /v1/videos/{id}/content serves the
// clip behind the key; DELETE /v1/videos/{id} deletes a finished video; GET
// /v1/videos lists a page of them (after, limit, order). Unknown parameters are
// refused as OpenAI refuses them ("Unknown parameter: 'metadata'."), before
// anything is created. The ledger records the form fields other than model,
// prompt and seconds as the task's metadata, a JSON object of strings.

// Video statuses of OpenAI's video API.
const (
	videoQueued     = "queued"
	videoInProgress = "in_progress"
	videoCompleted  = "completed"
	videoFailed     = "failed"
)

// openAIDefaultSize is the size OpenAI's API makes when none is asked for.
const openAIDefaultSize = "720x1280"

// openAISizes are the sizes OpenAI's models make; sizes whose shorter side is a
// resolution of the mock's model are accepted too, as other servers of this API
// make them.
var (
	openAISizes = []string{"720x1280", "1280x720", "1024x1792", "1792x1024"}
	sizeRE      = regexp.MustCompile(`^([1-9][0-9]{0,4})x([1-9][0-9]{0,4})$`)
	videoFields = []string{"model", "prompt", "seconds", "size", "input_reference",
		"input_reference[image_url]", "input_reference[file_id]"}
)

// openAIVideo is OpenAI's video object.
type openAIVideo struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"`
	CreatedAt          int64             `json:"created_at"`
	CompletedAt        *int64            `json:"completed_at"`
	ExpiresAt          *int64            `json:"expires_at"`
	Error              *openAIVideoError `json:"error"`
	Model              string            `json:"model"`
	Progress           int               `json:"progress"`
	Prompt             string            `json:"prompt"`
	RemixedFromVideoID *string           `json:"remixed_from_video_id"`
	Seconds            string            `json:"seconds"`
	Size               string            `json:"size"`
	Status             string            `json:"status"`
}

type openAIVideoError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// openAIVideoView renders t as OpenAI's video object. Callers hold s.mu.
func (s *Server) openAIVideoView(t *task, now time.Time) openAIVideo {
	var form map[string]string
	_ = json.Unmarshal(t.metadata, &form) // the mock wrote it
	v := openAIVideo{
		ID: t.id, Object: "video", CreatedAt: t.submittedAt.Unix(), Model: t.model, Prompt: t.prompt,
		Seconds: t.seconds, Size: form["size"],
	}
	if v.Size == "" {
		v.Size = openAIDefaultSize
	}
	if v.Seconds == "" {
		v.Seconds = strconv.Itoa(s.models[t.model].DefaultSeconds)
	}
	switch s.observe(t, now) {
	case statusSubmitted:
		v.Status = videoQueued
	case statusRunning:
		v.Status, v.Progress = videoInProgress, s.progress(t, now)
	case statusSucceeded:
		v.Status, v.Progress = videoCompleted, 100
	case statusFailed:
		v.Status, v.Progress = videoFailed, 100
		v.Error = &openAIVideoError{Code: "video_generation_failed", Message: t.errMsg}
	}
	if t.final {
		done := t.finalAt.Unix()
		v.CompletedAt = &done
		if v.Status == videoCompleted && s.cfg.URLTTL > 0 {
			expires := s.contentExpiry(t).Unix()
			v.ExpiresAt = &expires
		}
	}
	return v
}

// routeVideos serves OpenAI's video routes.
func (s *Server) routeVideos(w http.ResponseWriter, r *http.Request, ep, id string, ks *keyState) {
	switch {
	case ep == epVideo && r.Method == http.MethodDelete:
		s.deleteVideo(w, id)
	case ep == epVideo:
		s.handleGetTask(w, r, id)
	case r.Method == http.MethodPost:
		s.handleSubmit(w, r, ks)
	default:
		s.handleVideoList(w, r, ks)
	}
}

// contentExpiry is when a completed video's content is gone: Config.URLTTL after
// it finished (Config.URLTTL > 0 only). Callers hold s.mu.
func (s *Server) contentExpiry(t *task) time.Time {
	return t.finalAt.Add(time.Duration(s.cfg.URLTTL))
}

// parseVideoSubmit validates a submission as OpenAI does (form, then
// parameters, then model and money).
func (s *Server) parseVideoSubmit(w http.ResponseWriter, r *http.Request, ks *keyState) (*submitRequest, *requestError) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return nil, invalid("", "the request body must be multipart/form-data (got %q)", r.Header.Get("Content-Type"))
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	if err := r.ParseMultipartForm(maxBodyBytes); err != nil { //nolint:gosec // G120: MaxBytesReader bounds the body just above
		if errors.As(err, new(*http.MaxBytesError)) {
			return nil, invalid("", "the request body is larger than %d bytes", maxBodyBytes)
		}
		return nil, invalid("", "could not read the multipart form: %v", err)
	}
	form := r.MultipartForm
	names := make([]string, 0, len(form.Value)+len(form.File))
	for k, v := range form.Value {
		if len(v) != 1 {
			return nil, invalid(k, "parameter '%s' is given %d times", k, len(v))
		}
		names = append(names, k)
	}
	for k := range form.File {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if !slices.Contains(videoFields, k) {
			return nil, invalid(k, "Unknown parameter: '%s'.", k)
		}
	}
	value := func(k string) string {
		if v := form.Value[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	req := &submitRequest{model: value("model"), prompt: value("prompt"), seconds: value("seconds")}
	if strings.TrimSpace(req.prompt) == "" {
		return nil, invalid("prompt", "Missing required parameter: 'prompt'.")
	}
	if req.model == "" {
		return nil, invalid("model", "Missing required parameter: 'model'.")
	}
	recorded := map[string]string{}
	size := value("size")
	if size != "" {
		recorded["size"] = size
	}
	refs := 0
	if u := value("input_reference[image_url]"); u != "" {
		recorded["input_reference[image_url]"] = u
		refs++
	}
	if id := value("input_reference[file_id]"); id != "" {
		recorded["input_reference[file_id]"] = id
		refs++
	}
	if files := form.File["input_reference"]; len(files) > 0 {
		recorded["input_reference"] = files[0].Filename
		refs += len(files)
	}
	if value("input_reference") != "" {
		return nil, invalid("input_reference", "input_reference must be a file upload or an object with image_url or file_id")
	}
	if refs > 1 {
		return nil, invalid("input_reference", "only one input_reference may be given")
	}
	if len(recorded) > 0 {
		req.metadata, _ = json.Marshal(recorded) // strings always encode
	}
	var rerr *requestError
	if req.duration, rerr = s.promptDuration(req.prompt); rerr != nil {
		return nil, rerr
	}
	if strings.Contains(req.prompt, s.cfg.FailMarker) {
		req.failReason = fmt.Sprintf("the video could not be generated (simulated failure: the prompt contains %q)", s.cfg.FailMarker)
	}
	model := s.models[req.model]
	switch {
	case model == nil:
		return nil, &requestError{status: http.StatusNotFound, apiError: apiError{Type: "invalid_request_error", Param: "model",
			Message: fmt.Sprintf("The model '%s' does not exist or you do not have access to it.", req.model)}}
	case !ks.allows(req.model):
		return nil, &requestError{status: http.StatusForbidden, apiError: apiError{Type: "invalid_request_error", Param: "model",
			Message: fmt.Sprintf("Your API key may not use the model '%s'.", req.model)}}
	}
	if rerr := checkVideoSize(size, model); rerr != nil {
		return nil, rerr
	}
	secs := int64(model.DefaultSeconds)
	if req.seconds != "" {
		n, err := strconv.ParseInt(req.seconds, 10, 64)
		if !digits.MatchString(req.seconds) || err != nil || n < 1 {
			return nil, invalid("seconds", "Invalid value for 'seconds': %q is not a whole number of seconds.", req.seconds)
		}
		if model.MaxSeconds > 0 && n > int64(model.MaxSeconds) {
			return nil, invalid("seconds", "Invalid value for 'seconds': %d exceeds the maximum of %d for model '%s'.",
				n, model.MaxSeconds, req.model)
		}
		secs = n
	}
	if secs > math.MaxInt64/max(1, s.cfg.PricePerSecond) {
		return nil, invalid("seconds", "Invalid value for 'seconds': %q is too large.", req.seconds)
	}
	req.cost = secs * s.cfg.PricePerSecond
	s.mu.Lock()
	short := ks.Balance != nil && *ks.Balance < req.cost
	s.mu.Unlock()
	if short {
		return nil, &requestError{status: http.StatusTooManyRequests, apiError: apiError{Type: "insufficient_quota",
			Message: "You exceeded your current quota, please check your plan and billing details."}}
	}
	return req, nil
}

// checkVideoSize accepts OpenAI's sizes, and a size whose shorter side is a
// resolution the model makes.
func checkVideoSize(size string, model *Model) *requestError {
	if size == "" || slices.Contains(openAISizes, size) {
		return nil
	}
	m := sizeRE.FindStringSubmatch(size)
	if m == nil {
		return invalid("size", "Invalid value for 'size': %q is not WIDTHxHEIGHT.", size)
	}
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	if res := fmt.Sprintf("%dp", min(w, h)); !slices.Contains(model.Resolutions, res) {
		return invalid("size", "Invalid value for 'size': model '%s' does not make %s (%s); it makes %s, and %s.",
			model.ID, size, res, strings.Join(model.Resolutions, ", "), strings.Join(openAISizes, ", "))
	}
	return nil
}

// writeVideoNotFound answers OpenAI's 404 for a video it does not have.
func writeVideoNotFound(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, "invalid_request_error", "", fmt.Sprintf("Video with id '%s' not found.", id))
}

// deleteVideo deletes a completed or failed video, as OpenAI does.
func (s *Server) deleteVideo(w http.ResponseWriter, id string) {
	now := s.now()
	s.mu.Lock()
	t := s.lookup(id, now)
	status := ""
	if t != nil && !t.deleted {
		status = s.observe(t, now)
	}
	s.mu.Unlock()
	switch status {
	case "":
		writeVideoNotFound(w, id)
	case statusSucceeded, statusFailed:
		s.DeleteTask(id)
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "video.deleted", "deleted": true})
	default:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "",
			fmt.Sprintf("Video with id '%s' is %s: only a completed or failed video can be deleted.", id,
				map[string]string{statusSubmitted: videoQueued, statusRunning: videoInProgress}[status]))
	}
}

type openAIVideoPage struct {
	Object  string        `json:"object"`
	Data    []openAIVideo `json:"data"`
	FirstID *string       `json:"first_id"`
	LastID  *string       `json:"last_id"`
	HasMore bool          `json:"has_more"`
}

// handleVideoList answers a page of the key's videos, newest first unless
// order=asc, after the video named by after, at most limit (default 20, 1 to
// 100) of them.
func (s *Server) handleVideoList(w http.ResponseWriter, r *http.Request, ks *keyState) {
	q := r.URL.Query()
	limit := 20
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 100 {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "limit", "Invalid value for 'limit': use 1 to 100.")
			return
		}
		limit = n
	}
	order := q.Get("order")
	if order != "" && order != "asc" && order != "desc" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "order", "Invalid value for 'order': use asc or desc.")
		return
	}
	now := s.now()
	s.mu.Lock()
	var all []*task
	for _, t := range s.order {
		if s.retain(t, now); t.key == ks && !t.deleted {
			all = append(all, t)
		}
	}
	if order != "asc" {
		slices.Reverse(all)
	}
	if after := q.Get("after"); after != "" {
		i := slices.IndexFunc(all, func(t *task) bool { return t.id == after })
		if i < 0 {
			s.mu.Unlock()
			writeError(w, http.StatusBadRequest, "invalid_request_error", "after", fmt.Sprintf("Video with id '%s' not found.", after))
			return
		}
		all = all[i+1:]
	}
	page := openAIVideoPage{Object: "list", Data: []openAIVideo{}, HasMore: len(all) > limit}
	for _, t := range all[:min(limit, len(all))] {
		page.Data = append(page.Data, s.openAIVideoView(t, now))
	}
	s.mu.Unlock()
	if n := len(page.Data); n > 0 {
		page.FirstID, page.LastID = &page.Data[0].ID, &page.Data[n-1].ID
	}
	writeJSON(w, http.StatusOK, page)
}
