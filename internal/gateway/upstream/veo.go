package upstream

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// The Gemini API's Veo, as new-api's Gemini task adaptor (channel type 24)
// calls it: POST {base}/v1beta/models/{model}:predictLongRunning, which
// answers a long-running operation's name, then GET {base}/v1beta/{name},
// each with the key in x-goog-api-key; the clip is a file URI on the same
// API, fetched with the key (new-api adds it as ?key= and in the header) for
// new-api's own /v1/videos/{id}/content. new-api's task ID is the
// operation's name in unpadded base64url.
const (
	veoPrefix   = "/v1beta/"
	veoFilePath = "/v1beta/files/"
)

// veoOperation is a long-running operation of the Gemini API.
type veoOperation struct {
	Name     string       `json:"name"`
	Done     bool         `json:"done,omitempty"`
	Response *veoResponse `json:"response,omitempty"`
	Error    *veoError    `json:"error,omitempty"`
}

type veoResponse struct {
	Type                  string `json:"@type"`
	GenerateVideoResponse struct {
		GeneratedSamples []veoSample `json:"generatedSamples"`
	} `json:"generateVideoResponse"`
}

type veoSample struct {
	Video struct {
		URI string `json:"uri"`
	} `json:"video"`
}

type veoError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status,omitempty"`
}

// veoRequest is the part of new-api's Gemini request the stand-in reads.
type veoRequest struct {
	Instances []struct {
		Prompt string `json:"prompt"`
	} `json:"instances"`
}

// VeoGatewayID is the task ID new-api gives the operation name.
func VeoGatewayID(name string) string { return base64.RawURLEncoding.EncodeToString([]byte(name)) }

func (s *Server) serveVeo(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("X-Goog-Api-Key")
	if key == "" {
		key = r.URL.Query().Get("key")
	}
	if key != s.Key {
		writeVeoError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")
		return
	}
	rest, _ := strings.CutPrefix(r.URL.Path, veoPrefix)
	switch {
	case strings.HasPrefix(r.URL.Path, veoFilePath) && r.Method == http.MethodGet:
		file := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, veoFilePath), ":download")
		name, err := base64.RawURLEncoding.DecodeString(file)
		if err != nil || r.URL.Query().Get("alt") != "media" {
			writeVeoError(w, http.StatusNotFound, "NOT_FOUND", "File not found.")
			return
		}
		s.serveClip(w, string(name))
	case strings.HasPrefix(rest, "models/") && strings.HasSuffix(rest, ":predictLongRunning") && r.Method == http.MethodPost:
		s.veoSubmit(w, r, strings.TrimSuffix(strings.TrimPrefix(rest, "models/"), ":predictLongRunning"))
	case strings.Contains(rest, "/operations/") && r.Method == http.MethodGet:
		s.veoGet(w, rest)
	default:
		writeVeoError(w, http.StatusNotFound, "NOT_FOUND", "no such endpoint: "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) veoSubmit(w http.ResponseWriter, r *http.Request, model string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req veoRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil || len(req.Instances) != 1 {
		writeVeoError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received.")
		return
	}
	sub := Submission{Model: model, Prompt: req.Instances[0].Prompt, Body: body, IdempotencyKey: idempotencyKey(r)}
	if strings.Contains(sub.Prompt, RejectMarker) || strings.TrimSpace(sub.Prompt) == "" {
		s.record(sub, nil)
		writeVeoError(w, http.StatusBadRequest, "INVALID_ARGUMENT",
			"The prompt could not be submitted. This prompt contains words that violate Vertex AI's usage guidelines.")
		return
	}
	t := newTask("models/"+model+"/operations/"+randomHex(6), model)
	sub.GatewayID = VeoGatewayID(t.id)
	s.record(sub, t)
	writeJSON(w, http.StatusOK, veoOperation{Name: t.id})
}

func (s *Server) veoGet(w http.ResponseWriter, name string) {
	t, ok := s.fetch(name)
	if !ok {
		writeVeoError(w, http.StatusNotFound, "NOT_FOUND", "Operation not found: "+name)
		return
	}
	op := veoOperation{Name: t.id}
	switch t.status {
	case succeeded:
		op.Done = true
		op.Response = &veoResponse{Type: "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse"}
		sample := veoSample{}
		sample.Video.URI = s.URL + veoFilePath + VeoGatewayID(t.id) + ":download?alt=media"
		op.Response.GenerateVideoResponse.GeneratedSamples = []veoSample{sample}
	case failed:
		op.Done = true
		op.Error = &veoError{Code: 13, Message: t.errMsg}
	}
	writeJSON(w, http.StatusOK, op)
}

// writeVeoError writes the Gemini API's error body.
func writeVeoError(w http.ResponseWriter, status int, state, msg string) {
	writeJSON(w, status, map[string]veoError{"error": {Code: status, Message: msg, Status: state}})
}
