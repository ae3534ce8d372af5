package client

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestGetRetriedOnTransientFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		failure reply
	}{
		{name: "429", failure: errReply(http.StatusTooManyRequests, "rate limited")},
		{name: "500", failure: errReply(http.StatusInternalServerError, "oops")},
		{name: "502", failure: errReply(http.StatusBadGateway, "bad gateway")},
		{name: "503", failure: errReply(http.StatusServiceUnavailable, "busy")},
		{name: "504", failure: errReply(http.StatusGatewayTimeout, "slow")},
		{name: "connection dropped", failure: reply{hijack: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, tt.failure, tt.failure, okReply(runningTask))
			c := newTestClient(t, srv.URL, WithMaxRetries(3))
			v, err := c.GetVideo(t.Context(), "task-1")
			if err != nil {
				t.Fatalf("GetVideo: %v", err)
			}
			if v.Status != StatusRunning {
				t.Errorf("Status = %q, want running", v.Status)
			}
			if s.hits() != 3 {
				t.Fatalf("server hits = %d, want 3 (two failures, one success)", s.hits())
			}
		})
	}
}

func TestGetNotRetriedOnClientErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		pred   func(error) bool
	}{
		{http.StatusBadRequest, IsBadRequest},
		{http.StatusUnauthorized, IsUnauthorized},
		{http.StatusForbidden, IsForbidden},
		{http.StatusNotFound, IsNotFound},
		{http.StatusNotImplemented, IsServerError},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, errReply(tt.status, "no"), okReply(runningTask))
			c := newTestClient(t, srv.URL, WithMaxRetries(3))
			_, err := c.GetVideo(t.Context(), "task-1")
			if !tt.pred(err) {
				t.Fatalf("error = %v, want status %d", err, tt.status)
			}
			if IsTransient(err) {
				t.Errorf("IsTransient(%v) = true", err)
			}
			if s.hits() != 1 {
				t.Fatalf("server hits = %d, want 1", s.hits())
			}
			var apiErr *APIError
			if errors.As(err, &apiErr) && apiErr.Attempts != 1 {
				t.Errorf("Attempts = %d, want 1", apiErr.Attempts)
			}
		})
	}
}

func TestPostRetriedOnErrorStatuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status   int
		wantHits int
		wantErr  func(error) bool
	}{
		{status: http.StatusTooManyRequests, wantHits: 3},
		{status: http.StatusInternalServerError, wantHits: 3},
		{status: http.StatusServiceUnavailable, wantHits: 3},
		{status: http.StatusBadRequest, wantHits: 1, wantErr: IsBadRequest},
		{status: http.StatusForbidden, wantHits: 1, wantErr: IsForbidden},
		{status: http.StatusNotFound, wantHits: 1, wantErr: IsNotFound},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			fail := errReply(tt.status, "no")
			srv, s := newScriptServer(t, fail, fail, okReply(`{"task_id":"t9","status":"submitted"}`))
			c := newTestClient(t, srv.URL, WithMaxRetries(3))
			v, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"})
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("error = %v", err)
				}
			} else {
				if err != nil {
					t.Fatalf("SubmitVideo: %v", err)
				}
				if v.TaskID != "t9" {
					t.Errorf("TaskID = %q", v.TaskID)
				}
			}
			if s.hits() != tt.wantHits {
				t.Fatalf("server hits = %d, want %d", s.hits(), tt.wantHits)
			}
			// Every attempt carries the same body.
			for i := 1; i < s.hits(); i++ {
				if string(s.request(i).Body) != string(s.request(0).Body) {
					t.Errorf("attempt %d body = %s, want %s", i+1, s.request(i).Body, s.request(0).Body)
				}
			}
		})
	}
}

