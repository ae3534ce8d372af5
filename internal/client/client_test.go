package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testAPIKey is distinctive so that a leak into any error or log line is unmistakable.
const testAPIKey = "sk-vg-TEST-7f3a9c1e5b2d-DO-NOT-LEAK"

// newTestClient returns a client with tiny retry waits and poll intervals, so that
// the whole package's tests stay fast.
func newTestClient(t *testing.T, baseURL string, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{
		WithRetryWait(time.Millisecond, 5*time.Millisecond),
		WithMaxRetries(3),
		WithPollPolicy(PollPolicy{Fixed: time.Millisecond, MaxConsecutiveErrors: 3}),
	}, opts...)
	c, err := New(baseURL, testAPIKey, all...)
	if err != nil {
		t.Fatalf("New(%q): %v", baseURL, err)
	}
	return c
}

// reply is one scripted answer of a test server.
type reply struct {
	status int
	body   string
	header map[string]string
	// hijack closes the connection without answering (after reading the request).
	hijack bool
	// hang blocks until the client gives up on the request.
	hang bool
}

type recordedRequest struct {
	Method      string
	Path        string
	RawPath     string
	EscapedPath string
	RequestURI  string
	Header      http.Header
	Body        []byte
}

// script serves its replies in order, repeating the last one, and records every request.
// Requests without this package's test key are strays (another test's client dialling
// a recycled port) and are turned away without using up a reply.
type script struct {
	t        *testing.T
	mu       sync.Mutex
	replies  []reply
	requests []recordedRequest
}

func (s *script) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *script) request(i int) recordedRequest {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.requests) {
		s.t.Fatalf("server saw %d requests, want at least %d", len(s.requests), i+1)
	}
	return s.requests[i]
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Header.Get("Authorization") != "Bearer "+testAPIKey {
		http.Error(w, "not this test's client", http.StatusMisdirectedRequest)
		return
	}
	s.mu.Lock()
	idx := len(s.requests)
	s.requests = append(s.requests, recordedRequest{
		Method: r.Method, Path: r.URL.Path, RawPath: r.URL.RawPath, EscapedPath: r.URL.EscapedPath(),
		RequestURI: r.RequestURI, Header: r.Header.Clone(), Body: body,
	})
	rep := s.replies[min(idx, len(s.replies)-1)]
	s.mu.Unlock()

	switch {
	case rep.hijack:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("response writer cannot be hijacked")
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			_ = conn.Close()
		}
		return
	case rep.hang:
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, rep.body)
}

// inMemory is a transport that answers with a handler in memory, without a
// network: a client that uses it can run in a synctest bubble.
type inMemory struct{ h http.Handler }

