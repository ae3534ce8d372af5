package mockapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Veo's predict request and long-running operation, as google.golang.org/genai
// v1.77 writes and reads them (its generateVideosParametersTo{Mldev,Vertex}
// and generateVideosOperationFrom{Mldev,Vertex}).

// FilterMarker in a prompt makes its operation finish without a video, as
// Veo's safety filters do: done, no sample, raiMediaFilteredReasons. It is
// not billed.
const FilterMarker = "[mock:filtered]"

// filterReason is what the mock's filter says, in Veo's words.
const filterReason = "Video generation was blocked by the safety filters (simulated: the prompt contains " + FilterMarker + ")."

// veoInstanceMembers are the members of instances[0] Veo reads.
var veoInstanceMembers = []string{"prompt", "image", "lastFrame", "video", "referenceImages", "mask"}

// veoParameters are the members of parameters Veo reads, per API: the Gemini
// API lacks Vertex AI's storageUri, generateAudio, seed, fps and the rest
// (genai refuses them in Gemini Developer API mode).
var (
	veoParameters       = []string{"aspectRatio", "resolution", "durationSeconds", "negativePrompt", "personGeneration", "enhancePrompt", "sampleCount"}
	vertexOnlyParameter = []string{"storageUri", "generateAudio", "seed", "fps", "compressionQuality", "resizeMode", "pubsubTopic"}
	veoRatios           = []string{"16:9", "9:16"}
)

type veoRequestBody struct {
	Instances  []map[string]json.RawMessage `json:"instances"`
	Parameters map[string]json.RawMessage   `json:"parameters"`
}

type veoReferenceImage struct {
	Image *struct {
		BytesBase64Encoded string `json:"bytesBase64Encoded"`
		GCSURI             string `json:"gcsUri"`
		MIMEType           string `json:"mimeType"`
	} `json:"image"`
	ReferenceType string `json:"referenceType"`
}

