package mockapi

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestFaults(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.FaultRate = 1; c.Seed = 3 })
	statuses := map[int]bool{}
	var html, jsonBodies int
	requests := []struct{ method, path, body string }{
		{http.MethodPost, "/v1/video/generations", `{"model":"videogen-1","prompt":"p"}`},
		{http.MethodGet, "/v1/models", ""},
		{http.MethodGet, "/v1/video/generations/task_x", ""},
	}
	for i := range 60 {
		rq := requests[i%len(requests)]
		res := do(t, ts, rq.method, rq.path, DefaultAPIKey, rq.body)
		statuses[res.status] = true
		// A gateway's page on a submission would tell the client that a task may
		// exist; the random faults create nothing, so they are the service's own.
		if rq.method == http.MethodPost && (res.status == http.StatusBadGateway || res.header.Get("Content-Type") != "application/json") {
			t.Errorf("submission fault %d %q: want the service's JSON 500 or 503", res.status, res.header.Get("Content-Type"))
		}
		switch ct := res.header.Get("Content-Type"); ct {
		case "text/html":
			html++
			want := fmt.Sprintf("<html><body><h1>%d %s</h1></body></html>\n", res.status, http.StatusText(res.status))
			if string(res.body) != want {
				t.Errorf("HTML fault body %q", res.body)
			}
		case "application/json":
			jsonBodies++
			if e := apiErr(t, res); e.Type != "server_error" {
				t.Errorf("JSON fault error %+v", e)
			}
		default:
			t.Errorf("fault Content-Type %q", ct)
		}
	}
	for s := range statuses {
		if s != 500 && s != 502 && s != 503 {
			t.Errorf("fault status %d", s)
		}
	}
	if len(statuses) != 3 || html == 0 || jsonBodies == 0 {
		t.Errorf("60 faults gave statuses %v, %d HTML and %d JSON bodies; want all kinds", statuses, html, jsonBodies)
	}

	// Faults never take effect, and never reach the mock's own endpoints.
	l := srv.Ledger()
	if len(l.Tasks) != 0 {
		t.Errorf("faulted submissions created %d tasks", len(l.Tasks))
	}
	if res := do(t, ts, http.MethodGet, "/_mock/ledger", "", ""); res.status != 200 {
		t.Errorf("ledger endpoint faulted: %d", res.status)
	}
	// Authentication comes before faults.
	if res := do(t, ts, http.MethodGet, "/v1/models", "", ""); res.status != 401 {
		t.Errorf("unauthenticated request: status %d, want 401 before fault injection", res.status)
	}
}

func TestFaultsDeterministic(t *testing.T) {
	t.Parallel()
	run := func(seed int64) []string {
		srv, ts := newTestServer(t, func(c *Config) { c.FaultRate = 0.5; c.Seed = seed; c.TaskDuration = 0 })
		var out []string
		for range 30 {
			res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, `{"model":"videogen-1","prompt":"p"}`)
			out = append(out, res.header.Get("Content-Type")+" "+string(res.body))
		}
		for _, lt := range srv.Ledger().Tasks {
			out = append(out, lt.TaskID)
		}
		return out
	}
	a := run(11)
	if b := run(11); !slices.Equal(a, b) {
		t.Errorf("same seed, different responses:\n%v\n%v", a, b)
	}
	if c := run(12); slices.Equal(a, c) {
		t.Error("different seeds gave identical fault sequences")
	}
	var ok int
	for _, s := range a {
		if strings.Contains(s, `"status":"submitted"`) {
			ok++
		}
	}
	if ok == 0 || ok == 30 {
		t.Errorf("fault rate 0.5 let %d of 30 requests through", ok)
	}
}