func (m inMemory) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil {
		// A server's request always has a body.
		req = req.Clone(req.Context())
		req.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// newScriptServer starts a test server that answers with replies in order.
func newScriptServer(t *testing.T, replies ...reply) (*httptest.Server, *script) {
	t.Helper()
	if len(replies) == 0 {
		t.Fatal("newScriptServer needs at least one reply")
	}
	s := &script{t: t, replies: replies}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv, s
}

func okReply(body string) reply { return reply{status: http.StatusOK, body: body} }

func errReply(status int, message string) reply {
	return reply{status: status, body: fmt.Sprintf(`{"error":{"message":%q,"type":"test_error"}}`, message)}
}

const runningTask = `{"task_id":"task-1","status":"running"}`

func TestNormalizeBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "host only", in: "https://api.example.com", want: "https://api.example.com/v1"},
		{name: "host with slash", in: "https://api.example.com/", want: "https://api.example.com/v1"},
		{name: "with v1", in: "https://api.example.com/v1", want: "https://api.example.com/v1"},
		{name: "with v1 and slash", in: "https://api.example.com/v1/", want: "https://api.example.com/v1"},
		{name: "with v1 and many slashes", in: "https://api.example.com/v1///", want: "https://api.example.com/v1"},
		{name: "surrounding spaces", in: "  https://api.example.com/v1 \n", want: "https://api.example.com/v1"},
		{name: "http with port", in: "http://localhost:8080", want: "http://localhost:8080/v1"},
		{name: "path prefix with v1", in: "https://gw.example.com/openai/v1", want: "https://gw.example.com/openai/v1"},
		{name: "path prefix without v1", in: "https://gw.example.com/openai", want: "https://gw.example.com/openai/v1"},
		{name: "path prefix with v1 and slash", in: "https://gw.example.com/openai/v1/", want: "https://gw.example.com/openai/v1"},
		{name: "empty", in: "", wantErr: "not a valid URL"},
		{name: "blank", in: "   ", wantErr: "not a valid URL"},
		{name: "relative host", in: "api.example.com/v1", wantErr: "absolute http or https URL"},
		{name: "relative path", in: "/v1", wantErr: "absolute http or https URL"},
		{name: "host and port without scheme", in: "localhost:8080", wantErr: "absolute http or https URL"},
		{name: "scheme-relative", in: "//api.example.com", wantErr: "absolute http or https URL"},
		{name: "ftp scheme", in: "ftp://files.example.com/v1", wantErr: "absolute http or https URL"},
		{name: "scheme without host", in: "https://", wantErr: "absolute http or https URL"},
		{name: "unparseable", in: "http://[::1", wantErr: "not a valid URL"},
		{name: "query", in: "https://api.example.com/v1?region=eu", wantErr: "query"},
		{name: "fragment", in: "https://api.example.com/v1#top", wantErr: "fragment"},
		{name: "userinfo", in: "https://user@api.example.com/v1", wantErr: "credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := NormalizeBaseURL(tt.in)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("NormalizeBaseURL(%q) = %v, want an error containing %q", tt.in, got, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NormalizeBaseURL(%q) error = %q, want it to contain %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NormalizeBaseURL(%q): unexpected error %v", tt.in, err)
			}
			if got.String() != tt.want {
				t.Fatalf("NormalizeBaseURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
			c, err := New(tt.in, testAPIKey)
			if err != nil {
				t.Fatalf("New(%q): %v", tt.in, err)
			}
			if c.BaseURL() != tt.want {
				t.Fatalf("BaseURL() = %q, want %q", c.BaseURL(), tt.want)
			}
		})
	}
}

// A base URL rejected for carrying credentials or a query must not echo them: the
// message ends up in Terraform diagnostics and CI logs.
func TestNormalizeBaseURLDoesNotEchoSecrets(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-Pa55w0rd-in-url"
	for _, in := range []string{
		"user:" + secret + "@api.example.com/v1",
		"api.example.com/v1?key=" + secret,
		"https://user:" + secret + "@api.example.com/v1",
		"https://api.example.com/v1?api_key=" + secret,
	} {
		_, err := NormalizeBaseURL(in)
		if err == nil {
			t.Fatalf("NormalizeBaseURL(%q) succeeded, want an error", in)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("NormalizeBaseURL error leaks the secret in the URL: %q", err)
		}
	}
}

func TestNewValidatesOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		key     string
		opts    []Option
		wantErr string
	}{
		{name: "empty key", key: "", wantErr: "API key is required"},
		{name: "blank key", key: "  \t", wantErr: "API key is required"},
		{name: "negative retries", key: testAPIKey, opts: []Option{WithMaxRetries(-1)}, wantErr: "max retries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New("https://api.example.com", tt.key, tt.opts...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New() error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestBaseURLReachesVersionedEndpoints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		suffix   string
		wantPath string
	}{
		{name: "bare host", suffix: "", wantPath: "/v1/video/generations"},
		{name: "bare host with slash", suffix: "/", wantPath: "/v1/video/generations"},
		{name: "with v1", suffix: "/v1", wantPath: "/v1/video/generations"},
		{name: "with v1 and slash", suffix: "/v1/", wantPath: "/v1/video/generations"},
		{name: "gateway prefix", suffix: "/openai/v1", wantPath: "/openai/v1/video/generations"},
		{name: "gateway prefix without v1", suffix: "/openai", wantPath: "/openai/v1/video/generations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, okReply(`{"task_id":"t1","status":"submitted"}`),
				okReply(`{"task_id":"t1","status":"running"}`), okReply(`{"data":[{"id":"m"}]}`))
			c := newTestClient(t, srv.URL+tt.suffix)
			if _, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"}); err != nil {
				t.Fatalf("SubmitVideo: %v", err)
			}
			if _, err := c.GetVideo(t.Context(), "t1"); err != nil {
				t.Fatalf("GetVideo: %v", err)
			}
			if _, err := c.ListModels(t.Context()); err != nil {
				t.Fatalf("ListModels: %v", err)
			}
			prefix := strings.TrimSuffix(tt.wantPath, "/video/generations")
			want := []struct{ method, path string }{
				{http.MethodPost, tt.wantPath},
				{http.MethodGet, tt.wantPath + "/t1"},
				{http.MethodGet, prefix + "/models"},
			}
			if s.hits() != len(want) {
				t.Fatalf("server saw %d requests, want %d", s.hits(), len(want))
			}
			for i, w := range want {
				got := s.request(i)
				if got.Method != w.method || got.Path != w.path {
					t.Errorf("request %d = %s %s, want %s %s", i, got.Method, got.Path, w.method, w.path)
				}
			}
		})
	}
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		reply      string
		call       func(context.Context, *Client) error
		wantMethod string
		wantCT     string
	}{
		{
			name:  "submit",
			reply: `{"task_id":"t1","status":"submitted"}`,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.SubmitVideo(ctx, VideoRequest{Model: "m", Prompt: "p"})
				return err
			},
			wantMethod: http.MethodPost, wantCT: "application/json",
		},
		{
			name:  "get",
			reply: runningTask,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.GetVideo(ctx, "task-1")
				return err
			},
			wantMethod: http.MethodGet,
		},
		{
			name:  "list models",
			reply: `{"data":[]}`,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.ListModels(ctx)
				return err
			},
			wantMethod: http.MethodGet,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, okReply(tt.reply))
			c := newTestClient(t, srv.URL, WithUserAgent("terraform-provider-videogen/1.2.3"))
			if err := tt.call(t.Context(), c); err != nil {
				t.Fatalf("call: %v", err)
			}
			got := s.request(0)
			if got.Method != tt.wantMethod {
				t.Errorf("method = %s, want %s", got.Method, tt.wantMethod)
			}
			if v := got.Header.Get("Authorization"); v != "Bearer "+testAPIKey {
				t.Errorf("Authorization = %q, want the bearer key", v)
			}
			if v := got.Header.Get("User-Agent"); v != "terraform-provider-videogen/1.2.3" {
				t.Errorf("User-Agent = %q", v)
			}
			if v := got.Header.Get("Accept"); v != "application/json" {
				t.Errorf("Accept = %q, want application/json", v)
			}
			if v, present := got.Header["Content-Type"]; tt.wantCT == "" && present {
				t.Errorf("Content-Type = %q on a request without a body", v)
			}
			if v := got.Header.Get("Content-Type"); v != tt.wantCT {
				t.Errorf("Content-Type = %q, want %q", v, tt.wantCT)
			}
			if tt.wantCT == "" && len(got.Body) != 0 {
				t.Errorf("%s carried a body: %q", got.Method, got.Body)
			}
		})
	}
}