// parseVeoSubmit validates a predict request as Veo does (body, then
// parameters, then model and quota) and records what the ledger keeps: the
// parameters as sent, and each reference image as its gcsUri or the SHA-256 of
// its bytes.
func (s *Server) parseVeoSubmit(w http.ResponseWriter, r *http.Request, ks *keyState, route googleRoute) (*submitRequest, *requestError) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, googleInvalid("the request body must be JSON (Content-Type: application/json, got %q)", r.Header.Get("Content-Type"))
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4*maxBodyBytes*5)) // Google takes 20 MB inline
	if err != nil {
		return nil, googleInvalid("could not read the request body: %v", err)
	}
	var body veoRequestBody
	if err := json.Unmarshal(data, &body); err != nil {
		return nil, googleInvalid("Invalid JSON payload received. %v", err)
	}
	if len(body.Instances) != 1 {
		return nil, googleInvalid("instances must hold exactly one instance, got %d", len(body.Instances))
	}
	inst := body.Instances[0]
	for _, k := range slices.Sorted(maps.Keys(inst)) {
		if !slices.Contains(veoInstanceMembers, k) {
			return nil, googleInvalid("Invalid JSON payload received. Unknown name %q at 'instances[0]': Cannot find field.", k)
		}
	}
	req := &submitRequest{model: route.model}
	if p, ok := asString(inst["prompt"]); !ok || strings.TrimSpace(p) == "" {
		return nil, googleInvalid("instances[0].prompt is required and must be a non-empty string")
	} else {
		req.prompt = p
	}
	recorded := map[string]json.RawMessage{}
	for _, k := range slices.Sorted(maps.Keys(body.Parameters)) {
		v := body.Parameters[k]
		switch {
		case slices.Contains(vertexOnlyParameter, k) && s.gemini:
			return nil, googleInvalid("`%s` isn't supported by this model. Please remove it or refer to the Gemini API documentation for supported usage.", k)
		case !slices.Contains(veoParameters, k) && !slices.Contains(vertexOnlyParameter, k):
			return nil, googleInvalid("Invalid JSON payload received. Unknown name %q at 'parameters': Cannot find field.", k)
		}
		recorded[k] = v
	}
	if rerr := s.checkVeoParameters(body.Parameters, req); rerr != nil {
		return nil, rerr
	}
	if raw, ok := inst["referenceImages"]; ok {
		var refs []veoReferenceImage
		if err := json.Unmarshal(raw, &refs); err != nil {
			return nil, googleInvalid("instances[0].referenceImages must be a list of {image, referenceType}: %v", err)
		}
		if len(refs) > 3 {
			return nil, googleInvalid("at most 3 reference images are allowed, got %d", len(refs))
		}
		var seen []string
		for i, ref := range refs {
			switch {
			case ref.Image == nil:
				return nil, googleInvalid("instances[0].referenceImages[%d].image is required", i)
			case ref.Image.GCSURI != "" && s.gemini:
				return nil, googleInvalid("instances[0].referenceImages[%d].image: gcsUri isn't supported by the Gemini API; send bytesBase64Encoded", i)
			case ref.Image.GCSURI != "":
				if !strings.HasPrefix(ref.Image.GCSURI, "gs://") {
					return nil, googleInvalid("instances[0].referenceImages[%d].image.gcsUri must be a gs:// URI", i)
				}
				seen = append(seen, ref.Image.GCSURI)
			default:
				img, err := base64.StdEncoding.DecodeString(ref.Image.BytesBase64Encoded)
				if err != nil || len(img) == 0 {
					return nil, googleInvalid("instances[0].referenceImages[%d].image.bytesBase64Encoded must be the image in base64", i)
				}
				if ref.Image.MIMEType == "" {
					return nil, googleInvalid("instances[0].referenceImages[%d].image.mimeType is required with bytesBase64Encoded", i)
				}
				sum := sha256.Sum256(img)
				seen = append(seen, "sha256:"+hex.EncodeToString(sum[:]))
			}
			if rt := strings.ToUpper(ref.ReferenceType); rt != "ASSET" && rt != "STYLE" {
				return nil, googleInvalid("instances[0].referenceImages[%d].referenceType must be ASSET or STYLE", i)
			}
		}
		recorded["referenceImages"], _ = json.Marshal(seen) // strings always encode
	}
	if len(recorded) > 0 {
		req.metadata, _ = json.Marshal(recorded) // raw JSON values and strings always encode
	}
	var rerr *requestError
	if req.duration, rerr = s.promptDuration(req.prompt); rerr != nil {
		return nil, &requestError{status: http.StatusBadRequest, apiError: apiError{Type: "INVALID_ARGUMENT", Message: rerr.Message}}
	}
	switch {
	case strings.Contains(req.prompt, FilterMarker):
		req.failReason, req.filtered = filterReason, true
	case strings.Contains(req.prompt, s.cfg.FailMarker):
		req.failReason = fmt.Sprintf("Video generation failed (simulated failure: the prompt contains %q).", s.cfg.FailMarker)
	}
	model := s.models[req.model]
	switch {
	case model == nil && s.gemini:
		return nil, &requestError{status: http.StatusNotFound, apiError: apiError{Type: "NOT_FOUND", Message: fmt.Sprintf(
			"models/%s is not found for API version v1beta, or is not supported for predictLongRunning. "+
				"Call ListModels to see the list of available models and their supported methods.", req.model)}}
	case model == nil:
		return nil, &requestError{status: http.StatusNotFound, apiError: apiError{Type: "NOT_FOUND", Message: fmt.Sprintf(
			"Publisher Model `%s` was not found or your project does not have access to it.", route.resource)}}
	case !ks.allows(req.model):
		return nil, &requestError{status: http.StatusForbidden, apiError: apiError{Type: "PERMISSION_DENIED",
			Message: fmt.Sprintf("Permission denied on model %s for this credential.", req.model)}}
	}
	if res, _ := asString(body.Parameters["resolution"]); res != "" && !slices.Contains(model.Resolutions, res) {
		return nil, googleInvalid("resolution %q isn't supported by %s; it supports %s", res, req.model, strings.Join(model.Resolutions, ", "))
	}
	secs := int64(model.DefaultSeconds)
	if req.seconds != "" {
		secs, _ = strconv.ParseInt(req.seconds, 10, 64) // checkVeoParameters wrote digits
		if model.MaxSeconds > 0 && secs > int64(model.MaxSeconds) {
			return nil, googleInvalid("durationSeconds %d is out of range for %s: at most %d", secs, req.model, model.MaxSeconds)
		}
	}
	if secs > math.MaxInt64/max(1, s.cfg.PricePerSecond) {
		return nil, googleInvalid("durationSeconds %d is too large", secs)
	}
	req.cost = secs * s.cfg.PricePerSecond
	s.mu.Lock()
	short := ks.Balance != nil && *ks.Balance < req.cost
	s.mu.Unlock()
	if short {
		return nil, &requestError{status: http.StatusTooManyRequests, apiError: apiError{Type: "RESOURCE_EXHAUSTED",
			Message: "You exceeded your current quota, please check your plan and billing details."}}
	}
	return req, nil
}

