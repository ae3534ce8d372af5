package mockapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// submitRequest is a validated POST /v1/video/generations body.
type submitRequest struct {
	model       string
	prompt      string
	seconds     string
	metadata    []byte
	callbackURL string
	cost        int64
	duration    time.Duration
	failReason  string
	// Google's dialects: a failure that is a safety filter's, the gs://
	// destination, and the vertex model's resource name its operations
	// are named under.
	filtered   bool
	storageURI string
	resource   string
}

// requestError is an API error response waiting to be written.
type requestError struct {
	status int
	apiError
}

func invalid(param, format string, args ...any) *requestError {
	return &requestError{status: http.StatusBadRequest, apiError: apiError{
		Message: fmt.Sprintf(format, args...), Type: "invalid_request_error", Param: param,
	}}
}

type contentRule struct {
	role  string
	limit int
}

// contentRules are the reference media kinds, the role each must declare and
// how many a request may carry, in the order messages list them.
var (
	contentTypes = []string{"image_url", "video_url", "audio_url"}
	contentRules = map[string]contentRule{
		"image_url": {role: "reference_image", limit: 9},
		"video_url": {role: "reference_video", limit: 3},
		"audio_url": {role: "reference_audio", limit: 3},
	}
	digits   = regexp.MustCompile(`^[0-9]+$`)
	ratioRE  = regexp.MustCompile(`^[1-9][0-9]*:[1-9][0-9]*$`)
	topLevel = []string{"model", "prompt", "seconds", "metadata"}
)

// parseSubmit validates a submission in the order a client most usefully
// hears about problems: body shape, then parameters, then model access, then
// money.
func (s *Server) parseSubmit(w http.ResponseWriter, r *http.Request, ks *keyState) (*submitRequest, *requestError) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, invalid("", "the request body must be JSON sent with \"Content-Type: application/json\" (got %q)", r.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			return nil, invalid("", "the request body is larger than %d bytes; send reference media by URL, not inline", maxBodyBytes)
		}
		return nil, invalid("", "could not read the request body: %v", err)
	}
	fields, rerr := decodeObject(body)
	if rerr != nil {
		return nil, rerr
	}

	var unknown []string
	for k := range fields {
		if !slices.Contains(topLevel, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown) // report the same one each time
	if len(unknown) > 0 {
		k := unknown[0]
		if k == "callback_url" {
			return nil, invalid("callback_url", "callback_url is not a top-level parameter: it belongs in metadata.callback_url")
		}
		if k == "ratio" || k == "resolution" || k == "generate_audio" || k == "content" {
			return nil, invalid(k, "%s is not a top-level parameter: it belongs in metadata.%s", k, k)
		}
		return nil, invalid(k, "unrecognized request parameter %q; the accepted parameters are model, prompt, seconds and metadata", k)
	}

	req := &submitRequest{}
	if req.model, rerr = requiredString(fields, "model"); rerr != nil {
		return nil, rerr
	}
	if req.prompt, rerr = requiredString(fields, "prompt"); rerr != nil {
		return nil, rerr
	}
	secs := int64(0)
	if raw, ok := fields["seconds"]; ok {
		if req.seconds, secs, rerr = parseSeconds(raw); rerr != nil {
			return nil, rerr
		}
	}
	var resolution string
	if raw, ok := fields["metadata"]; ok {
		if resolution, req.callbackURL, rerr = parseMetadata(raw); rerr != nil {
			return nil, rerr
		}
		req.metadata = slices.Clone([]byte(raw))
	}
	if req.duration, rerr = s.promptDuration(req.prompt); rerr != nil {
		return nil, rerr
	}
	if strings.Contains(req.prompt, s.cfg.FailMarker) {
		req.failReason = fmt.Sprintf("the video could not be generated (simulated failure: the prompt contains %q); submit a new task", s.cfg.FailMarker)
	}

	model := s.models[req.model]
	if model == nil {
		return nil, &requestError{status: http.StatusNotFound, apiError: apiError{
			Type: "not_found_error", Param: "model",
			Message: fmt.Sprintf("model %q does not exist; models available to this key: %s (see GET /v1/models)",
				req.model, strings.Join(s.modelIDs(ks), ", ")),
		}}
	}
	if !ks.allows(req.model) {
		return nil, &requestError{status: http.StatusForbidden, apiError: apiError{
			Type: "permission_error", Param: "model",
			Message: fmt.Sprintf("this API key may not use model %q; it may use: %s. Use an allowed model or a key with access to it",
				req.model, strings.Join(s.modelIDs(ks), ", ")),
		}}
	}
	if resolution != "" && !slices.Contains(model.Resolutions, resolution) {
		return nil, invalid("metadata.resolution", "model %q does not support resolution %q; it accepts: %s",
			req.model, resolution, strings.Join(model.Resolutions, ", "))
	}
	if model.MaxSeconds > 0 && secs > int64(model.MaxSeconds) {
		return nil, invalid("seconds", "seconds %q exceeds the maximum of %d for model %q; request %d or fewer",
			req.seconds, model.MaxSeconds, req.model, model.MaxSeconds)
	}
	billed := secs
	if billed == 0 {
		billed = int64(model.DefaultSeconds)
	}
	if billed > math.MaxInt64/max(1, s.cfg.PricePerSecond) {
		return nil, invalid("seconds", "seconds %q is too large", req.seconds)
	}
	req.cost = billed * s.cfg.PricePerSecond

	s.mu.Lock()
	limited := ks.Balance != nil
	var balance int64
	if limited {
		balance = *ks.Balance
	}
	s.mu.Unlock()
	if limited && balance < req.cost {
		return nil, &requestError{status: http.StatusForbidden, apiError: apiError{
			Type: "insufficient_quota",
			Message: fmt.Sprintf("insufficient balance: this task costs %d (%d s at %d per second) but the key's balance is %d; top up the balance in the console or request fewer seconds",
				req.cost, billed, s.cfg.PricePerSecond, balance),
		}}
	}
	return req, nil
}