func TestDefaultUserAgent(t *testing.T) {
	t.Parallel()
	srv, s := newScriptServer(t, okReply(runningTask))
	c, err := New(srv.URL, testAPIKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetVideo(t.Context(), "task-1"); err != nil {
		t.Fatal(err)
	}
	if ua := s.request(0).Header.Get("User-Agent"); !strings.HasPrefix(ua, "terraform-provider-videogen/") {
		t.Fatalf("default User-Agent = %q, want terraform-provider-videogen/<version>", ua)
	}
}

func TestGetVideoTaskIDStaysInOnePathSegment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		taskID string
		// wantSegment is the escaped form the server must see after /v1/video/generations/.
		wantSegment string
	}{
		{name: "plain", taskID: "task-123", wantSegment: "task-123"},
		{name: "slash", taskID: "a/b", wantSegment: "a%2Fb"},
		{name: "climb to models", taskID: "../../models", wantSegment: "..%2F..%2Fmodels"},
		{name: "dot dot", taskID: "..", wantSegment: "%2E%2E"},
		{name: "dot", taskID: ".", wantSegment: "%2E"},
		{name: "question mark", taskID: "t?x=1", wantSegment: "t%3Fx=1"},
		{name: "percent", taskID: "t%2F..", wantSegment: "t%252F.."},
		{name: "hash", taskID: "t#frag", wantSegment: "t%23frag"},
		{name: "space", taskID: "my task", wantSegment: "my%20task"},
		{name: "unicode", taskID: "tâche", wantSegment: "t%C3%A2che"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, okReply(`{"status":"running"}`))
			c := newTestClient(t, srv.URL+"/v1")
			v, err := c.GetVideo(t.Context(), tt.taskID)
			if err != nil {
				t.Fatalf("GetVideo(%q): %v", tt.taskID, err)
			}
			if v.TaskID != tt.taskID {
				t.Errorf("TaskID = %q, want %q", v.TaskID, tt.taskID)
			}
			got := s.request(0)
			if want := "/v1/video/generations/" + tt.wantSegment; got.EscapedPath != want {
				t.Errorf("server saw escaped path %q, want %q", got.EscapedPath, want)
			}
			if want := "/v1/video/generations/" + tt.taskID; got.Path != want {
				t.Errorf("server saw path %q, want %q", got.Path, want)
			}
			if strings.Contains(got.RequestURI, "?") || strings.Contains(got.RequestURI, "#") {
				t.Errorf("request URI %q has a query or fragment", got.RequestURI)
			}
		})
	}
}

// A gateway prefix that itself needs escaping must not switch off the escaping of
// the task ID.
func TestGetVideoTaskIDEscapedUnderEscapedPrefix(t *testing.T) {
	t.Parallel()
	srv, s := newScriptServer(t, okReply(`{"status":"running"}`))
	c := newTestClient(t, srv.URL+"/my%20gateway/v1")
	if _, err := c.GetVideo(t.Context(), "../../models"); err != nil {
		t.Fatalf("GetVideo: %v", err)
	}
	want := "/my%20gateway/v1/video/generations/..%2F..%2Fmodels"
	if got := s.request(0).EscapedPath; got != want {
		t.Fatalf("server saw escaped path %q, want %q", got, want)
	}
}

func TestGetVideoRequiresTaskID(t *testing.T) {
	t.Parallel()
	srv, s := newScriptServer(t, okReply(runningTask))
	c := newTestClient(t, srv.URL)
	for _, id := range []string{"", "  "} {
		if _, err := c.GetVideo(t.Context(), id); err == nil || !strings.Contains(err.Error(), "task ID is required") {
			t.Errorf("GetVideo(%q) error = %v, want a missing-ID error", id, err)
		}
	}
	if s.hits() != 0 {
		t.Fatalf("server saw %d requests for an empty task ID", s.hits())
	}
}

