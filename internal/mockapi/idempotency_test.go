package mockapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// submitKeyed submits body with an Idempotency-Key and returns the task ID
// and the key the answer echoes.
func submitKeyed(t *testing.T, ts *httptest.Server, key, body string) (string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/v1/video/generations", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+DefaultAPIKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(IdempotencyKeyHeader, key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		TaskID string `json:"task_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.TaskID == "" {
		t.Fatalf("submit: status %d, %v", resp.StatusCode, err)
	}
	return out.TaskID, resp.Header.Get(IdempotencyKeyHeader)
}

// A submission sent again with its Idempotency-Key gets the first one's
// task, billed once, within the window; the answer echoes the key, which
// says the server deduplicates. Another request under the same key, a key
// past the window, a server that ignores keys and the new-api dialect each
// create a task again, and echo nothing where keys are ignored.
func TestIdempotencyKeyReturnsTheFirstTask(t *testing.T) {
	t.Parallel()
	const body = `{"model":"videogen-1","prompt":"a kept promise"}`
	srv, ts, clock := newClockedTestServer(t, func(c *Config) { c.IdempotencyWindow = Duration(time.Hour) })
	first, echoed := submitKeyed(t, ts, "key-1", body)
	if echoed != "key-1" {
		t.Errorf("the answer echoes %q, want the key", echoed)
	}
	again, _ := submitKeyed(t, ts, "key-1", body)
	l := srv.Ledger()
	if again != first || len(l.Tasks) != 1 || l.Tasks[0].Replays != 1 {
		t.Fatalf("the key sent again got task %s (first %s); the ledger holds %d tasks, %d replays; want the first task, 1 task, 1 replay",
			again, first, len(l.Tasks), l.Tasks[0].Replays)
	}
	if other, _ := submitKeyed(t, ts, "key-1", `{"model":"videogen-1","prompt":"another promise"}`); other == first {
		t.Error("another request under the same key got the first request's task")
	}
	clock.Add(2 * time.Hour)
	if late, _ := submitKeyed(t, ts, "key-1", body); late == first {
		t.Error("a key past its window still returned its task")
	}
	if n := len(srv.Ledger().Tasks); n != 3 {
		t.Fatalf("the ledger holds %d tasks, want 3", n)
	}

	srv.SetIgnoreIdempotencyKeys(true)
	a, echoed := submitKeyed(t, ts, "key-2", body)
	b, _ := submitKeyed(t, ts, "key-2", body)
	if a == b || echoed != "" {
		t.Errorf("a server that ignores keys answered %s and %s, echoing %q; want two tasks and no echo", a, b, echoed)
	}

	newAPI, nts := newTestServer(t, func(c *Config) { c.Dialect = DialectNewAPI })
	a, echoed = submitKeyed(t, nts, "key-3", body)
	b, _ = submitKeyed(t, nts, "key-3", body)
	if a == b || echoed != "" || len(newAPI.Ledger().Tasks) != 2 {
		t.Errorf("the new-api dialect answered %s and %s, echoing %q; want two tasks, as new-api ignores the key", a, b, echoed)
	}
}

// The answer to a repeated key can be lost like any: the gateway fault
// swallows it, and the key sent once more still gets the one task.
func TestIdempotencyKeyAfterALostAnswer(t *testing.T) {
	t.Parallel()
	const body = `{"model":"videogen-1","prompt":"an answer lost"}`
	srv, ts := newTestServer(t, func(c *Config) { c.GatewayFailuresAfterSubmit = 1 })
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/v1/video/generations", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+DefaultAPIKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(IdempotencyKeyHeader, "lost")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("the first answer is %d, want the gateway fault's 504", resp.StatusCode)
	}
	id, _ := submitKeyed(t, ts, "lost", body)
	if l := srv.Ledger(); len(l.Tasks) != 1 || l.Tasks[0].TaskID != id || l.Tasks[0].SubmitStatus != http.StatusOK {
		t.Fatalf("the ledger holds %+v, want the one task %s, its last answer 200", l.Tasks, id)
	}
}
