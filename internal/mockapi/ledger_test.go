package mockapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestLedger(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = Duration(50 * time.Millisecond) })
	const md = `{ "ratio": "16:9",  "resolution":"720p" }`
	id := submit(t, ts, `{"model":"videogen-1","prompt":"a cat","seconds":"3","metadata":`+md+`}`)
	start := time.Now()
	getTask(t, ts, id)
	awaitFinal(t, srv, id)
	getTask(t, ts, id)
	do(t, ts, http.MethodGet, "/v1/models", "", "")
	do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, `{"model":"videogen-1"}`)
	do(t, ts, http.MethodGet, "/nowhere", "", "")

	l := srv.Ledger()
	lt, ok := l.Task(id)
	if !ok {
		t.Fatalf("task %s not in ledger", id)
	}
	if lt.Model != "videogen-1" || lt.Prompt != "a cat" || lt.Seconds != "3" || string(lt.Metadata) != md ||
		lt.Status != statusSucceeded || !lt.Billed || lt.Deleted {
		t.Errorf("ledger task %+v", lt)
	}
	if lt.SubmittedAt.After(start) || lt.FinalAt.Sub(lt.SubmittedAt) != 50*time.Millisecond {
		t.Errorf("submitted_at %s, final_at %s", lt.SubmittedAt, lt.FinalAt)
	}
	if lt.GetCount != 2 || lt.FinalObservedAt == nil || lt.FinalObservedAt.Before(lt.FinalAt) {
		t.Errorf("get_count %d, final_observed_at %v (final_at %s)", lt.GetCount, lt.FinalObservedAt, lt.FinalAt)
	}
	if len(lt.GetTimes) != 2 || lt.GetTimes[0].After(lt.FinalAt) || !lt.GetTimes[1].Equal(*lt.FinalObservedAt) {
		t.Errorf("get_times %v, want one before final_at %s and one at final_observed_at", lt.GetTimes, lt.FinalAt)
	}
	if _, ok := l.Task("task_nope"); ok {
		t.Error("Task found an unknown ID")
	}
	wantReq := map[string]int{
		"POST /v1/video/generations":          2,
		"GET /v1/models":                      1,
		unmatchedEndpoint:                     1,
		"GET /v1/video/generations/{task_id}": lt.GetCount,
	}
	for k, n := range wantReq {
		if l.Requests[k] != n {
			t.Errorf("requests[%q] = %d, want %d (all: %v)", k, l.Requests[k], n, l.Requests)
		}
	}
	if l.Responses["401"] != 1 || l.Responses["400"] != 1 || l.Responses["404"] != 1 || l.Responses["200"] != 1+lt.GetCount {
		t.Errorf("responses %v", l.Responses)
	}

	// Snapshots are deep copies.
	l.Tasks[0].Metadata[0] = 'X'
	l.Requests["GET /v1/models"] = 99
	*l.Tasks[0].FinalObservedAt = time.Time{}
	again := srv.Ledger()
	if string(again.Tasks[0].Metadata) != md || again.Requests["GET /v1/models"] != 1 || again.Tasks[0].FinalObservedAt.IsZero() {
		t.Error("mutating a snapshot changed the server's ledger")
	}
}

func TestLedgerEndpoint(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, func(c *Config) {
		c.Keys = append(c.Keys, Key{Key: "sk-very-secret"})
	})
	do(t, ts, http.MethodGet, "/_mock/ledger", "", "") // empty ledger: lists are [] not null
	first := do(t, ts, http.MethodGet, "/_mock/ledger", "", "")
	if !strings.Contains(string(first.body), `"tasks":[]`) || !strings.Contains(string(first.body), `"webhooks":[]`) {
		t.Errorf("empty ledger %s", first.body)
	}
	id := submitAs(t, ts, "sk-very-secret", `{"model":"videogen-1","prompt":"p","metadata":{"callback_url":"http://127.0.0.1:1/x"}}`)
	do(t, ts, http.MethodGet, "/v1/models", "wrong-secret", "")

	res := do(t, ts, http.MethodGet, "/_mock/ledger", "", "")
	if res.status != 200 || res.header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q", res.status, res.header.Get("Content-Type"))
	}
	var l Ledger
	mustDecode(t, res.body, &l)
	if _, ok := l.Task(id); !ok || l.Requests["GET /_mock/ledger"] != 3 || l.Responses["401"] != 1 {
		t.Errorf("ledger %s", res.body)
	}
	for _, secret := range []string{"sk-very-secret", "wrong-secret", DefaultAPIKey} {
		if strings.Contains(string(res.body), secret) {
			t.Errorf("ledger contains the key %q", secret)
		}
	}
}

func TestLedgerJSONShape(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	l := Ledger{
		Tasks: []LedgerTask{
			{TaskID: "task_1", Model: "m", Prompt: "p", Status: "running", SubmittedAt: at, SubmitStatus: 200, FinalAt: at},
			{TaskID: "task_2", Model: "m", Prompt: "p", Status: "running", Held: true, SubmittedAt: at, SubmitStatus: 504},
		},
		Requests:  map[string]int{"GET /v1/models": 1},
		Responses: map[string]int{"200": 1},
		Webhooks:  []WebhookAttempt{{TaskID: "task_1", URL: "http://x", Attempt: 1, StatusCode: 200, At: at}},
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"tasks":[{"task_id":"task_1","model":"m","prompt":"p","status":"running","billed":false,` +
		`"submitted_at":"2025-01-02T03:04:05Z","submit_status":200,"final_at":"2025-01-02T03:04:05Z","get_count":0},` +
		`{"task_id":"task_2","model":"m","prompt":"p","status":"running","billed":false,"held":true,` +
		`"submitted_at":"2025-01-02T03:04:05Z","submit_status":504,"final_at":"0001-01-01T00:00:00Z","get_count":0}],` +
		`"requests":{"GET /v1/models":1},"responses":{"200":1},` +
		`"webhooks":[{"task_id":"task_1","url":"http://x","attempt":1,"status_code":200,"at":"2025-01-02T03:04:05Z"}]}`
	if string(b) != want {
		t.Errorf("ledger JSON\n%s\nwant\n%s", b, want)
	}
}
