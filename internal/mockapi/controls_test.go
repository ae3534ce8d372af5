package mockapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestHoldAndFinishTask(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:hold]"}`)

	// A zero duration would make the task final at once; held, it runs.
	if v := getTask(t, ts, id); v.Status != statusRunning || v.URL != "" {
		t.Fatalf("held task %+v, want running without a url", v)
	}
	if lt, _ := srv.Ledger().Task(id); !lt.Held || lt.Billed || !lt.FinalAt.IsZero() || lt.Status != statusRunning {
		t.Errorf("held task in ledger %+v", lt)
	}
	if !srv.FinishTask(id) {
		t.Fatal("FinishTask of a held task returned false")
	}
	v := getTask(t, ts, id)
	if v.Status != statusSucceeded || v.URL == "" || v.Error != nil {
		t.Fatalf("finished task %+v, want succeeded with a url", v)
	}
	if res := do(t, ts, http.MethodGet, v.URL, "", ""); res.status != 200 {
		t.Errorf("clip of the finished task: status %d", res.status)
	}
	lt, _ := srv.Ledger().Task(id)
	if lt.Held || !lt.Billed || lt.FinalAt.IsZero() || lt.FinalAt.Before(lt.SubmittedAt) {
		t.Errorf("finished task in ledger %+v", lt)
	}
	if srv.FinishTask(id) || srv.FailTask(id, "") {
		t.Error("a final task was released again")
	}
	if again, _ := srv.Ledger().Task(id); again.Status != statusSucceeded || !again.Billed {
		t.Errorf("releasing a final task changed it: %+v", again)
	}
}

func TestHoldTasksAndFailTask(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0; c.HoldTasks = true })
	withReason := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	withoutReason := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	for _, id := range []string{withReason, withoutReason} {
		if v := getTask(t, ts, id); v.Status != statusRunning {
			t.Fatalf("task %s under HoldTasks is %s, want running", id, v.Status)
		}
	}
	if !srv.FailTask(withReason, "the GPU melted") || !srv.FailTask(withoutReason, "") {
		t.Fatal("FailTask of a held task returned false")
	}
	if v := getTask(t, ts, withReason); v.Status != statusFailed || v.Error == nil ||
		v.Error.Message != "the GPU melted" || v.Error.Type != "generation_failed" || v.URL != "" {
		t.Errorf("failed task %+v", v)
	}
	if v := getTask(t, ts, withoutReason); v.Error == nil || v.Error.Message != defaultFailTaskReason {
		t.Errorf("failed task without a reason %+v", v)
	}
	for _, lt := range srv.Ledger().Tasks {
		if lt.Billed || lt.Held || lt.Status != statusFailed {
			t.Errorf("failed task in ledger %+v", lt)
		}
	}
}

func TestFinishTaskOverridesDurationAndMarkers(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	slow := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:duration=1h]"}`)
	doomed := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:fail] [mock:hold]"}`)
	failedEarly := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:duration=1h]"}`)
	deleted := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:hold]"}`)
	srv.DeleteTask(deleted)

	if !srv.FinishTask(slow) || !srv.FinishTask(doomed) || !srv.FailTask(failedEarly, "stopped") {
		t.Fatal("releasing a pending task returned false")
	}
	if v := getTask(t, ts, slow); v.Status != statusSucceeded {
		t.Errorf("an hour-long task after FinishTask is %s", v.Status)
	}
	if v := getTask(t, ts, doomed); v.Status != statusSucceeded {
		t.Errorf("a [mock:fail] task after FinishTask is %s, want succeeded", v.Status)
	}
	if v := getTask(t, ts, failedEarly); v.Status != statusFailed {
		t.Errorf("an hour-long task after FailTask is %s", v.Status)
	}
	if srv.FinishTask(deleted) || srv.FailTask(deleted, "") || srv.FinishTask("task_nope") || srv.FailTask("task_nope", "") {
		t.Error("releasing a deleted or unknown task returned true")
	}
	if lt, _ := srv.Ledger().Task(deleted); !lt.Deleted || lt.Billed || lt.Status != statusRunning {
		t.Errorf("deleted held task %+v", lt)
	}
}