func TestResponseSizeCap(t *testing.T) {
	t.Parallel()
	pad := func(n int) string {
		prefix := `{"task_id":"t","status":"running","pad":"`
		return prefix + strings.Repeat("a", n-len(prefix)-2) + `"}`
	}
	tests := []struct {
		name    string
		reply   reply
		call    func(context.Context, *Client) error
		wantErr string
	}{
		{
			name:  "2 MiB task",
			reply: okReply(pad(2 << 20)),
			call: func(ctx context.Context, c *Client) error {
				_, err := c.GetVideo(ctx, "t")
				return err
			},
			wantErr: "exceeds 1048576 bytes",
		},
		{
			name:  "exactly 1 MiB task is accepted",
			reply: okReply(pad(1 << 20)),
			call: func(ctx context.Context, c *Client) error {
				_, err := c.GetVideo(ctx, "t")
				return err
			},
		},
		{
			name:  "2 MiB model list",
			reply: okReply(`[` + strings.Repeat(`"m",`, 1<<19) + `"m"]`),
			call: func(ctx context.Context, c *Client) error {
				_, err := c.ListModels(ctx)
				return err
			},
			wantErr: "exceeds 1048576 bytes",
		},
		{
			name:  "2 MiB error page",
			reply: reply{status: http.StatusBadRequest, body: strings.Repeat("<p>oops</p>", 2<<20/11+1)},
			call: func(ctx context.Context, c *Client) error {
				_, err := c.SubmitVideo(ctx, VideoRequest{Model: "m", Prompt: "p"})
				return err
			},
			wantErr: "exceeds 1048576 bytes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newScriptServer(t, tt.reply)
			c := newTestClient(t, srv.URL)
			err := tt.call(t.Context(), c)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
			if len(err.Error()) > 1000 {
				t.Fatalf("error message is %d bytes long; it should not carry the body", len(err.Error()))
			}
		})
	}
}

type logEntry struct {
	msg    string
	fields map[string]any
}

type recordingLogger struct {
	mu      sync.Mutex
	entries []logEntry
}

func (l *recordingLogger) Debug(_ context.Context, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, logEntry{msg: msg, fields: fields})
}

func (l *recordingLogger) all() []logEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]logEntry(nil), l.entries...)
}

var _ Logger = (*recordingLogger)(nil)