// decodeObject parses body as exactly one JSON object.
func decodeObject(body []byte) (map[string]json.RawMessage, *requestError) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, invalid("", "the request body is empty; send a JSON object with at least model and prompt")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, invalid("", "the request body is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, invalid("", "the request body is not valid JSON: unexpected data after the top-level value")
	}
	if raw[0] != '{' {
		return nil, invalid("", "the request body must be a JSON object, not %s", jsonKind(raw))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, invalid("", "the request body is not valid JSON: %v", err)
	}
	return fields, nil
}

// jsonKind names the JSON type of a valid value for error messages.
func jsonKind(raw json.RawMessage) string {
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// asString decodes raw only if it is a JSON string; null and numbers are
// mistakes worth reporting, not values to coerce.
func asString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

func requiredString(fields map[string]json.RawMessage, name string) (string, *requestError) {
	raw, ok := fields[name]
	if !ok {
		return "", invalid(name, "missing required parameter %q", name)
	}
	v, ok := asString(raw)
	if !ok {
		return "", invalid(name, "%s must be a string, not %s", name, jsonKind(raw))
	}
	if strings.TrimSpace(v) == "" {
		return "", invalid(name, "%s must not be empty", name)
	}
	return v, nil
}

// parseSeconds returns seconds as sent (e.g. "05") and its value.
func parseSeconds(raw json.RawMessage) (string, int64, *requestError) {
	v, ok := asString(raw)
	if !ok {
		return "", 0, invalid("seconds", "seconds must be a string of digits such as \"5\", not %s", jsonKind(raw))
	}
	if !digits.MatchString(v) {
		return "", 0, invalid("seconds", "seconds must be a string of digits such as \"5\", got %q", v)
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return "", 0, invalid("seconds", "seconds %q is too large", v)
	}
	if n == 0 {
		return "", 0, invalid("seconds", "seconds must be at least \"1\"")
	}
	return v, n, nil
}

// parseMetadata checks the vendor parameters this mock understands and lets
// others through untouched, as the echo in the task object requires.
func parseMetadata(raw json.RawMessage) (resolution, callbackURL string, _ *requestError) {
	raw = bytes.TrimSpace(raw)
	if raw[0] != '{' {
		return "", "", invalid("metadata", "metadata must be a JSON object, not %s", jsonKind(raw))
	}
	var md map[string]json.RawMessage
	if err := json.Unmarshal(raw, &md); err != nil {
		return "", "", invalid("metadata", "metadata is not valid JSON: %v", err)
	}
	if v, ok := md["callback_url"]; ok {
		s, ok := asString(v)
		u, err := url.Parse(s)
		if !ok || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", "", invalid("metadata.callback_url", "metadata.callback_url must be an absolute http or https URL string")
		}
		callbackURL = s
	}
	if v, ok := md["resolution"]; ok {
		s, ok := asString(v)
		if !ok || !slices.Contains(allResolutions, s) {
			return "", "", invalid("metadata.resolution", "metadata.resolution must be one of %s, got %s",
				strings.Join(allResolutions, ", "), v)
		}
		resolution = s
	}
	if v, ok := md["ratio"]; ok {
		if s, ok := asString(v); !ok || !ratioRE.MatchString(s) {
			return "", "", invalid("metadata.ratio", "metadata.ratio must be a string of the form \"16:9\", got %s", v)
		}
	}
	if v, ok := md["generate_audio"]; ok {
		if s := string(bytes.TrimSpace(v)); s != "true" && s != "false" {
			return "", "", invalid("metadata.generate_audio", "metadata.generate_audio must be true or false, got %s", v)
		}
	}
	if v, ok := md["content"]; ok {
		if err := checkContent(v); err != nil {
			return "", "", err
		}
	}
	return resolution, callbackURL, nil
}