func TestFinishTaskSendsWebhook(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, nil)
	rc, hookURL := startReceiver(t)
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:hold]","metadata":{"callback_url":"`+hookURL+`"}}`)
	srv.mu.Lock()
	started := srv.deliveriesStarted
	srv.mu.Unlock()
	if started != 0 {
		t.Fatalf("a held task started %d webhook deliveries", started)
	}
	srv.FinishTask(id)
	attempts := awaitWebhookAttempts(t, srv, id, 1)
	if attempts[0].StatusCode != http.StatusOK {
		t.Errorf("attempt %+v", attempts[0])
	}
	if got := rc.deliveries(); len(got) != 1 || !strings.Contains(got[0].body, `"status":"succeeded"`) {
		t.Errorf("receiver got %+v", got)
	}
}

func TestFinishTaskBillsLikeAnyCompletion(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) {
		c.HoldTasks = true
		c.Keys = append(c.Keys, Key{Key: "k", Balance: ptr[int64](7)})
	})
	id := submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p","seconds":"3"}`)
	srv.FinishTask(id)
	srv.mu.Lock()
	balance := *srv.keys["k"].Balance
	srv.mu.Unlock()
	if balance != 4 {
		t.Errorf("balance %d after a 3 s clip from 7, want 4", balance)
	}
}

func TestAwaitTasks(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)

	// With a context that has already ended, the answer is whatever holds now.
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if err := srv.AwaitTasks(ended, 1); err != nil {
		t.Errorf("AwaitTasks(1) with 1 task: %v", err)
	}
	err := srv.AwaitTasks(ended, 2)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "waiting for 2 task(s), 1 received") {
		t.Errorf("AwaitTasks(2) with 1 task: %v", err)
	}

	// A waiter blocks until the submission it waits for arrives.
	done := make(chan error, 1)
	go func() { done <- srv.AwaitTasks(t.Context(), 3) }()
	submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	if err := <-done; err != nil {
		t.Errorf("AwaitTasks(3): %v", err)
	}
	if n := len(srv.Ledger().Tasks); n != 3 {
		t.Errorf("AwaitTasks(3) returned with %d tasks", n)
	}

	// Rejected submissions are not tasks.
	do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, `{"model":"videogen-1"}`)
	if err := srv.AwaitTasks(ended, 4); err == nil {
		t.Error("a rejected submission counted as a task")
	}
}

func TestAwaitGets(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if err := srv.AwaitGets(ended, "task_nope", 1); err == nil || !strings.Contains(err.Error(), "0 made") {
		t.Errorf("AwaitGets of an unknown task: %v", err)
	}

	id := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:hold]"}`)
	done := make(chan error, 1)
	go func() { done <- srv.AwaitGets(t.Context(), id, 2) }()
	getTask(t, ts, id)
	if err := srv.AwaitGets(ended, id, 2); err == nil {
		t.Error("AwaitGets(2) succeeded after one GET")
	}
	// A GET after deletion (answered 404) still counts as a read.
	srv.DeleteTask(id)
	if res := do(t, ts, http.MethodGet, "/v1/video/generations/"+id, DefaultAPIKey, ""); res.status != http.StatusNotFound {
		t.Fatalf("GET of a deleted task: status %d", res.status)
	}
	if err := <-done; err != nil {
		t.Errorf("AwaitGets(2): %v", err)
	}
	if lt, _ := srv.Ledger().Task(id); lt.GetCount != 2 {
		t.Errorf("get_count %d, want 2", lt.GetCount)
	}
}

func TestAwaitEndsWithContext(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.AwaitTasks(ctx, 1) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("AwaitTasks after cancel: %v", err)
	}
}

