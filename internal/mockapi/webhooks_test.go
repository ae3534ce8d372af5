package mockapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

type delivery struct {
	contentType string
	body        string
}

// receiver is a webhook endpoint answering the given statuses in turn (200
// once they run out) and recording what it got.
type receiver struct {
	mu       sync.Mutex
	statuses []int
	got      []delivery
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got = append(rc.got, delivery{contentType: r.Header.Get("Content-Type"), body: string(b)})
	status := http.StatusOK
	if len(rc.statuses) > 0 {
		status, rc.statuses = rc.statuses[0], rc.statuses[1:]
	}
	rc.mu.Unlock()
	w.WriteHeader(status)
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

func startReceiver(t *testing.T, statuses ...int) (*receiver, string) {
	t.Helper()
	rc := &receiver{statuses: statuses}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	return rc, hook.URL + "/hook?token=abc"
}

func TestWebhookRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) {
		c.TaskDuration = Duration(50 * time.Millisecond)
		c.Webhook.InitialBackoff = Duration(20 * time.Millisecond)
	})
	rc, hookURL := startReceiver(t, http.StatusInternalServerError)
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p","metadata":{"callback_url":"`+hookURL+`"}}`)

	// No polling: the webhook must come from the timer alone.
	attempts := awaitWebhookAttempts(t, srv, id, 2)
	if attempts[0].Attempt != 1 || attempts[0].StatusCode != 500 || attempts[1].Attempt != 2 || attempts[1].StatusCode != 200 ||
		attempts[0].URL != hookURL || !attempts[1].At.After(attempts[0].At) {
		t.Errorf("attempts %+v", attempts)
	}
	if gap := attempts[1].At.Sub(attempts[0].At); gap < 20*time.Millisecond {
		t.Errorf("retry after %s, want at least the 20ms back-off", gap)
	}
	got := rc.deliveries()
	if len(got) != 2 || got[1].contentType != "application/json" {
		t.Fatalf("receiver got %+v", got)
	}
	if lt, _ := srv.Ledger().Task(id); lt.GetCount != 0 {
		t.Errorf("get_count %d: the test must not have polled", lt.GetCount)
	}
	// Same JSON as GET, bar the host the URL is built from.
	res := do(t, ts, http.MethodGet, "/v1/video/generations/"+id, DefaultAPIKey, "")
	if strings.TrimSpace(got[1].body) != strings.TrimSpace(string(res.body)) {
		t.Errorf("webhook body differs from GET:\n%s\n%s", got[1].body, res.body)
	}
	if got[0].body != got[1].body {
		t.Errorf("retries sent different bodies")
	}
}

func TestWebhookFailedTaskAndGiveUp(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) {
		c.TaskDuration = 0
		c.Webhook = Webhook{MaxAttempts: 3, InitialBackoff: Duration(time.Millisecond)}
	})
	rc, hookURL := startReceiver(t, 503, 503, 503, 503)
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:fail]","metadata":{"callback_url":"`+hookURL+`"}}`)
	// The task finishes on a timer, so the delivery may not have started yet:
	// wait for the attempts, then for the delivery to end, after which no
	// further attempt can come.
	awaitWebhookAttempts(t, srv, id, 3)
	awaitDeliveriesDone(t, srv)
	if n := len(webhooksOf(srv, id)); n != 3 {
		t.Errorf("ledger records %d attempts, want max_attempts 3", n)
	}
	if n := len(rc.deliveries()); n != 3 {
		t.Errorf("receiver got %d attempts, want max_attempts 3", n)
	}
	if body := rc.deliveries()[0].body; !strings.Contains(body, `"status":"failed"`) || !strings.Contains(body, "generation_failed") {
		t.Errorf("failed-task webhook body %s", body)
	}
}

func TestWebhookConnectionError(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL + "/hook"
	dead.Close()
	srv, ts := newTestServer(t, func(c *Config) {
		c.TaskDuration = 0
		c.Webhook = Webhook{MaxAttempts: 2, InitialBackoff: Duration(time.Millisecond)}
	})
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p","metadata":{"callback_url":"`+deadURL+`"}}`)
	awaitWebhookAttempts(t, srv, id, 2)
	awaitDeliveriesDone(t, srv)
	attempts := webhooksOf(srv, id)
	if len(attempts) != 2 {
		t.Errorf("%d attempts, want max_attempts 2: %+v", len(attempts), attempts)
	}
	for _, a := range attempts {
		if a.Error == "" || a.StatusCode != 0 {
			t.Errorf("attempt %+v: want a connection error and no status", a)
		}
	}
}

func TestNoWebhookWithoutCallback(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	if v := getTask(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"p","metadata":{"ratio":"1:1"}}`)); v.Status != statusSucceeded {
		t.Fatalf("status %s, want succeeded", v.Status)
	}
	// A delivery starts when the task becomes final, so by now it would
	// have been counted.
	srv.mu.Lock()
	started := srv.deliveriesStarted
	srv.mu.Unlock()
	if started != 0 {
		t.Errorf("%d webhook deliveries started without a callback_url", started)
	}
	if n := len(srv.Ledger().Webhooks); n != 0 {
		t.Errorf("%d webhook attempts without a callback_url", n)
	}
}

func TestCloseCancelsWebhooks(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) {
		c.TaskDuration = 0
		c.Webhook = Webhook{MaxAttempts: 5, InitialBackoff: Duration(time.Hour)}
	})
	rc, hookURL := startReceiver(t, 500)
	pending := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:hold]","metadata":{"callback_url":"`+hookURL+`"}}`)
	backingOff := submit(t, ts, `{"model":"videogen-1","prompt":"p","metadata":{"callback_url":"`+hookURL+`"}}`)
	awaitWebhookAttempts(t, srv, backingOff, 1)

	// Close while the pending task is held and the other task's delivery
	// sleeps in an hour-long back-off.
	done := make(chan struct{})
	go func() { srv.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(livenessBound):
		t.Fatal("Close blocked on a pending webhook back-off")
	}
	if n := len(rc.deliveries()); n != 1 {
		t.Errorf("receiver got %d deliveries, want the one before Close", n)
	}

	// The held task finishes after Close: it must not start a delivery.
	if !srv.FinishTask(pending) {
		t.Fatal("FinishTask of the held task returned false")
	}
	srv.mu.Lock()
	started := srv.deliveriesStarted
	srv.mu.Unlock()
	if started != 1 {
		t.Errorf("%d deliveries started, want only the one before Close", started)
	}
	if n := len(webhooksOf(srv, pending)); n != 0 {
		t.Errorf("a task finishing after Close sent %d webhooks", n)
	}
}