// A gateway that fails after forwarding a submission may hide a task the service
// created: such answers are retried at most submitGatewayRetries times, and every
// one of them is reported, on success as on failure.
func TestPostAfterGatewayFailure(t *testing.T) {
	t.Parallel()
	gatewayPage := reply{status: http.StatusGatewayTimeout, body: "<html><body>504 Gateway Time-out</body></html>",
		header: map[string]string{"Content-Type": "text/html"}}
	accepted := okReply(`{"task_id":"t9","status":"submitted"}`)
	tests := []struct {
		name           string
		replies        []reply
		gatewayRetries int
		wantHits       int
		wantDoubts     int
		wantSuccess    bool
	}{
		{name: "504 every time", replies: []reply{gatewayPage, gatewayPage, gatewayPage, gatewayPage}, gatewayRetries: 1,
			wantHits: 2, wantDoubts: 2},
		{name: "504 once, then success", replies: []reply{gatewayPage, accepted}, gatewayRetries: 1,
			wantHits: 2, wantDoubts: 1, wantSuccess: true},
		{name: "502 with the service's JSON is still a gateway status", replies: []reply{errReply(http.StatusBadGateway, "upstream"),
			errReply(http.StatusBadGateway, "upstream"), accepted}, gatewayRetries: 1, wantHits: 2, wantDoubts: 2},
		{name: "500 with an HTML page", replies: []reply{{status: http.StatusInternalServerError, body: "<h1>oops</h1>"}, accepted},
			gatewayRetries: 1, wantHits: 2, wantDoubts: 1, wantSuccess: true},
		{name: "strict: never repeated", replies: []reply{gatewayPage, accepted}, gatewayRetries: 0, wantHits: 1, wantDoubts: 1},
		{name: "the service's own 503 first", replies: []reply{errReply(http.StatusServiceUnavailable, "busy"), gatewayPage,
			gatewayPage, accepted}, gatewayRetries: 1, wantHits: 3, wantDoubts: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, tt.replies...)
			c := newTestClient(t, srv.URL, WithMaxRetries(5), WithSubmitGatewayRetries(tt.gatewayRetries))
			v, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"})
			if s.hits() != tt.wantHits {
				t.Fatalf("server hits = %d, want %d", s.hits(), tt.wantHits)
			}
			var doubts []string
			if tt.wantSuccess {
				if err != nil {
					t.Fatalf("SubmitVideo: %v", err)
				}
				doubts = v.UncertainAttempts
			} else {
				var ambiguous *AmbiguousSubmitError
				if !errors.As(err, &ambiguous) || !IsAmbiguousSubmit(err) {
					t.Fatalf("error = %v (%T), want an *AmbiguousSubmitError", err, err)
				}
				if !IsServerError(err) {
					t.Errorf("IsServerError(%v) = false: the last answer's status must stay readable", err)
				}
				doubts = ambiguous.Doubts
			}
			if len(doubts) != tt.wantDoubts {
				t.Fatalf("doubts = %q, want %d", doubts, tt.wantDoubts)
			}
			if !strings.Contains(doubts[0], "attempt ") || !strings.Contains(doubts[0], "HTTP 5") {
				t.Errorf("doubt %q does not name the attempt and its status", doubts[0])
			}
		})
	}
}

// A success status whose body is not a task, and an interrupt while the submission
// is in flight, both leave a task that may exist without its ID.
func TestPostAmbiguousWithoutTaskID(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]reply{
		"HTML with 200":      {status: http.StatusOK, body: "<html>ok</html>"},
		"JSON without an ID": okReply(`{"status":"submitted"}`),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, r)
			c := newTestClient(t, srv.URL, WithMaxRetries(3))
			_, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"})
			if !IsAmbiguousSubmit(err) {
				t.Fatalf("IsAmbiguousSubmit(%v) = false", err)
			}
			if s.hits() != 1 {
				t.Errorf("server hits = %d, want 1", s.hits())
			}
		})
	}
	t.Run("interrupted before it was sent", func(t *testing.T) {
		t.Parallel()
		srv, s := newScriptServer(t, reply{hang: true})
		c := newTestClient(t, srv.URL, WithMaxRetries(3))
		ctx, cancel := context.WithCancel(t.Context())
		c.logger = cancelOnRequest{cancel}
		_, err := c.SubmitVideo(ctx, VideoRequest{Model: "m", Prompt: "p"})
		if IsAmbiguousSubmit(err) || !errors.Is(err, ErrNotSubmitted) || !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want ErrNotSubmitted wrapping context.Canceled", err)
		}
		srv.Close()
		if s.hits() != 0 {
			t.Errorf("server hits = %d, want 0", s.hits())
		}
	})
}

// cancelOnRequest cancels the call's context as soon as the request is logged, that
// is, just before its first attempt.
type cancelOnRequest struct{ cancel context.CancelFunc }

func (l cancelOnRequest) Debug(_ context.Context, msg string, _ map[string]any) {
	if msg == "videogen API request" {
		l.cancel()
	}
}