func TestGatewayFailuresAfterSubmit(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0; c.GatewayFailuresAfterSubmit = 2 })
	const body = `{"model":"videogen-1","prompt":"p"}`

	// A rejected submission creates no task and does not use up a failure.
	if res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, `{"model":"videogen-1"}`); res.status != 400 {
		t.Fatalf("invalid submission: status %d", res.status)
	}
	for i := range 2 {
		res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, body)
		if res.status != http.StatusGatewayTimeout || res.header.Get("Content-Type") != "text/html" ||
			string(res.body) != gatewayTimeoutPage {
			t.Fatalf("submission %d: status %d, type %q, body %q; want the gateway's 504 page", i, res.status, res.header.Get("Content-Type"), res.body)
		}
	}
	third := submit(t, ts, body)

	l := srv.Ledger()
	if len(l.Tasks) != 3 || l.Responses["504"] != 2 {
		t.Fatalf("ledger has %d tasks and %d 504s, want 3 and 2", len(l.Tasks), l.Responses["504"])
	}
	for i, lt := range l.Tasks {
		want := http.StatusGatewayTimeout
		if i == 2 {
			want = http.StatusOK
		}
		if lt.SubmitStatus != want {
			t.Errorf("task %d submit_status %d, want %d", i, lt.SubmitStatus, want)
		}
	}
	// The hidden tasks are real: they run, succeed and are billed.
	for _, lt := range l.Tasks {
		if v := getTask(t, ts, lt.TaskID); v.Status != statusSucceeded {
			t.Errorf("task %s behind a 504 is %s", lt.TaskID, v.Status)
		}
	}
	if lt, _ := srv.Ledger().Task(l.Tasks[0].TaskID); !lt.Billed {
		t.Errorf("task behind a 504 not billed: %+v", lt)
	}

	srv.SetGatewayFailuresAfterSubmit(-1)
	for range 3 {
		if res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, body); res.status != http.StatusGatewayTimeout {
			t.Errorf("with failures -1: status %d, want 504 every time", res.status)
		}
	}
	srv.SetGatewayFailuresAfterSubmit(0)
	last := submit(t, ts, body)
	if n := len(srv.Ledger().Tasks); n != 7 {
		t.Errorf("%d tasks, want 7: every accepted submission creates one", n)
	}
	if lt, _ := srv.Ledger().Task(last); lt.SubmitStatus != http.StatusOK || third == last {
		t.Errorf("after turning the fault off: %+v", lt)
	}
}

func TestGatewayFailuresEveryTime(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.GatewayFailuresAfterSubmit = -1 })
	for range 3 {
		if res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, `{"model":"videogen-1","prompt":"p"}`); res.status != http.StatusGatewayTimeout {
			t.Fatalf("status %d, want 504", res.status)
		}
	}
	for _, lt := range srv.Ledger().Tasks {
		if lt.SubmitStatus != http.StatusGatewayTimeout {
			t.Errorf("task %+v", lt)
		}
	}
	if n := len(srv.Ledger().Tasks); n != 3 {
		t.Errorf("%d tasks, want 3", n)
	}
}