func TestLoggerRecordsRequestsWithoutKey(t *testing.T) {
	t.Parallel()
	srv, _ := newScriptServer(t,
		errReply(http.StatusServiceUnavailable, "busy"),
		okReply(`{"task_id":"t1","status":"submitted"}`),
		okReply(`{"task_id":"t1","status":"running"}`),
	)
	logger := &recordingLogger{}
	c := newTestClient(t, srv.URL, WithLogger(logger), WithUserAgent("ua-test/1"))
	if _, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "a cat"}); err != nil {
		t.Fatalf("SubmitVideo: %v", err)
	}
	if _, err := c.GetVideo(t.Context(), "t1"); err != nil {
		t.Fatalf("GetVideo: %v", err)
	}

	entries := logger.all()
	count := map[string]int{}
	for _, e := range entries {
		count[e.msg]++
		for k, v := range e.fields {
			if s := fmt.Sprintf("%v", v); strings.Contains(s, testAPIKey) {
				t.Errorf("log line %q field %q contains the API key: %s", e.msg, k, s)
			}
		}
		switch e.msg {
		case "videogen API request":
			headers, isMap := e.fields["headers"].(map[string]string)
			if !isMap {
				t.Fatalf("request log headers field is %T, want map[string]string", e.fields["headers"])
			}
			if headers["Authorization"] != "Bearer (redacted)" {
				t.Errorf("logged Authorization = %q, want it redacted", headers["Authorization"])
			}
			if headers["User-Agent"] != "ua-test/1" {
				t.Errorf("logged User-Agent = %q", headers["User-Agent"])
			}
			if e.fields["method"] == nil || e.fields["url"] == nil {
				t.Errorf("request log lacks method or url: %v", e.fields)
			}
		case "videogen API response":
			if e.fields["status"] != http.StatusOK {
				t.Errorf("response log status = %v, want 200", e.fields["status"])
			}
		}
	}
	if count["videogen API request"] != 2 || count["videogen API response"] != 2 {
		t.Fatalf("log messages = %v, want 2 requests and 2 responses", count)
	}
	if count["videogen API retry"] != 1 {
		t.Errorf("log messages = %v, want one retry line", count)
	}
	for _, e := range entries {
		if e.msg == "videogen API response" && e.fields["method"] == http.MethodPost && e.fields["attempts"] != 2 {
			t.Errorf("POST response log attempts = %v, want 2", e.fields["attempts"])
		}
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply reply
		dead  bool
	}{
		{name: "unauthorized", reply: reply{status: http.StatusUnauthorized, body: `{"error":{"message":"invalid key","type":"authentication_error"}}`}},
		{name: "server error after retries", reply: errReply(http.StatusBadGateway, "upstream down")},
		{name: "html page", reply: reply{status: http.StatusBadGateway, body: "<html><body>Bad gateway</body></html>", header: map[string]string{"Content-Type": "text/html"}}},
		{name: "not json", reply: okReply("<html>hello</html>")},
		{name: "wrong type", reply: okReply(`{"task_id":5}`)},
		{name: "connection dropped", reply: reply{hijack: true}},
		{name: "connection refused", dead: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := refusedURL(t)
			if !tt.dead {
				srv, _ := newScriptServer(t, tt.reply)
				base = srv.URL
			}
			c := newTestClient(t, base, WithMaxRetries(1))
			calls := map[string]func() error{
				"submit": func() error {
					_, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"})
					return err
				},
				"get": func() error {
					_, err := c.GetVideo(t.Context(), "t")
					return err
				},
				"models": func() error {
					_, err := c.ListModels(t.Context())
					return err
				},
				"wait": func() error {
					_, err := c.WaitForVideo(t.Context(), "t")
					return err
				},
			}
			for name, call := range calls {
				err := call()
				if err == nil {
					t.Fatalf("%s: expected an error", name)
				}
				if strings.Contains(err.Error(), testAPIKey) || strings.Contains(fmt.Sprintf("%+v", err), testAPIKey) {
					t.Errorf("%s: error contains the API key: %v", name, err)
				}
			}
		})
	}
}

// Gateways sometimes quote the key they rejected. That text reaches diagnostics and
// CI logs, so the client should mask its own key in whatever the service sends back.
func TestAPIKeyEchoedByServiceIsMasked(t *testing.T) {
	t.Parallel()
	srv, _ := newScriptServer(t, reply{
		status: http.StatusUnauthorized,
		body:   `{"error":{"message":"Incorrect API key provided: ` + testAPIKey + `","type":"authentication_error"}}`,
	})
	logger := &recordingLogger{}
	c := newTestClient(t, srv.URL, WithLogger(logger))
	_, err := c.GetVideo(t.Context(), "t")
	if !IsUnauthorized(err) {
		t.Fatalf("error = %v, want a 401", err)
	}
	if strings.Contains(err.Error(), testAPIKey) {
		t.Errorf("error repeats the API key the service echoed: %v", err)
	}
	for _, e := range logger.all() {
		for k, v := range e.fields {
			if strings.Contains(fmt.Sprintf("%v", v), testAPIKey) {
				t.Errorf("log line %q field %q repeats the API key the service echoed", e.msg, k)
			}
		}
	}
}

func TestErrorsAsThroughWrapping(t *testing.T) {
	t.Parallel()
	srv, _ := newScriptServer(t, errReply(http.StatusNotFound, "no such task"))
	c := newTestClient(t, srv.URL)
	_, err := c.GetVideo(t.Context(), "missing")
	wrapped := fmt.Errorf("reading video: %w", err)
	var apiErr *APIError
	if !errors.As(wrapped, &apiErr) || !IsNotFound(wrapped) {
		t.Fatalf("wrapped error %v is not a 404 APIError", wrapped)
	}
}