// checkVeoParameters checks the types and values of the parameters the mock
// understands and fills req's seconds and storage destination.
func (s *Server) checkVeoParameters(p map[string]json.RawMessage, req *submitRequest) *requestError {
	if raw, ok := p["durationSeconds"]; ok {
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil || n < 1 {
			return googleInvalid("durationSeconds must be a positive whole number, got %s", raw)
		}
		req.seconds = strconv.FormatInt(n, 10)
	}
	if raw, ok := p["aspectRatio"]; ok {
		if v, ok := asString(raw); !ok || !slices.Contains(veoRatios, v) {
			return googleInvalid("aspectRatio must be one of %s, got %s", strings.Join(veoRatios, ", "), raw)
		}
	}
	if raw, ok := p["resolution"]; ok {
		if _, ok := asString(raw); !ok {
			return googleInvalid("resolution must be a string such as \"720p\", got %s", raw)
		}
	}
	for _, k := range []string{"generateAudio", "enhancePrompt"} {
		if raw, ok := p[k]; ok {
			var b bool
			if json.Unmarshal(raw, &b) != nil {
				return googleInvalid("%s must be true or false, got %s", k, raw)
			}
		}
	}
	if raw, ok := p["sampleCount"]; ok {
		var n int
		if json.Unmarshal(raw, &n) != nil || n < 1 || n > 4 {
			return googleInvalid("sampleCount must be 1 to 4, got %s", raw)
		}
	}
	if raw, ok := p["storageUri"]; ok {
		v, ok := asString(raw)
		if !ok || !strings.HasPrefix(v, "gs://") || len(v) <= len("gs://") {
			return googleInvalid("storageUri must be a gs:// URI, got %s", raw)
		}
		req.storageURI = v
	}
	return nil
}

func googleInvalid(format string, args ...any) *requestError {
	return &requestError{status: http.StatusBadRequest, apiError: apiError{Type: "INVALID_ARGUMENT", Message: fmt.Sprintf(format, args...)}}
}

// handleVeoSubmit creates the operation of a valid predict request and answers
// its name, as Veo does.
func (s *Server) handleVeoSubmit(w http.ResponseWriter, r *http.Request, ks *keyState, route googleRoute) {
	req, rerr := s.parseVeoSubmit(w, r, ks, route)
	if rerr != nil {
		writeGoogleError(w, rerr.status, rerr.Type, rerr.Message, "")
		return
	}
	req.resource = route.resource
	t := s.accept(r, ks, req)
	if t.submitStatus == http.StatusGatewayTimeout {
		writeGatewayTimeout(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"name": t.id})
}

// handleVeoRead answers GET /v1beta/{operation name}.
func (s *Server) handleVeoRead(w http.ResponseWriter, r *http.Request, name string) {
	s.writeOperation(w, r, name)
}

