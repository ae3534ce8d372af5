package upstream

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
)

// OpenAI's videos API, as new-api's Sora adaptor (channel type 55) calls it:
// POST {base}/v1/videos with the client's body forwarded unchanged, then GET
// /v1/videos/{id}, each with the key as a bearer token; the clip is at
// /v1/videos/{id}/content behind the same key, which new-api fetches for
// its own /v1/videos/{id}/content.
const soraPath = "/v1/videos"

// What OpenAI makes when a request leaves them out.
const (
	SoraSeconds = "4"
	SoraSize    = "720x1280"
)

var (
	soraFields  = []string{"model", "prompt", "seconds", "size", "input_reference"}
	soraSeconds = []string{"4", "8", "12"}
	soraSizes   = []string{"720x1280", "1280x720", "1024x1792", "1792x1024"}
)

// soraVideo is OpenAI's video object.
type soraVideo struct {
	ID          string          `json:"id"`
	Object      string          `json:"object"`
	Model       string          `json:"model"`
	Status      string          `json:"status"`
	Progress    int             `json:"progress"`
	CreatedAt   int64           `json:"created_at"`
	CompletedAt int64           `json:"completed_at,omitempty"`
	ExpiresAt   int64           `json:"expires_at,omitempty"`
	Seconds     string          `json:"seconds"`
	Size        string          `json:"size"`
	Error       *soraVideoError `json:"error,omitempty"`
}

// soraVideoError is why a video failed.
type soraVideoError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type soraError struct {
	Message string  `json:"message"`
	Type    string  `json:"type,omitempty"`
	Param   *string `json:"param"`
	Code    string  `json:"code"`
}

func (s *Server) serveSora(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+s.Key {
		writeSoraError(w, http.StatusUnauthorized, "", "invalid_api_key", "Incorrect API key provided.")
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, soraPath)
	switch id, content := strings.CutSuffix(strings.TrimPrefix(rest, "/"), "/content"); {
	case ok && rest == "" && r.Method == http.MethodPost:
		s.soraSubmit(w, r)
	case ok && id != "" && !strings.Contains(id, "/") && r.Method == http.MethodGet && content:
		if !s.done(id) {
			writeSoraError(w, http.StatusNotFound, "", "video_not_ready", fmt.Sprintf("Video with id '%s' is not ready.", id))
			return
		}
		s.serveClip(w, id)
	case ok && id != "" && !strings.Contains(id, "/") && r.Method == http.MethodGet:
		s.soraGet(w, id)
	default:
		writeSoraError(w, http.StatusNotFound, "", "unknown_url", "Invalid URL ("+r.Method+" "+r.URL.Path+")")
	}
}

// soraSubmit validates the body as OpenAI does, JSON or multipart/form-data
// (as OpenAI's SDK sends it): only its own parameters, seconds and size from
// their lists.
func (s *Server) soraSubmit(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var fields map[string]string
	if err == nil {
		fields, err = soraFieldsOf(r.Header.Get("Content-Type"), body)
	}
	if err != nil {
		writeSoraError(w, http.StatusBadRequest, "", "invalid_request", "We could not parse the body of your request: "+err.Error())
		return
	}
	sub := Submission{Model: fields["model"], Prompt: fields["prompt"], Body: body, Fields: fields, IdempotencyKey: idempotencyKey(r)}
	refuse := func(param, code, msg string) {
		s.record(sub, nil)
		writeSoraError(w, http.StatusBadRequest, param, code, msg)
	}
	names := slices.Sorted(maps.Keys(fields))
	for _, name := range names {
		base, _, _ := strings.Cut(name, "[")
		if !slices.Contains(soraFields, base) {
			refuse(name, "unknown_parameter", fmt.Sprintf("Unknown parameter: '%s'.", name))
			return
		}
	}
	seconds, size := fields["seconds"], fields["size"]
	switch {
	case seconds != "" && !slices.Contains(soraSeconds, seconds):
		refuse("seconds", "invalid_value", fmt.Sprintf("Invalid value: '%s'. Supported values are: '4', '8', and '12'.", seconds))
		return
	case size != "" && !slices.Contains(soraSizes, size):
		refuse("size", "invalid_value", fmt.Sprintf("Invalid value: '%s'. Supported values are: '720x1280', '1280x720', '1024x1792', and '1792x1024'.", size))
		return
	case strings.Contains(sub.Prompt, RejectMarker):
		refuse("", "moderation_blocked", "Your request was blocked by our moderation system.")
		return
	}
	t := newTask("video_"+randomHex(16), sub.Model)
	t.seconds, t.size = cmp.Or(seconds, SoraSeconds), cmp.Or(size, SoraSize)
	s.record(sub, t)
	writeJSON(w, http.StatusOK, soraRecord(*t))
}

// soraFieldsOf reads a submission's members as strings: a JSON object's (a
// string as its value, anything else as its JSON text) or a form's fields.
func soraFieldsOf(contentType string, body []byte) (map[string]string, error) {
	mediaType, params, _ := mime.ParseMediaType(contentType)
	fields := map[string]string{}
	if mediaType == "multipart/form-data" {
		form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(1 << 20)
		if err != nil {
			return nil, err
		}
		for name, values := range form.Value {
			fields[name] = values[0]
		}
		for name := range form.File {
			fields[name] = "(file)"
		}
		return fields, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, err
	}
	for name, raw := range members {
		var str string
		if json.Unmarshal(raw, &str) != nil {
			str = string(raw)
		}
		fields[name] = str
	}
	return fields, nil
}

func (s *Server) soraGet(w http.ResponseWriter, id string) {
	t, ok := s.fetch(id)
	if !ok {
		writeSoraError(w, http.StatusNotFound, "", "video_not_found", fmt.Sprintf("Video with id '%s' not found.", id))
		return
	}
	writeJSON(w, http.StatusOK, soraRecord(t))
}

// soraRecord is t as OpenAI's video object.
func soraRecord(t task) soraVideo {
	v := soraVideo{ID: t.id, Object: "video", Model: t.model, Status: "queued", CreatedAt: t.created.Unix(),
		Seconds: t.seconds, Size: t.size}
	switch t.status {
	case succeeded:
		v.Status, v.Progress = "completed", 100
		v.CompletedAt, v.ExpiresAt = t.updated.Unix(), t.updated.Unix()+24*3600
	case failed:
		v.Status, v.Progress = "failed", 100
		v.CompletedAt = t.updated.Unix()
		v.Error = &soraVideoError{Code: "moderation_blocked", Message: t.errMsg}
	}
	return v
}

// writeSoraError writes OpenAI's error body; param "" is null.
func writeSoraError(w http.ResponseWriter, status int, param, code, msg string) {
	e := soraError{Message: msg, Type: "invalid_request_error", Code: code}
	if param != "" {
		e.Param = &param
	}
	writeJSON(w, status, map[string]soraError{"error": e})
}