func TestPostNotRetriedAfterAmbiguousFailure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply reply
	}{
		{name: "server hangs past the request timeout", reply: reply{hang: true}},
		{name: "connection dropped after the body", reply: reply{hijack: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, tt.reply, okReply(`{"task_id":"t","status":"submitted"}`))
			c := newTestClient(t, srv.URL, WithMaxRetries(3), WithRequestTimeout(100*time.Millisecond))
			start := time.Now()
			_, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"})
			if err == nil {
				t.Fatal("SubmitVideo succeeded, want an ambiguous failure")
			}
			if elapsed := time.Since(start); elapsed > 3*time.Second {
				t.Errorf("SubmitVideo took %s", elapsed)
			}
			srv.Close() // waits for handlers, so the hit count is final
			if s.hits() != 1 {
				t.Fatalf("server hits = %d, want exactly 1: a POST whose body may have arrived must not be repeated", s.hits())
			}
			if !IsAmbiguousSubmit(err) {
				t.Errorf("IsAmbiguousSubmit(%v) = false, want true", err)
			}
			if !IsTransient(err) {
				t.Errorf("IsTransient(%v) = false", err)
			}
			var tErr *TransportError
			if !errors.As(err, &tErr) || !tErr.MaybeSent() || tErr.Attempts != 1 {
				t.Errorf("error = %#v, want a *TransportError sent once", err)
			}
		})
	}
}

func TestPostRetriedOnDialError(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, refusedURL(t), WithMaxRetries(2))
	_, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"})
	var tErr *TransportError
	if !errors.As(err, &tErr) {
		t.Fatalf("error = %v (%T), want *TransportError", err, err)
	}
	if tErr.Attempts != 3 {
		t.Errorf("Attempts = %d, want 3 (1 + 2 retries)", tErr.Attempts)
	}
	if IsAmbiguousSubmit(err) || tErr.MaybeSent() {
		t.Errorf("a refused connection was reported as maybe sent: %v", err)
	}
	if !IsTransient(err) {
		t.Errorf("IsTransient(%v) = false", err)
	}
	if !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("error %q does not say how many attempts were made", err)
	}
}

func TestRetriesExhausted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		call   func(context.Context, *Client) error
		pred   func(error) bool
	}{
		{
			name: "GET 503", status: http.StatusServiceUnavailable, pred: IsServerError,
			call: func(ctx context.Context, c *Client) error { _, err := c.GetVideo(ctx, "t"); return err },
		},
		{
			name: "GET 429", status: http.StatusTooManyRequests, pred: IsRateLimited,
			call: func(ctx context.Context, c *Client) error { _, err := c.ListModels(ctx); return err },
		},
		{
			name: "POST 503", status: http.StatusServiceUnavailable, pred: IsServerError,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.SubmitVideo(ctx, VideoRequest{Model: "m", Prompt: "p"})
				return err
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const maxRetries = 2
			srv, s := newScriptServer(t, errReply(tt.status, "first"), errReply(tt.status, "the upstream is overloaded"))
			c := newTestClient(t, srv.URL, WithMaxRetries(maxRetries))
			err := tt.call(t.Context(), c)
			if !tt.pred(err) {
				t.Fatalf("error = %v", err)
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %T, want *APIError", err)
			}
			if apiErr.Attempts != maxRetries+1 {
				t.Errorf("Attempts = %d, want %d", apiErr.Attempts, maxRetries+1)
			}
			if s.hits() != maxRetries+1 {
				t.Errorf("server hits = %d, want %d", s.hits(), maxRetries+1)
			}
			if apiErr.Message != "the upstream is overloaded" || apiErr.Type != "test_error" {
				t.Errorf("Message, Type = %q, %q; want the last response's", apiErr.Message, apiErr.Type)
			}
			if !strings.Contains(err.Error(), "after 3 attempts") {
				t.Errorf("Error() = %q, want the attempt count", err)
			}
		})
	}
}