// handleVertexFetch answers POST {model}:fetchPredictOperation with
// {"operationName"}: the operation must be one of that model's.
func (s *Server) handleVertexFetch(w http.ResponseWriter, r *http.Request, route googleRoute) {
	var body struct {
		OperationName string `json:"operationName"`
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil || json.Unmarshal(data, &body) != nil || body.OperationName == "" {
		writeGoogleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "the body must be {\"operationName\": \"projects/.../operations/...\"}", "")
		return
	}
	resource := route.resource
	if !strings.HasPrefix(body.OperationName, resource+"/operations/") {
		writeGoogleError(w, http.StatusBadRequest, "INVALID_ARGUMENT",
			fmt.Sprintf("operationName %s is not an operation of %s", body.OperationName, resource), "")
		return
	}
	s.writeOperation(w, r, body.OperationName)
}

// writeOperation answers an operation read, counted as a GET of its task. A
// vertex operation with a storageUri is done only once its clip is written
// there (Config.CloudStorage); a failed write is answered 503, as a read
// the client may repeat.
func (s *Server) writeOperation(w http.ResponseWriter, r *http.Request, name string) {
	now := s.now()
	s.mu.Lock()
	t := s.lookup(name, now)
	if t == nil || t.deleted {
		if t != nil {
			t.read(now)
			s.notify()
		}
		s.mu.Unlock()
		writeGoogleError(w, http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("Operation %s not found.", name), "")
		return
	}
	if s.vertexStores(t, s.observe(t, now)) {
		s.mu.Unlock()
		if err := s.storeVertexClip(r.Context(), t); err != nil {
			writeGoogleError(w, http.StatusServiceUnavailable, "UNAVAILABLE",
				fmt.Sprintf("The clip of operation %s could not be written to its storageUri: %v", name, err), "")
			return
		}
		s.mu.Lock()
	}
	t.read(now)
	op := s.veoOperationView(t, baseURL(r), now)
	if t.final && t.finalObservedAt == nil {
		at := now
		t.finalObservedAt = &at
	}
	s.notify()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, op)
}

// veoOperation is a long-running operation as Veo answers it.
type veoOperation struct {
	Name     string          `json:"name"`
	Metadata map[string]any  `json:"metadata,omitempty"`
	Done     bool            `json:"done,omitempty"`
	Error    *googleStatus   `json:"error,omitempty"`
	Response *map[string]any `json:"response,omitempty"`
}

// veoOperationView renders t as its operation. Callers hold s.mu.
func (s *Server) veoOperationView(t *task, base string, now time.Time) veoOperation {
	op := veoOperation{Name: t.id}
	status := s.observe(t, now)
	if status != statusSucceeded && status != statusFailed {
		return op
	}
	op.Done = true
	switch {
	case status == statusFailed && !t.filtered:
		op.Error = &googleStatus{Code: 13, Message: t.errMsg}
		return op
	case s.gemini:
		resp := map[string]any{"@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse"}
		gen := map[string]any{}
		if t.filtered {
			gen["raiMediaFilteredCount"], gen["raiMediaFilteredReasons"] = 1, []string{t.errMsg}
		} else {
			gen["generatedSamples"] = []any{map[string]any{"video": map[string]string{
				"uri": base + "/v1beta/files/" + geminiFileID(t.id) + ":download?alt=media"}}}
		}
		resp["generateVideoResponse"] = gen
		op.Response = &resp
	default:
		resp := map[string]any{"@type": "type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse"}
		switch {
		case t.filtered:
			resp["raiMediaFilteredCount"], resp["raiMediaFilteredReasons"] = 1, []string{t.errMsg}
		case t.storageURI != "":
			resp["videos"] = []any{map[string]string{"gcsUri": VertexClipURI(t.storageURI, t.id), "mimeType": "video/mp4"}}
		default:
			clip, _ := s.clipBytes(t)
			t.clipServed++
			resp["videos"] = []any{map[string]string{"bytesBase64Encoded": base64.StdEncoding.EncodeToString(clip), "mimeType": "video/mp4"}}
		}
		op.Response = &resp
	}
	return op
}

// VertexClipURI is where the vertex dialect says it wrote the clip of
// operation name under a storageUri: a folder per operation, as Vertex AI
// writes sample_0.mp4 into one.
func VertexClipURI(storageURI, name string) string {
	return strings.TrimSuffix(storageURI, "/") + "/" + name[strings.LastIndex(name, "/")+1:] + "/sample_0.mp4"
}