func TestReleaseEndpoints(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0; c.HoldTasks = true })
	finished := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	failed := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	plain := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)

	if res := do(t, ts, http.MethodPost, "/_mock/tasks/"+finished+"/finish", "", ""); res.status != http.StatusNoContent {
		t.Fatalf("finish: status %d: %s", res.status, res.body)
	}
	if res := do(t, ts, http.MethodPost, "/_mock/tasks/"+failed+"/fail", "", `{"reason":"out of GPUs"}`); res.status != http.StatusNoContent {
		t.Fatalf("fail: status %d: %s", res.status, res.body)
	}
	if res := do(t, ts, http.MethodPost, "/_mock/tasks/"+plain+"/fail", "", ""); res.status != http.StatusNoContent {
		t.Fatalf("fail without a body: status %d: %s", res.status, res.body)
	}
	if v := getTask(t, ts, finished); v.Status != statusSucceeded {
		t.Errorf("finished task is %s", v.Status)
	}
	if v := getTask(t, ts, failed); v.Status != statusFailed || v.Error == nil || v.Error.Message != "out of GPUs" {
		t.Errorf("failed task %+v", v)
	}
	if v := getTask(t, ts, plain); v.Error == nil || v.Error.Message != defaultFailTaskReason {
		t.Errorf("failed task without a reason %+v", v)
	}

	cases := []struct {
		name, method, path, body string
		status                   int
	}{
		{"already final", http.MethodPost, "/_mock/tasks/" + finished + "/finish", "", http.StatusConflict},
		{"unknown", http.MethodPost, "/_mock/tasks/task_nope/fail", "", http.StatusNotFound},
		{"reason not a string", http.MethodPost, "/_mock/tasks/task_nope/fail", `{"reason":3}`, http.StatusBadRequest},
		{"unexpected member", http.MethodPost, "/_mock/tasks/task_nope/fail", `{"why":"x"}`, http.StatusBadRequest},
		{"not JSON", http.MethodPost, "/_mock/tasks/task_nope/fail", `reason`, http.StatusBadRequest},
		{"wrong method", http.MethodGet, "/_mock/tasks/" + finished + "/finish", "", http.StatusMethodNotAllowed},
	}
	for _, c := range cases {
		res := do(t, ts, c.method, c.path, "", c.body)
		if res.status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, res.status, c.status, res.body)
			continue
		}
		apiErr(t, res)
	}
	if srv.Ledger().Requests["POST /_mock/tasks/{task_id}/finish"] != 2 {
		t.Errorf("requests %v", srv.Ledger().Requests)
	}
}

// TestAwaitWakesOnTimer guards the notification behind AwaitTasks and the
// test helpers: a task finalised by its timer alone must wake a waiter.
func TestAwaitWakesOnTimer(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = Duration(time.Millisecond) })
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	awaitServer(t, srv, "the timer finalised the task", func() bool { return srv.tasks[id].final })
	if lt, _ := srv.Ledger().Task(id); lt.GetCount != 0 || !lt.Billed {
		t.Errorf("task %+v: want billed by its timer, never read", lt)
	}
}

func TestAwaitWebhooks(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) {
		c.TaskDuration = 0
		c.HoldTasks = true
		c.Webhook = Webhook{MaxAttempts: 2, InitialBackoff: Duration(time.Millisecond)}
	})
	_, hookURL := startReceiver(t, http.StatusBadGateway)
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p","metadata":{"callback_url":"`+hookURL+`"}}`)
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if err := srv.AwaitWebhooks(ended, id, 1); err == nil || !strings.Contains(err.Error(), "0 made") {
		t.Errorf("AwaitWebhooks before the task finished: %v", err)
	}
	srv.FinishTask(id)
	if err := srv.AwaitWebhooks(t.Context(), id, 2); err != nil {
		t.Fatal(err)
	}
	if a := webhooksOf(srv, id); len(a) != 2 || a[0].StatusCode != http.StatusBadGateway || a[1].StatusCode != http.StatusOK {
		t.Errorf("attempts %+v", a)
	}
}

// TestSetKeyRevoked: a key revoked while serving is refused, with the
// revocation's own words, and works again once restored; an unknown key is
// reported.
func TestSetKeyRevoked(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, nil)
	if srv.SetKeyRevoked("no-such-key", true) {
		t.Error("SetKeyRevoked of an unknown key reported true")
	}
	if !srv.SetKeyRevoked(DefaultAPIKey, true) {
		t.Fatal("SetKeyRevoked of the default key reported false")
	}
	if res := do(t, ts, http.MethodGet, "/v1/models", DefaultAPIKey, ""); res.status != http.StatusUnauthorized ||
		!strings.Contains(string(res.body), "revoked") {
		t.Fatalf("a revoked key: %d %s, want 401 saying it was revoked", res.status, res.body)
	}
	srv.SetKeyRevoked(DefaultAPIKey, false)
	if res := do(t, ts, http.MethodGet, "/v1/models", DefaultAPIKey, ""); res.status != http.StatusOK {
		t.Fatalf("a restored key: %d %s, want 200", res.status, res.body)
	}
}