func TestZeroRetries(t *testing.T) {
	t.Parallel()
	srv, s := newScriptServer(t, errReply(http.StatusServiceUnavailable, "busy"), okReply(runningTask))
	c := newTestClient(t, srv.URL, WithMaxRetries(0))
	_, err := c.GetVideo(t.Context(), "t")
	if !IsServerError(err) || s.hits() != 1 {
		t.Fatalf("error = %v, hits = %d; want one 503", err, s.hits())
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value func() string
	}{
		{name: "seconds", value: func() string { return "1" }},
		{name: "http date", value: func() string { return time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			limited := reply{status: http.StatusTooManyRequests, body: `{"error":{"message":"slow down"}}`,
				header: map[string]string{"Retry-After": tt.value()}}
			srv, s := newScriptServer(t, limited, okReply(runningTask))
			c := newTestClient(t, srv.URL)
			start := time.Now()
			if _, err := c.GetVideo(t.Context(), "t"); err != nil {
				t.Fatalf("GetVideo: %v", err)
			}
			// The HTTP date has one-second resolution, so it may be up to a second early.
			if elapsed := time.Since(start); elapsed < 900*time.Millisecond || elapsed > 5*time.Second {
				t.Fatalf("retry came after %s, want about what Retry-After asked", elapsed)
			}
			if s.hits() != 2 {
				t.Fatalf("hits = %d, want 2", s.hits())
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		value  string
		want   time.Duration
		wantOK bool
	}{
		{name: "empty", value: "", wantOK: false},
		{name: "zero", value: "0", want: 0, wantOK: true},
		{name: "seconds", value: "7", want: 7 * time.Second, wantOK: true},
		{name: "padded seconds", value: " 3 ", want: 3 * time.Second, wantOK: true},
		{name: "at ceiling", value: "60", want: RetryAfterCeiling, wantOK: true},
		{name: "above ceiling", value: "86400", want: RetryAfterCeiling, wantOK: true},
		{name: "overflowing seconds", value: "99999999999999999999999", want: RetryAfterCeiling, wantOK: true},
		{name: "negative", value: "-5", wantOK: false},
		{name: "plus sign", value: "+5", wantOK: false},
		{name: "fraction", value: "1.5", wantOK: false},
		{name: "garbage", value: "soon", wantOK: false},
		{name: "future date", value: now.Add(30 * time.Second).Format(http.TimeFormat), want: 30 * time.Second, wantOK: true},
		{name: "rfc850 date", value: now.Add(10 * time.Second).Format(time.RFC850), want: 10 * time.Second, wantOK: true},
		{name: "date at ceiling", value: now.Add(RetryAfterCeiling).Format(http.TimeFormat), want: RetryAfterCeiling, wantOK: true},
		{name: "date past ceiling", value: now.Add(RetryAfterCeiling + time.Second).Format(http.TimeFormat), want: RetryAfterCeiling, wantOK: true},
		{name: "far future date", value: now.Add(2 * time.Hour).Format(http.TimeFormat), want: RetryAfterCeiling, wantOK: true},
		{name: "year 9999", value: "Fri, 31 Dec 9999 23:59:59 GMT", want: RetryAfterCeiling, wantOK: true},
		{name: "past date", value: now.Add(-time.Hour).Format(http.TimeFormat), want: 0, wantOK: true},
		{name: "year 1", value: "Mon, 01 Jan 0001 00:00:00 GMT", want: 0, wantOK: true},
		{name: "now", value: now.Format(http.TimeFormat), want: 0, wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, gotOK := parseRetryAfter(tt.value, now)
			if gotOK != tt.wantOK || (gotOK && got != tt.want) {
				t.Fatalf("parseRetryAfter(%q) = %s, %v; want %s, %v", tt.value, got, gotOK, tt.want, tt.wantOK)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	const minWait, maxWait = 100 * time.Millisecond, 800 * time.Millisecond
	tests := []struct {
		name string
		// retryAfter is the response's Retry-After header; noResponse passes a nil response.
		retryAfter string
		noResponse bool
		attempt    int
		lo, hi     time.Duration
	}{
		{name: "retry-after seconds", retryAfter: "4", lo: 4 * time.Second, hi: 4 * time.Second},
		{name: "retry-after above ceiling", retryAfter: "3600", lo: RetryAfterCeiling, hi: RetryAfterCeiling},
		{name: "retry-after far date", retryAfter: time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat), lo: RetryAfterCeiling, hi: RetryAfterCeiling},
		{name: "retry-after past date", retryAfter: "Mon, 01 Jan 2001 00:00:00 GMT", lo: 0, hi: 0},
		{name: "garbage header falls back", retryAfter: "later", attempt: 0, lo: minWait / 2, hi: minWait},
		{name: "no response", noResponse: true, attempt: 1, lo: minWait, hi: 2 * minWait},
		{name: "no header", attempt: 2, lo: 2 * minWait, hi: 4 * minWait},
		{name: "capped", noResponse: true, attempt: 30, lo: maxWait / 2, hi: maxWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var resp *http.Response
			if !tt.noResponse {
				resp = &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{}, Body: http.NoBody}
				if tt.retryAfter != "" {
					resp.Header.Set("Retry-After", tt.retryAfter)
				}
			}
			for range 50 {
				got := backoff(minWait, maxWait, tt.attempt, resp)
				if got < tt.lo || got > tt.hi {
					t.Fatalf("backoff = %s, want within [%s, %s]", got, tt.lo, tt.hi)
				}
			}
		})
	}
}

func TestJitteredExponential(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		minWait, maxWait time.Duration
	}{
		{name: "defaults", minWait: DefaultRetryWaitMin, maxWait: DefaultRetryWaitMax},
		{name: "tiny", minWait: time.Millisecond, maxWait: 5 * time.Millisecond},
		{name: "one nanosecond", minWait: 1, maxWait: 3},
		{name: "min above max", minWait: time.Second, maxWait: 100 * time.Millisecond},
		{name: "zero", minWait: 0, maxWait: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for attempt := range 70 {
				d := tt.minWait
				for i := 0; i < attempt && d < tt.maxWait; i++ {
					d *= 2
				}
				d = min(d, tt.maxWait)
				for range 30 {
					got := jitteredExponential(tt.minWait, tt.maxWait, attempt)
					if got < d/2 || got > d {
						t.Fatalf("attempt %d: %s outside [%s, %s]", attempt, got, d/2, d)
					}
					if got > tt.maxWait {
						t.Fatalf("attempt %d: %s above the cap %s", attempt, got, tt.maxWait)
					}
				}
			}
		})
	}
}

// Equal jitter must actually spread: parallel clients would otherwise retry in lockstep.
func TestJitteredExponentialVaries(t *testing.T) {
	t.Parallel()
	seen := map[time.Duration]bool{}
	for range 100 {
		seen[jitteredExponential(time.Second, time.Minute, 3)] = true
	}
	if len(seen) < 10 {
		t.Fatalf("only %d distinct waits in 100 draws", len(seen))
	}
}

func TestContextCancellationStopsRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reply   reply
		cancel  bool
		wantErr error
	}{
		{name: "cancel during back-off", reply: errReply(http.StatusServiceUnavailable, "busy"), cancel: true, wantErr: context.Canceled},
		{name: "deadline during back-off", reply: errReply(http.StatusServiceUnavailable, "busy"), wantErr: context.DeadlineExceeded},
		{name: "cancel during request", reply: reply{hang: true}, cancel: true, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, tt.reply)
			// Long waits: only the context can end this call quickly.
			c := newTestClient(t, srv.URL, WithRetryWait(10*time.Second, 10*time.Second), WithMaxRetries(5))
			var ctx context.Context
			var cancel context.CancelFunc
			if tt.cancel {
				ctx, cancel = context.WithCancel(t.Context())
				time.AfterFunc(100*time.Millisecond, cancel)
			} else {
				ctx, cancel = context.WithTimeout(t.Context(), 100*time.Millisecond)
			}
			defer cancel()
			start := time.Now()
			_, err := c.GetVideo(ctx, "t")
			if elapsed := time.Since(start); elapsed > 2*time.Second {
				t.Fatalf("GetVideo returned after %s, want promptly after the context ended", elapsed)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if IsTransient(err) {
				t.Errorf("a cancelled call is reported as transient: %v", err)
			}
			if s.hits() != 1 {
				t.Errorf("server hits = %d, want 1", s.hits())
			}
		})
	}
}

