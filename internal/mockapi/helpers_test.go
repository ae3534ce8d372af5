package mockapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testConfig is DefaultConfig with tasks short enough for tests.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.TaskDuration = Duration(100 * time.Millisecond)
	return cfg
}

// newTestServer starts the mock behind httptest; mutate may adjust the
// config first. Both are closed when the test ends, the listener first.
func newTestServer(t *testing.T, mutate func(*Config)) (*Server, *httptest.Server) {
	t.Helper()
	cfg := testConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts
}

type result struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request; body, if not empty, is sent as JSON. key "" sends no
// Authorization header.
func do(t *testing.T, ts *httptest.Server, method, path, key, body string) result {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	target := path
	if !strings.HasPrefix(path, "http") {
		target = ts.URL + path
	}
	req, err := http.NewRequestWithContext(t.Context(), method, target, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return result{status: resp.StatusCode, header: resp.Header, body: b}
}

// submit posts a task with the default key and returns its ID.
func submit(t *testing.T, ts *httptest.Server, body string) string {
	t.Helper()
	return submitAs(t, ts, DefaultAPIKey, body)
}

func submitAs(t *testing.T, ts *httptest.Server, key, body string) string {
	t.Helper()
	res := do(t, ts, http.MethodPost, "/v1/video/generations", key, body)
	if res.status != http.StatusOK {
		t.Fatalf("submit %s: status %d: %s", body, res.status, res.body)
	}
	var sr struct {
		TaskID string `json:"task_id"`
		Status string `json:"status"`
	}
	mustDecode(t, res.body, &sr)
	if sr.Status != statusSubmitted || !strings.HasPrefix(sr.TaskID, "task_") {
		t.Fatalf("submit response %s", res.body)
	}
	return sr.TaskID
}

// taskJSON is the task object with every field a client might see.
type taskJSON struct {
	TaskID   string          `json:"task_id"`
	Status   string          `json:"status"`
	URL      string          `json:"url"`
	Format   string          `json:"format"`
	Metadata json.RawMessage `json:"metadata"`
	Error    *taskError      `json:"error"`
}

func getTask(t *testing.T, ts *httptest.Server, id string) taskJSON {
	t.Helper()
	res := do(t, ts, http.MethodGet, "/v1/video/generations/"+id, DefaultAPIKey, "")
	if res.status != http.StatusOK {
		t.Fatalf("GET task %s: status %d: %s", id, res.status, res.body)
	}
	var v taskJSON
	mustDecode(t, res.body, &v)
	return v
}

// waitFinal polls a task until it is final, failing after a generous deadline
// rather than sleeping a fixed time.
func waitFinal(t *testing.T, ts *httptest.Server, id string) taskJSON {
	t.Helper()
	return waitFor(t, func() (taskJSON, bool) {
		v := getTask(t, ts, id)
		return v, v.Status == statusSucceeded || v.Status == statusFailed
	})
}

func waitFor[T any](t *testing.T, cond func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, ok := cond()
		if ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("condition not met after 10s; last value %+v", v)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func mustDecode(t *testing.T, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// apiErr decodes an error body, failing the test if it isn't the documented
// shape.
func apiErr(t *testing.T, res result) apiError {
	t.Helper()
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("error Content-Type %q, body %s", ct, res.body)
	}
	var eb struct {
		Error *apiError `json:"error"`
	}
	mustDecode(t, res.body, &eb)
	if eb.Error == nil || eb.Error.Message == "" || eb.Error.Type == "" {
		t.Fatalf("malformed error body %s", res.body)
	}
	return *eb.Error
}

func ptr[T any](v T) *T { return &v }
