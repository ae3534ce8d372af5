package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestAPIErrorDecoding(t *testing.T) {
	t.Parallel()
	const nginx502 = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.25.3</center>
</body>
</html>`
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		wantType    string
		wantCode    string
		wantParam   string
		// wantMessage must be contained in APIError.Message; wantAbsent must not be.
		wantMessage []string
		wantAbsent  []string
	}{
		{
			name:     "spec error object",
			status:   http.StatusBadRequest,
			body:     `{"error":{"message":"prompt is required","type":"invalid_request_error","param":"prompt"}}`,
			wantType: "invalid_request_error", wantParam: "prompt",
			wantMessage: []string{"prompt is required"},
		},
		{
			name:        "authentication error",
			status:      http.StatusUnauthorized,
			body:        `{"error":{"message":"Invalid API key","type":"authentication_error"}}`,
			wantType:    "authentication_error",
			wantMessage: []string{"Invalid API key"},
		},
		{
			name:        "code used when type is absent",
			status:      http.StatusForbidden,
			body:        `{"error":{"message":"not allowed","code":"model_not_allowed"}}`,
			wantType:    "model_not_allowed",
			wantCode:    "model_not_allowed",
			wantMessage: []string{"not allowed"},
		},
		{
			name:        "numeric code kept, not taken for a type",
			status:      http.StatusForbidden,
			body:        `{"error":{"message":"not allowed","code":403}}`,
			wantCode:    "403",
			wantMessage: []string{"not allowed"},
		},
		{
			name:        "odd members do not hide the message",
			status:      http.StatusBadRequest,
			body:        `{"error":{"message":"bad size","type":"invalid_request_error","code":null,"param":["size"]}}`,
			wantType:    "invalid_request_error",
			wantParam:   `["size"]`,
			wantMessage: []string{"bad size"},
		},
		{
			name:        "string error",
			status:      http.StatusNotFound,
			body:        `{"error":"task not found"}`,
			wantMessage: []string{"task not found"},
		},
		{
			name:        "top-level message",
			status:      http.StatusTooManyRequests,
			body:        `{"message":"slow down","type":"rate_limit"}`,
			wantType:    "rate_limit",
			wantMessage: []string{"slow down"},
		},
		{
			name:        "html 502 page",
			status:      http.StatusBadGateway,
			contentType: "text/html; charset=utf-8",
			body:        nginx502,
			wantMessage: []string{"Bad Gateway", "502 Bad Gateway", "nginx/1.25.3", "text/html"},
			wantAbsent:  []string{"<", ">", "\n", "charset"},
		},
		{
			name:        "plain text",
			status:      http.StatusServiceUnavailable,
			contentType: "text/plain",
			body:        "upstream connect error",
			wantMessage: []string{"Service Unavailable", "upstream connect error"},
		},
		{
			name:        "empty body",
			status:      http.StatusInternalServerError,
			body:        "",
			wantMessage: []string{"Internal Server Error", "empty response body"},
		},
		{
			name:        "whitespace body",
			status:      http.StatusNotFound,
			body:        "  \n ",
			wantMessage: []string{"Not Found", "empty response body"},
		},
		{
			name:        "json without a message",
			status:      http.StatusBadRequest,
			body:        `{"detail":"x"}`,
			wantMessage: []string{"Bad Request", `detail`},
		},
		{
			name:        "long page is truncated",
			status:      http.StatusBadGateway,
			contentType: "text/html",
			body:        "<p>" + strings.Repeat("word ", 2000) + "</p>",
			wantMessage: []string{"Bad Gateway", "more bytes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Only 4xx reach the caller after one attempt; 5xx are retried first.
			rep := reply{status: tt.status, body: tt.body}
			if tt.contentType != "" {
				rep.header = map[string]string{"Content-Type": tt.contentType}
			}
			srv, _ := newScriptServer(t, rep)
			c := newTestClient(t, srv.URL, WithMaxRetries(0))
			_, err := c.GetVideo(t.Context(), "t")
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v (%T), want *APIError", err, err)
			}
			if apiErr.StatusCode != tt.status {
				t.Errorf("StatusCode = %d, want %d", apiErr.StatusCode, tt.status)
			}
			if apiErr.Type != tt.wantType {
				t.Errorf("Type = %q, want %q", apiErr.Type, tt.wantType)
			}
			if apiErr.Param != tt.wantParam {
				t.Errorf("Param = %q, want %q", apiErr.Param, tt.wantParam)
			}
			if apiErr.Code != tt.wantCode {
				t.Errorf("Code = %q, want %q", apiErr.Code, tt.wantCode)
			}
			if apiErr.Method != http.MethodGet || apiErr.Endpoint != "/v1/video/generations/{task_id}" {
				t.Errorf("Method/Endpoint = %q %q", apiErr.Method, apiErr.Endpoint)
			}
			if apiErr.Message == "" {
				t.Fatal("Message is empty")
			}
			for _, want := range tt.wantMessage {
				if !strings.Contains(apiErr.Message, want) {
					t.Errorf("Message = %q, want it to contain %q", apiErr.Message, want)
				}
			}
			for _, absent := range tt.wantAbsent {
				if strings.Contains(apiErr.Message, absent) {
					t.Errorf("Message = %q, want it free of %q", apiErr.Message, absent)
				}
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("HTTP %d", tt.status)) {
				t.Errorf("Error() = %q, want it to name the status", err)
			}
		})
	}
}

func TestAPIErrorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *APIError
		want string
	}{
		{
			name: "full",
			err: &APIError{StatusCode: 403, Type: "permission_error", Message: "no access", Method: "POST",
				Endpoint: "/v1/video/generations", Attempts: 1},
			want: "POST /v1/video/generations: HTTP 403 (permission_error): no access",
		},
		{
			name: "retried",
			err: &APIError{StatusCode: 503, Message: "busy", Method: "GET", Endpoint: "/v1/models",
				Attempts: 4, Elapsed: 1234 * time.Millisecond},
			want: "GET /v1/models: HTTP 503: busy [after 4 attempts over 1.2s]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.err.Error(); got != tt.want {
				t.Fatalf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestErrorPredicates(t *testing.T) {
	t.Parallel()
	type preds struct {
		notFound, unauthorized, keyRefused, forbidden, rateLimited, server, badRequest, transient, unknownModel bool
	}
	tests := []struct {
		name string
		err  error
		want preds
	}{
		{name: "400", err: &APIError{StatusCode: 400}, want: preds{badRequest: true}},
		{name: "401", err: &APIError{StatusCode: 401}, want: preds{unauthorized: true, keyRefused: true}},
		{name: "download 401 with the key", err: fmt.Errorf("downloading: %w", &DownloadError{StatusCode: 401, WithKey: true}),
			want: preds{unauthorized: true, keyRefused: true}},
		{name: "download 401 without the key", err: &DownloadError{StatusCode: 401}, want: preds{unauthorized: true}},
		{name: "download 503", err: &DownloadError{StatusCode: 503, WithKey: true}, want: preds{}},
		{name: "403", err: &APIError{StatusCode: 403}, want: preds{forbidden: true}},
		{name: "404", err: &APIError{StatusCode: 404}, want: preds{notFound: true}},
		{name: "409", err: &APIError{StatusCode: 409}, want: preds{}},
		{name: "429", err: &APIError{StatusCode: 429}, want: preds{rateLimited: true, transient: true}},
		{name: "500", err: &APIError{StatusCode: 500}, want: preds{server: true, transient: true}},
		{name: "501", err: &APIError{StatusCode: 501}, want: preds{server: true}},
		{name: "502", err: &APIError{StatusCode: 502}, want: preds{server: true, transient: true}},
		{name: "503", err: &APIError{StatusCode: 503}, want: preds{server: true, transient: true}},
		{name: "wrapped 404", err: fmt.Errorf("reading: %w", &APIError{StatusCode: 404}), want: preds{notFound: true}},
		{name: "wrapped twice 503", err: fmt.Errorf("a: %w", fmt.Errorf("b: %w", &APIError{StatusCode: 503})), want: preds{server: true, transient: true}},
		{name: "400 task_not_exist", err: &APIError{StatusCode: 400, Code: "task_not_exist"}, want: preds{notFound: true}},
		{name: "404 task_not_exist", err: &APIError{StatusCode: 404, Code: "task_not_exist"}, want: preds{notFound: true}},
		{name: "503 model_not_found", err: &APIError{StatusCode: 503, Code: "model_not_found"}, want: preds{unknownModel: true}},
		{name: "wrapped model_not_found", err: &AmbiguousSubmitError{Err: &APIError{StatusCode: 503, Code: "model_not_found"}},
			want: preds{unknownModel: true}},
		{name: "transport", err: &TransportError{Method: "GET", Err: errors.New("connection reset")}, want: preds{transient: true}},
		{name: "plain", err: errors.New("boom"), want: preds{}},
		{name: "canceled", err: context.Canceled, want: preds{}},
		{name: "nil", err: nil, want: preds{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := preds{
				notFound: IsNotFound(tt.err), unauthorized: IsUnauthorized(tt.err), keyRefused: IsKeyRefused(tt.err), forbidden: IsForbidden(tt.err),
				rateLimited: IsRateLimited(tt.err), server: IsServerError(tt.err), badRequest: IsBadRequest(tt.err),
				transient: IsTransient(tt.err), unknownModel: IsUnknownModel(tt.err),
			}
			if got != tt.want {
				t.Fatalf("predicates = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPredicatesOnLiveResponses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		pred   func(error) bool
	}{
		{http.StatusBadRequest, IsBadRequest},
		{http.StatusUnauthorized, IsUnauthorized},
		{http.StatusForbidden, IsForbidden},
		{http.StatusNotFound, IsNotFound},
		{http.StatusTooManyRequests, IsRateLimited},
		{http.StatusServiceUnavailable, IsServerError},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			srv, _ := newScriptServer(t, errReply(tt.status, "nope"))
			c := newTestClient(t, srv.URL, WithMaxRetries(1))
			_, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"})
			if !tt.pred(err) {
				t.Fatalf("predicate false for %v", err)
			}
		})
	}
}

func TestCauseOfForbidden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want ForbiddenCause
	}{
		{name: "balance", err: &APIError{StatusCode: 403, Message: "Insufficient balance"}, want: ForbiddenBalance},
		{name: "quota type", err: &APIError{StatusCode: 403, Type: "insufficient_quota", Message: "no"}, want: ForbiddenBalance},
		{name: "credits", err: &APIError{StatusCode: 403, Message: "out of credits"}, want: ForbiddenBalance},
		{name: "model", err: &APIError{StatusCode: 403, Message: "This key may not use model veo-3"}, want: ForbiddenModel},
		{name: "model type", err: &APIError{StatusCode: 403, Type: "model_not_allowed"}, want: ForbiddenModel},
		{name: "unknown", err: &APIError{StatusCode: 403, Message: "Forbidden"}, want: ForbiddenUnknown},
		{name: "not a 403", err: &APIError{StatusCode: 404, Message: "model not found"}, want: ForbiddenUnknown},
		{name: "wrapped balance", err: fmt.Errorf("submit: %w", &APIError{StatusCode: 403, Message: "billing hard limit"}), want: ForbiddenBalance},
		{name: "not an API error", err: errors.New("balance"), want: ForbiddenUnknown},
		{name: "nil", err: nil, want: ForbiddenUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CauseOfForbidden(tt.err); got != tt.want {
				t.Fatalf("CauseOfForbidden = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTransportErrorString(t *testing.T) {
	t.Parallel()
	e := &TransportError{Method: "GET", Endpoint: "/v1/models", Attempts: 3, Elapsed: 2 * time.Second, Err: errors.New("connection refused")}
	if got, want := e.Error(), "GET /v1/models: connection refused [after 3 attempts over 2s]"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if e.MaybeSent() || IsAmbiguousSubmit(e) {
		t.Fatal("a refused GET must not be an ambiguous submit")
	}
}

// new-api's error answers (testdata/newapi), each read once: none is retried.
func TestNewAPIErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture   string
		status    int
		submit    bool
		pred      func(error) bool
		wantType  string
		wantCode  string
		wantParam string
		wantMsg   []string
	}{
		{fixture: "error_task_not_exist.json", status: http.StatusBadRequest, pred: IsNotFound,
			wantType: "", wantCode: "task_not_exist", wantMsg: []string{"task_not_exist"}},
		{fixture: "error_model_not_found.json", status: http.StatusServiceUnavailable, submit: true, pred: IsUnknownModel,
			wantType: "new_api_error", wantCode: "model_not_found", wantMsg: []string{"doubao-seedance-9-9", "request id"}},
		{fixture: "error_model_not_found.json", status: http.StatusServiceUnavailable, pred: IsUnknownModel,
			wantType: "new_api_error", wantCode: "model_not_found"},
		{fixture: "error_invalid_request.json", status: http.StatusBadRequest, submit: true, pred: IsBadRequest,
			wantCode: "invalid_request", wantMsg: []string{"prompt is required"}},
		{fixture: "error_fail_to_fetch_task.json", status: http.StatusBadRequest, submit: true, pred: IsBadRequest,
			wantCode: "fail_to_fetch_task", wantParam: "content.text",
			wantMsg: []string{"the upstream service refused the task: The parameter `content.text`", "prompt is too long",
				"(BadRequest, InvalidParameter)"}},
		{fixture: "error_unauthorized.json", status: http.StatusUnauthorized, submit: true, pred: IsUnauthorized,
			wantType: "new_api_error", wantMsg: []string{"无效的令牌"}},
	}
	for _, tt := range tests {
		name := strings.TrimSuffix(tt.fixture, ".json")
		if tt.submit {
			name += " on submission"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, reply{status: tt.status, body: newAPIFixture(t, tt.fixture),
				header: map[string]string{"Content-Type": "application/json; charset=utf-8"}})
			c := newTestClient(t, srv.URL)
			var err error
			if tt.submit {
				_, err = c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"})
			} else {
				_, err = c.GetVideo(t.Context(), newAPITaskID)
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v (%T), want *APIError", err, err)
			}
			if !tt.pred(err) {
				t.Errorf("predicate false for %v", err)
			}
			if IsAmbiguousSubmit(err) || IsTransient(err) {
				t.Errorf("error %v is ambiguous or transient", err)
			}
			if apiErr.Type != tt.wantType || apiErr.Code != tt.wantCode || apiErr.Param != tt.wantParam {
				t.Errorf("Type, Code, Param = %q, %q, %q; want %q, %q, %q", apiErr.Type, apiErr.Code, apiErr.Param,
					tt.wantType, tt.wantCode, tt.wantParam)
			}
			for _, want := range tt.wantMsg {
				if !strings.Contains(apiErr.Message, want) {
					t.Errorf("Message = %q, want it to contain %q", apiErr.Message, want)
				}
			}
			if s.hits() != 1 {
				t.Errorf("hits = %d, want 1 (no retry)", s.hits())
			}
		})
	}
}
