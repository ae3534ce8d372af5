package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// APIError is an error status from the service, decoded from its
// {"error":{"message","type"}} body, a gateway's {"code","message","data"}
// body, or described from whatever else it sent.
type APIError struct {
	StatusCode int
	Type       string
	Message    string
	// Code is the machine-readable code the body gave: error.code, a string or
	// a number's digits, or a gateway envelope's code when a string
	// ("task_not_exist").
	Code string
	// Param names the request parameter the service blamed, when it says (OpenAI-style).
	Param string
	// Method and Endpoint say which call failed, e.g. "GET" and "/video/generations/{task_id}".
	Method   string
	Endpoint string
	// Attempts and Elapsed count every try, retries included.
	Attempts int
	Elapsed  time.Duration
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: HTTP %d", e.Method, e.Endpoint, e.StatusCode)
	switch {
	case e.Type != "" && e.Code != "" && e.Code != e.Type:
		fmt.Fprintf(&b, " (%s, %s)", e.Type, e.Code)
	case e.Type != "":
		fmt.Fprintf(&b, " (%s)", e.Type)
	case e.Code != "":
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " [after %d attempts over %s]", e.Attempts, e.Elapsed.Round(100*time.Millisecond))
	}
	return b.String()
}

// TransportError is a failure to get any HTTP response: a refused connection, a
// reset, or a timeout.
type TransportError struct {
	Method   string
	Endpoint string
	Attempts int
	Elapsed  time.Duration
	Err      error
	sent     bool
}

func (e *TransportError) Error() string {
	msg := fmt.Sprintf("%s %s: %v", e.Method, e.Endpoint, e.Err)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" [after %d attempts over %s]", e.Attempts, e.Elapsed.Round(100*time.Millisecond))
	}
	return msg
}

func (e *TransportError) Unwrap() error { return e.Err }

// MaybeSent reports whether the request may have reached the service before it
// failed. For a submission it means a task may exist although no ID came back.
func (e *TransportError) MaybeSent() bool { return e.sent }