// checkContent enforces the reference media rules: each entry is exactly
// {"type": T, T: {"url": ...}, "role": R} with R matching T, within limits.
func checkContent(raw json.RawMessage) *requestError {
	const param = "metadata.content"
	raw = bytes.TrimSpace(raw)
	if raw[0] != '[' {
		return invalid(param, "metadata.content must be an array of reference media entries, not %s", jsonKind(raw))
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return invalid(param, "metadata.content is not valid JSON: %v", err)
	}
	counts := map[string]int{}
	for i, e := range entries {
		e = bytes.TrimSpace(e)
		if e[0] != '{' {
			return invalid(param, "metadata.content[%d] must be an object, not %s", i, jsonKind(e))
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e, &m); err != nil {
			return invalid(param, "metadata.content[%d] is not valid JSON: %v", i, err)
		}
		typ, _ := asString(m["type"])
		rule, ok := contentRules[typ]
		if !ok {
			return invalid(param, "metadata.content[%d].type must be one of %s, got %s",
				i, strings.Join(contentTypes, ", "), orMissing(m["type"]))
		}
		var payload map[string]json.RawMessage
		if p := bytes.TrimSpace(m[typ]); len(p) == 0 || p[0] != '{' || json.Unmarshal(p, &payload) != nil {
			return invalid(param, "metadata.content[%d] has type %s, so it needs a member %q holding an object {\"url\": \"...\"}", i, typ, typ)
		}
		if u, ok := asString(payload["url"]); !ok || strings.TrimSpace(u) == "" {
			return invalid(param, "metadata.content[%d].%s.url must be a non-empty string", i, typ)
		}
		if role, _ := asString(m["role"]); role != rule.role {
			return invalid(param, "metadata.content[%d].role must be %q for type %s, got %s", i, rule.role, typ, orMissing(m["role"]))
		}
		for k := range m {
			if k != "type" && k != "role" && k != typ {
				return invalid(param, "metadata.content[%d] has unexpected member %q; an entry has exactly type, %s and role", i, k, typ)
			}
		}
		counts[typ]++
	}
	for _, typ := range contentTypes {
		if n, limit := counts[typ], contentRules[typ].limit; n > limit {
			return invalid(param, "metadata.content has %d %s entries; at most %d are allowed per request", n, typ, limit)
		}
	}
	return nil
}

func orMissing(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	return string(raw)
}

// promptDuration applies a [mock:duration=...] marker.
func (s *Server) promptDuration(prompt string) (time.Duration, *requestError) {
	m := durationMarker.FindStringSubmatch(prompt)
	if m == nil {
		return time.Duration(s.cfg.TaskDuration), nil
	}
	d, err := time.ParseDuration(m[1])
	if err != nil || d < 0 {
		return 0, invalid("prompt", "the prompt marker [mock:duration=%s] needs a non-negative Go duration such as 30s or 500ms", m[1])
	}
	return d, nil
}

// modelIDs lists the models ks may use, in configuration order.
func (s *Server) modelIDs(ks *keyState) []string {
	var ids []string
	for _, m := range s.cfg.Models {
		if ks.allows(m.ID) {
			ids = append(ids, m.ID)
		}
	}
	return ids
}