func TestCheckRetryPermanentTransportErrors(t *testing.T) {
	t.Parallel()
	ctx := context.WithValue(t.Context(), idempotencyKey{}, true)
	for _, err := range []error{
		errors.New(`Get "gopher://x": unsupported protocol scheme "gopher"`),
		errors.New(`Get "http://x": stopped after 10 redirects`),
		errors.New(`net/http: invalid header field value for "Authorization"`),
	} {
		retry, _ := (&Client{}).checkRetry(ctx, nil, err)
		if retry {
			t.Errorf("checkRetry retries the permanent error %q", err)
		}
	}
}

// A certificate the client does not trust will fail the same way on every attempt:
// it is neither retried nor reported as transient (a waiter would otherwise keep polling).
func TestUntrustedCertificateIsPermanent(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, runningTask)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshake is expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, WithMaxRetries(3)) // default transport: the test CA is not trusted
	_, err := c.GetVideo(t.Context(), "t")
	var tErr *TransportError
	if !errors.As(err, &tErr) {
		t.Fatalf("error = %v (%T), want *TransportError", err, err)
	}
	if tErr.Attempts != 1 {
		t.Errorf("Attempts = %d, want 1: a certificate error is not retried", tErr.Attempts)
	}
	if !strings.Contains(err.Error(), "certificate") {
		t.Errorf("error %q does not mention the certificate", err)
	}
	if hits.Load() != 0 {
		t.Errorf("handler ran %d times over an untrusted connection", hits.Load())
	}
	if IsTransient(err) {
		t.Errorf("IsTransient(%v) = true for an error every retry repeats", err)
	}
}