type errorBody struct {
	Error json.RawMessage `json:"error"`
	// Some OpenAI-compatible gateways put the message at the top level, and
	// new-api's task relay answers {"code","message","data"}.
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// Codes that gateways give in error bodies and that mean more than their status.
const (
	// codeTaskNotExist is new-api's 400 for a task it does not know: what the
	// service says with 404.
	codeTaskNotExist = "task_not_exist"
	// codeModelNotFound is new-api's 503 for a model no channel serves: an
	// unknown model, which no retry changes.
	codeModelNotFound = "model_not_found"
	// codeUpstreamRefused is new-api's 400 relaying an upstream's refusal of a
	// submission, with the upstream's JSON as its message.
	codeUpstreamRefused = "fail_to_fetch_task"
	// codeInsufficientQuota is OpenAI's 429 for an account whose quota or
	// balance is used up: a refusal, not a rate limit.
	codeInsufficientQuota = "insufficient_quota"
)

// decodeAPIError reads the service's {"error":{"message","type"}} body
// (CONTRIBUTING.md, "Error bodies"), tolerating a plain-string "error", a
// top-level message (a gateway's {"code","message","data"} among them), or a
// body that is not JSON at all (a gateway's HTML page).
func decodeAPIError(status int, contentType string, data []byte) *APIError {
	e := &APIError{StatusCode: status}
	var body errorBody
	if err := json.Unmarshal(data, &body); err == nil {
		var str string
		obj, isObject := readServiceError(body.Error)
		switch {
		case isObject:
			e.Message, e.Type, e.Code, e.Param = string(obj.Message), string(obj.Type), string(obj.Code), string(obj.Param)
			if e.Type == "" && strings.Trim(e.Code, "0123456789") != "" {
				// A word names a kind of error as a type does; a number does not.
				e.Type = e.Code
			}
		case len(body.Error) > 0 && json.Unmarshal(body.Error, &str) == nil:
			e.Message = str
		default:
			e.Message, e.Type = body.Message, body.Type
			_ = json.Unmarshal(body.Code, &e.Code) // a numeric code says nothing more than the status
			if e.Code == codeUpstreamRefused {
				e.Message, e.Param = upstreamRefusal(e.Message)
			}
		}
	}
	if e.Message == "" {
		e.Message = describeNonJSON(status, contentType, data)
	}
	return e
}

// upstreamRefusal reads the upstream's JSON that new-api quotes as the message
// of a refused submission, so that the user reads the upstream's words (and
// its blamed parameter) rather than escaped JSON. A message that is not such
// JSON is kept as it is.
func upstreamRefusal(msg string) (message, param string) {
	var up struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal([]byte(msg), &up) != nil {
		return msg, ""
	}
	obj, _ := readServiceError(up.Error)
	switch {
	case obj.Message != "":
		return "the upstream service refused the task: " + obj.text(), string(obj.Param)
	case up.Message != "":
		return "the upstream service refused the task: " + up.Message, ""
	}
	return msg, ""
}

var (
	tagPattern   = regexp.MustCompile(`<[^>]*>`)
	spacePattern = regexp.MustCompile(`\s+`)
)

func describeNonJSON(status int, contentType string, data []byte) string {
	text := strings.TrimSpace(spacePattern.ReplaceAllString(tagPattern.ReplaceAllString(string(data), " "), " "))
	if text == "" {
		return fmt.Sprintf("%s (empty response body)", http.StatusText(status))
	}
	kind := "a non-JSON body"
	if contentType != "" {
		kind = fmt.Sprintf("a non-JSON %s body", strings.SplitN(contentType, ";", 2)[0])
	}
	return fmt.Sprintf("%s (the service or a gateway in front of it sent %s: %q)", http.StatusText(status), kind, truncate(text, 200))
}

func snippet(data []byte) string {
	return fmt.Sprintf("%q", truncate(string(data), 200))
}

func asAPIError(err error) (*APIError, bool) {
	var apiErr *APIError
	ok := errors.As(err, &apiErr)
	return apiErr, ok
}

func hasStatus(err error, status int) bool {
	apiErr, ok := asAPIError(err)
	return ok && apiErr.StatusCode == status
}

func hasCode(err error, code string) bool {
	apiErr, ok := asAPIError(err)
	return ok && apiErr.Code == code
}

// IsNotFound reports a 404 (an unknown task, model or path), or a gateway's
// 400 task_not_exist, which says of a task what the service says with 404.
// Either may come from an address that is not the service at all, so the same
// proof of address applies before anything leaves state.
func IsNotFound(err error) bool {
	return hasStatus(err, http.StatusNotFound) || (hasStatus(err, http.StatusBadRequest) && hasCode(err, codeTaskNotExist))
}

// IsBadRequest reports a 400: a missing parameter or a malformed body (not a
// gateway's task_not_exist, which IsNotFound reports).
func IsBadRequest(err error) bool {
	return hasStatus(err, http.StatusBadRequest) && !hasCode(err, codeTaskNotExist) && !hasCode(err, googleKeyInvalid)
}

// IsUnknownModel reports a gateway's model_not_found (new-api answers it with
// 503): no model, or no channel serving it, by this ID. It is never retried.
// A plain 404 on a submission may mean the same; telling it from a wrong base
// URL is the caller's job (see IsNotFound).
func IsUnknownModel(err error) bool { return hasCode(err, codeModelNotFound) }

// IsUnauthorized reports a 401: from the API, the key is invalid, missing or
// revoked; from a clip's host, the download lacked a key or its key was refused
// (IsKeyRefused tells which).
func IsUnauthorized(err error) bool {
	var dErr *DownloadError
	return hasStatus(err, http.StatusUnauthorized) || hasCode(err, googleKeyInvalid) ||
		(errors.As(err, &dErr) && dErr.StatusCode == http.StatusUnauthorized)
}

// IsKeyRefused reports a 401 to a request that carried the API key: any API
// call, or a download from the API's own origin (see DownloadError.WithKey). A
// 401 from another host is a clip URL that wants a key the client kept back.
func IsKeyRefused(err error) bool {
	var dErr *DownloadError
	if errors.As(err, &dErr) {
		return dErr.StatusCode == http.StatusUnauthorized && dErr.WithKey
	}
	// The Gemini API refuses a key with 400 API_KEY_INVALID.
	return hasStatus(err, http.StatusUnauthorized) || hasCode(err, googleKeyInvalid)
}

// IsForbidden reports a 403: too little balance, or a model the key may not use.
func IsForbidden(err error) bool { return hasStatus(err, http.StatusForbidden) }

// IsRateLimited reports a 429 that outlasted every retry.
func IsRateLimited(err error) bool { return hasStatus(err, http.StatusTooManyRequests) }

// IsServerError reports a 5xx that outlasted every retry, other than an unknown
// model (IsUnknownModel).
func IsServerError(err error) bool {
	apiErr, ok := asAPIError(err)
	return ok && apiErr.StatusCode >= 500 && !IsUnknownModel(err)
}

// ForbiddenCause tells a balance problem from a model permission problem, when the
// service's type or message says which.
type ForbiddenCause int

const (
	ForbiddenUnknown ForbiddenCause = iota
	ForbiddenBalance
	ForbiddenModel
)

// CauseOfForbidden classifies a 403 from its error type and message; OpenAI's
// 429 insufficient_quota is a balance too low as well.
func CauseOfForbidden(err error) ForbiddenCause {
	apiErr, ok := asAPIError(err)
	if ok && IsQuotaExhausted(err) {
		return ForbiddenBalance
	}
	if !ok || apiErr.StatusCode != http.StatusForbidden {
		return ForbiddenUnknown
	}
	text := strings.ToLower(apiErr.Type + " " + apiErr.Message)
	switch {
	case strings.Contains(text, "balance") || strings.Contains(text, "quota") || strings.Contains(text, "credit") ||
		strings.Contains(text, "billing") || strings.Contains(text, "funds"):
		return ForbiddenBalance
	case strings.Contains(text, "model"):
		return ForbiddenModel
	}
	return ForbiddenUnknown
}

// IsQuotaExhausted reports OpenAI's 429 insufficient_quota: the account's quota
// or balance is used up. It is not retried, and it is no rate limit.
func IsQuotaExhausted(err error) bool {
	apiErr, ok := asAPIError(err)
	return ok && apiErr.StatusCode == http.StatusTooManyRequests &&
		(apiErr.Code == codeInsufficientQuota || apiErr.Type == codeInsufficientQuota)
}

// IsTransient reports an error that a later attempt may not repeat: rate limits,
// server errors and transport failures.
func IsTransient(err error) bool {
	if apiErr, ok := asAPIError(err); ok {
		return retryableStatus(apiErr.StatusCode) && apiErr.Code != codeModelNotFound && !IsQuotaExhausted(err)
	}
	var tErr *TransportError
	return errors.As(err, &tErr) && !isPermanentTransportError(tErr.Err)
}

// AmbiguousSubmitError is a submission that ended without a task ID although the
// service may have created (and will bill) a task: a gateway failed after
// forwarding it (Doubts says which attempts), the run was interrupted while it was
// in flight, or the service's success answer held no readable task.
type AmbiguousSubmitError struct {
	Doubts []string
	Err    error
}

func (e *AmbiguousSubmitError) Error() string {
	if len(e.Doubts) == 0 {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v (%s, after the service may have accepted the task)", e.Err, strings.Join(e.Doubts, "; "))
}

func (e *AmbiguousSubmitError) Unwrap() error { return e.Err }

// IsAmbiguousSubmit reports a submission that failed after its body may have reached
// the service: a task may exist and be billed although no task ID came back.
func IsAmbiguousSubmit(err error) bool {
	var ambiguous *AmbiguousSubmitError
	if errors.As(err, &ambiguous) {
		return true
	}
	var tErr *TransportError
	return errors.As(err, &tErr) && tErr.Method == http.MethodPost && tErr.MaybeSent()
}