func TestAPIRedirectIsReportedNotFollowed(t *testing.T) {
	t.Parallel()
	var followed atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved/v1/video/generations" {
			followed.Add(1)
			return
		}
		w.Header().Set("Location", "/moved/v1/video/generations")
		w.WriteHeader(http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	_, err := newTestClient(t, srv.URL).SubmitVideo(context.Background(), VideoRequest{Model: "m", Prompt: "p"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusFound || !strings.Contains(apiErr.Message, "redirects to /moved/v1") {
		t.Fatalf("want a 302 APIError naming the target, got %v", err)
	}
	if followed.Load() != 0 {
		t.Error("the submission followed the redirect")
	}
}

// TestLogTakesTheKeyOut: whatever a log line quotes, raw or escaped, in its
// message or a field of any type (text, a map of headers, an error, a list, a
// Stringer, bytes), the logger never receives the key; a field named for a
// credential (ending in its name: Proxy-Authorization, client_secret) is masked
// whatever text it holds; numbers and bools stay as they are.
func TestLogTakesTheKeyOut(t *testing.T) {
	t.Parallel()
	const key = "sk-live-0123456789abcdef"
	logger := &recordingLogger{}
	c := newTestClient(t, "https://api.example.com", WithLogger(logger))
	c.apiKey = key
	c.log(t.Context(), "quoted "+key, map[string]any{
		"body":                `{"error":"Incorrect API key provided: sk-live-0123456789abcdef"}`,
		"escaped":             "key=sk%2Dlive%2D0123456789abcdef",
		"headers":             map[string]string{"X-Echo": key},
		"error":               fmt.Errorf("POST /v1/video/generations: %w", errors.New("the service quoted "+key)),
		"list":                []string{"a", key},
		"stringer":            keyedStringer{key: key},
		"bytes":               []byte("echo " + key),
		"api_key":             "another-secret",
		"Authorization":       "Basic dXNlcjpwYXNzd29yZA==",
		"X-Api-Key":           "a-third-secret",
		"apiKey":              "a-fourth-secret",
		"Proxy-Authorization": "Basic cHJveHk6c2VjcmV0",
		"client_secret":       "a-fifth-secret",
		"refresh_token":       "a-sixth-secret",
		"db_password":         "a-seventh-secret",
		"with_api_key":        true,
		"wait":                2 * time.Second,
		"status":              401,
		"attempts":            int64(3),
		"seconds":             1.5,
		"keyed":               true,
	})
	entries := logger.all()
	if len(entries) != 1 {
		t.Fatalf("want one line, got %d", len(entries))
	}
	fields := entries[0].fields
	if line := fmt.Sprint(entries[0].msg, fields); strings.Contains(line, "0123456789abcdef") {
		t.Errorf("the key reached the logger: %s", line)
	}
	for _, name := range []string{"error", "list", "stringer", "bytes"} {
		text, ok := fields[name].(string)
		if !ok || strings.Contains(text, "0123456789abcdef") || !strings.Contains(text, "(redacted)") {
			t.Errorf("field %q reached the logger as %#v, want text with the key redacted", name, fields[name])
		}
	}
	for _, name := range []string{"api_key", "Authorization", "X-Api-Key", "apiKey", "Proxy-Authorization",
		"client_secret", "refresh_token", "db_password"} {
		if fields[name] != "(redacted)" {
			t.Errorf("credential field %q reached the logger as %#v, want it masked whole", name, fields[name])
		}
	}
	for name, want := range map[string]any{"status": 401, "attempts": int64(3), "seconds": 1.5, "keyed": true,
		"wait": 2 * time.Second, "with_api_key": true} {
		if fields[name] != want {
			t.Errorf("field %q that cannot hold the key changed: %#v, want %#v", name, fields[name], want)
		}
	}
}

// keyedStringer is a value that logs as text holding the key.
type keyedStringer struct{ key string }

func (s keyedStringer) String() string { return "credentials " + s.key }
