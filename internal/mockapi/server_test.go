package mockapi

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestAuth(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, func(c *Config) {
		c.Keys = append(c.Keys, Key{Key: "old-key", Revoked: true})
	})
	id := submit(t, ts, `{"model":"videogen-1","prompt":"a cat"}`)

	endpoints := []struct{ method, path, body string }{
		{http.MethodPost, "/v1/video/generations", `{"model":"videogen-1","prompt":"a cat"}`},
		{http.MethodGet, "/v1/video/generations/" + id, ""},
		{http.MethodGet, "/v1/models", ""},
		{http.MethodGet, "/v1/not-an-endpoint", ""},
	}
	tests := []struct {
		name   string
		header string
		want   string // message substring
	}{
		{"missing", "", "missing API key"},
		{"wrong scheme", "Basic " + DefaultAPIKey, "missing API key"},
		{"empty bearer", "Bearer ", "missing API key"},
		{"unknown", "Bearer not-a-key", "invalid API key"},
		{"revoked", "Bearer old-key", "revoked"},
	}
	for _, tt := range tests {
		for _, ep := range endpoints {
			t.Run(tt.name+" "+ep.method+" "+ep.path, func(t *testing.T) {
				t.Parallel()
				req, err := http.NewRequestWithContext(t.Context(), ep.method, ts.URL+ep.path, strings.NewReader(ep.body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				if tt.header != "" {
					req.Header.Set("Authorization", tt.header)
				}
				resp, err := ts.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res := readResult(t, resp)
				if res.status != http.StatusUnauthorized {
					t.Fatalf("status %d, want 401: %s", res.status, res.body)
				}
				e := apiErr(t, res)
				if e.Type != "authentication_error" || !strings.Contains(e.Message, tt.want) {
					t.Errorf("error %+v, want authentication_error mentioning %q", e, tt.want)
				}
				for _, k := range []string{"old-key", "not-a-key", DefaultAPIKey} {
					if strings.Contains(string(res.body), k) {
						t.Errorf("response echoes the key %q: %s", k, res.body)
					}
				}
			})
		}
	}
}

func readResult(t *testing.T, resp *http.Response) result {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return result{status: resp.StatusCode, header: resp.Header, body: b}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, nil)
	id := submit(t, ts, `{"model":"videogen-1","prompt":"a cat"}`)

	tests := []struct {
		name      string
		method    string
		path      string
		key       string
		status    int
		typ       string
		msg       string
		wantAllow string
	}{
		{"unknown api path", http.MethodGet, "/v1/videos", DefaultAPIKey, 404, "not_found_error", "unknown path /v1/videos", ""},
		{"unknown root path", http.MethodGet, "/health", "", 404, "not_found_error", "unknown path /health", ""},
		{"trailing slash", http.MethodGet, "/v1/video/generations/", DefaultAPIKey, 404, "not_found_error", "unknown path", ""},
		{"nested task path", http.MethodGet, "/v1/video/generations/" + id + "/x", DefaultAPIKey, 404, "not_found_error", "unknown path", ""},
		{"escaped slash in id", http.MethodGet, "/v1/video/generations/" + id + "%2Fx", DefaultAPIKey, 404, "not_found_error", "unknown task id", ""},
		{"unknown task", http.MethodGet, "/v1/video/generations/task_0000", DefaultAPIKey, 404, "not_found_error", "unknown task id", ""},
		{"id differs in case", http.MethodGet, "/v1/video/generations/" + strings.ToUpper(id), DefaultAPIKey, 404, "not_found_error", "unknown task id", ""},
		{"GET generations", http.MethodGet, "/v1/video/generations", DefaultAPIKey, 405, "invalid_request_error", "use POST", "POST"},
		{"DELETE task", http.MethodDelete, "/v1/video/generations/" + id, DefaultAPIKey, 405, "invalid_request_error", "use GET", "GET"},
		{"POST models", http.MethodPost, "/v1/models", DefaultAPIKey, 405, "invalid_request_error", "use GET", "GET"},
		{"POST ledger", http.MethodPost, "/_mock/ledger", "", 405, "invalid_request_error", "use GET", "GET"},
		{"PUT clip", http.MethodPut, "/_mock/clips/" + id + ".mp4", "", 405, "invalid_request_error", "GET or HEAD", "GET, HEAD"},
		{"GET expire-urls", http.MethodGet, "/_mock/expire-urls", "", 405, "invalid_request_error", "use POST", "POST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := do(t, ts, tt.method, tt.path, tt.key, "")
			if res.status != tt.status {
				t.Fatalf("status %d, want %d: %s", res.status, tt.status, res.body)
			}
			e := apiErr(t, res)
			if e.Type != tt.typ || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("error %+v, want type %s mentioning %q", e, tt.typ, tt.msg)
			}
			if got := res.header.Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow %q, want %q", got, tt.wantAllow)
			}
		})
	}
}

func TestMatchPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, ep, id string
		ok           bool
	}{
		{"/v1/video/generations", epGenerations, "", true},
		{"/v1/video/generations/task_1", epTask, "task_1", true},
		{"/v1/video/generations/a%20b", epTask, "a b", true},
		{"/v1/video/generations/a%2Fb", epTask, "a/b", true},
		{"/v1/video/generations/a/b", "", "", false},
		{"/_mock/clips/task_1.mp4", epClips, "task_1", true},
		{"/_mock/clips/task_1.mov", "", "", false},
		{"/_mock/clips/.mp4", "", "", false},
		{"/_mock/tasks/task_1", epMockTask, "task_1", true},
		{"/v1/models", epModels, "", true},
		{"/v1/models/", "", "", false},
	}
	for _, tt := range tests {
		r, err := http.NewRequest(http.MethodGet, "http://x"+tt.path, nil) //nolint:noctx // only parses the URL
		if err != nil {
			t.Fatal(err)
		}
		ep, id, ok := matchPath(r.URL)
		if ep != tt.ep || id != tt.id || ok != tt.ok {
			t.Errorf("matchPath(%q) = %q, %q, %v; want %q, %q, %v", tt.path, ep, id, ok, tt.ep, tt.id, tt.ok)
		}
	}
}
