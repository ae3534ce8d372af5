package mockapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLifecycle(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, nil)
	const md = `{"resolution":"720p","ratio":"9:16"}`
	// One second leaves a 750ms running window, wide enough to observe on a
	// loaded machine.
	id := submit(t, ts, `{"model":"videogen-1","prompt":"a cat [mock:duration=1s]","seconds":"4","metadata":`+md+`}`)

	order := []string{statusSubmitted, statusRunning, statusSucceeded}
	var seen []string
	final := waitFor(t, func() (taskJSON, bool) {
		v := getTask(t, ts, id)
		if len(seen) == 0 || seen[len(seen)-1] != v.Status {
			seen = append(seen, v.Status)
		}
		if v.Status != statusSucceeded && v.URL != "" {
			t.Errorf("status %s carries a url", v.Status)
		}
		return v, v.Status == statusSucceeded
	})
	if !slices.Contains(seen, statusRunning) {
		t.Errorf("never saw running; statuses %v", seen)
	}
	for i := 1; i < len(seen); i++ {
		if slices.Index(order, seen[i]) <= slices.Index(order, seen[i-1]) {
			t.Errorf("statuses went backwards: %v", seen)
		}
	}
	if final.TaskID != id || final.Format != "mp4" || final.Error != nil || string(final.Metadata) != md {
		t.Errorf("final task %+v", final)
	}
	if !strings.HasPrefix(final.URL, ts.URL+"/_mock/clips/"+id+".mp4?sig=") {
		t.Errorf("url %q is not an absolute clip URL on %s", final.URL, ts.URL)
	}

	// The task object is spec 2.1 only: no echo of model, prompt or seconds.
	res := do(t, ts, http.MethodGet, "/v1/video/generations/"+id, DefaultAPIKey, "")
	var raw map[string]json.RawMessage
	mustDecode(t, res.body, &raw)
	for k := range raw {
		if !slices.Contains([]string{"task_id", "status", "url", "format", "metadata"}, k) {
			t.Errorf("task object has unexpected member %q: %s", k, res.body)
		}
	}
	if strings.Contains(string(res.body), `\u0026`) {
		t.Errorf("url is HTML-escaped: %s", res.body)
	}
}

func TestLifecycleStates(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })

	t.Run("zero duration is final at once", func(t *testing.T) {
		t.Parallel()
		id := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
		if v := getTask(t, ts, id); v.Status != statusSucceeded || v.Metadata != nil {
			t.Errorf("task %+v, want succeeded without metadata", v)
		}
	})
	t.Run("duration marker", func(t *testing.T) {
		t.Parallel()
		id := submit(t, ts, `{"model":"videogen-1","prompt":"slow [mock:duration=1h]"}`)
		if v := getTask(t, ts, id); v.Status != statusSubmitted {
			t.Errorf("status %s, want submitted", v.Status)
		}
		lt, _ := srv.Ledger().Task(id)
		if d := lt.FinalAt.Sub(lt.SubmittedAt); d != time.Hour {
			t.Errorf("final_at - submitted_at = %s, want 1h", d)
		}
	})
	t.Run("fail marker", func(t *testing.T) {
		t.Parallel()
		id := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:fail]"}`)
		v := getTask(t, ts, id)
		if v.Status != statusFailed || v.URL != "" || v.Error == nil || v.Error.Type != "generation_failed" || v.Error.Message == "" {
			t.Errorf("task %+v, want failed with a generation_failed error and no url", v)
		}
	})
	t.Run("html marker", func(t *testing.T) {
		t.Parallel()
		id := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:html]"}`)
		v := getTask(t, ts, id)
		res := do(t, ts, http.MethodGet, v.URL, "", "")
		if res.status != 200 || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(res.body), "<html>") {
			t.Errorf("clip: status %d, type %q, body %.40q", res.status, res.header.Get("Content-Type"), res.body)
		}
	})
}

func TestCustomFailMarker(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0; c.FailMarker = "BOOM" })
	if v := getTask(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"BOOM"}`)); v.Status != statusFailed {
		t.Errorf("status %s, want failed", v.Status)
	}
	if v := getTask(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"[mock:fail]"}`)); v.Status != statusSucceeded {
		t.Errorf("status %s, want succeeded: the default marker is replaced", v.Status)
	}
}

func TestTaskFailureRate(t *testing.T) {
	t.Parallel()
	run := func(seed int64) []string {
		_, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0; c.TaskFailureRate = 0.5; c.Seed = seed })
		var got []string
		for range 20 {
			got = append(got, getTask(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)).Status)
		}
		return got
	}
	a, b := run(42), run(42)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different outcomes:\n%v\n%v", a, b)
	}
	if !slices.Contains(a, statusFailed) || !slices.Contains(a, statusSucceeded) {
		t.Errorf("rate 0.5 over 20 tasks gave %v", a)
	}
	if c := run(43); slices.Equal(a, c) {
		t.Errorf("different seeds gave identical outcomes %v", a)
	}
}

func TestBilling(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) {
		c.TaskDuration = Duration(50 * time.Millisecond)
		c.Keys = append(c.Keys, Key{Key: "k", Balance: ptr[int64](12)})
	})
	ok := submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p","seconds":"5"}`)
	failed := submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p [mock:fail]","seconds":"5"}`)
	if lt, _ := srv.Ledger().Task(ok); lt.Billed {
		t.Errorf("task billed before it finished")
	}
	waitFinal(t, ts, ok)
	waitFinal(t, ts, failed)
	l := srv.Ledger()
	if lt, _ := l.Task(ok); !lt.Billed || lt.Status != statusSucceeded {
		t.Errorf("succeeded task: %+v", lt)
	}
	if lt, _ := l.Task(failed); lt.Billed || lt.Status != statusFailed {
		t.Errorf("failed task: %+v", lt)
	}

	// 12 - 5 = 7 left: 8 s is too much, 7 s (and then nothing) fits.
	res := do(t, ts, http.MethodPost, "/v1/video/generations", "k", `{"model":"videogen-1","prompt":"p","seconds":"8"}`)
	if e := apiErr(t, res); res.status != 403 || !strings.Contains(e.Message, "balance is 7") {
		t.Fatalf("status %d, error %+v; want 403 with balance 7", res.status, e)
	}
	waitFinal(t, ts, submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p","seconds":"7"}`))
	res = do(t, ts, http.MethodPost, "/v1/video/generations", "k", `{"model":"videogen-1","prompt":"p","seconds":"1"}`)
	if e := apiErr(t, res); res.status != 403 || e.Type != "insufficient_quota" {
		t.Fatalf("status %d, error %+v; want insufficient_quota", res.status, e)
	}
}

func TestBillingNotReserved(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) {
		c.TaskDuration = Duration(100 * time.Millisecond)
		c.Keys = append(c.Keys, Key{Key: "k", Balance: ptr[int64](5)})
	})
	// Both pass the submit check; only one can be paid for at completion.
	a := submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p"}`)
	b := submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p"}`)
	waitFor(t, func() (Ledger, bool) {
		l := srv.Ledger()
		ta, _ := l.Task(a)
		tb, _ := l.Task(b)
		return l, ta.FinalAt.Before(time.Now()) && tb.FinalAt.Before(time.Now())
	})
	l := srv.Ledger()
	ta, _ := l.Task(a)
	tb, _ := l.Task(b)
	if ta.Billed == tb.Billed || (ta.Status == statusSucceeded) != ta.Billed || (tb.Status == statusSucceeded) != tb.Billed {
		t.Errorf("want exactly one billed success and one unbilled failure: %+v / %+v", ta, tb)
	}
	loser := b
	if tb.Billed {
		loser = a
	}
	if v := getTask(t, ts, loser); v.Error == nil || !strings.Contains(v.Error.Message, "insufficient balance") {
		t.Errorf("unpaid task %+v", v)
	}
}

func TestDeleteTask(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = Duration(50 * time.Millisecond) })
	viaGo := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:duration=1h]"}`)
	viaHTTP := waitFinal(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"p"}`))

	if !srv.DeleteTask(viaGo) {
		t.Fatal("DeleteTask of an existing task returned false")
	}
	if srv.DeleteTask("task_nope") {
		t.Error("DeleteTask of an unknown task returned true")
	}
	if res := do(t, ts, http.MethodDelete, "/_mock/tasks/"+viaHTTP.TaskID, "", ""); res.status != http.StatusNoContent {
		t.Fatalf("DELETE: status %d: %s", res.status, res.body)
	}
	if res := do(t, ts, http.MethodDelete, "/_mock/tasks/task_nope", "", ""); res.status != http.StatusNotFound {
		t.Errorf("DELETE unknown: status %d", res.status)
	}
	for _, id := range []string{viaGo, viaHTTP.TaskID} {
		res := do(t, ts, http.MethodGet, "/v1/video/generations/"+id, DefaultAPIKey, "")
		if e := apiErr(t, res); res.status != 404 || e.Type != "not_found_error" || !strings.Contains(e.Message, "unknown task id") {
			t.Errorf("GET deleted %s: status %d, error %+v", id, res.status, e)
		}
	}
	if res := do(t, ts, http.MethodGet, viaHTTP.URL, "", ""); res.status != http.StatusNotFound {
		t.Errorf("clip of a deleted task: status %d", res.status)
	}
	l := srv.Ledger()
	if lt, _ := l.Task(viaGo); !lt.Deleted || lt.Status != statusSubmitted || lt.Billed {
		t.Errorf("deleted pending task in ledger: %+v", lt)
	}
	if lt, _ := l.Task(viaHTTP.TaskID); !lt.Deleted || lt.Status != statusSucceeded || !lt.Billed {
		t.Errorf("deleted finished task in ledger: %+v", lt)
	}
}

func TestTaskIDsDeterministic(t *testing.T) {
	t.Parallel()
	ids := func(seed int64) []string {
		_, ts := newTestServer(t, func(c *Config) { c.Seed = seed })
		var out []string
		for range 5 {
			out = append(out, submit(t, ts, `{"model":"videogen-1","prompt":"p"}`))
		}
		return out
	}
	a := ids(1)
	if b := ids(1); !slices.Equal(a, b) {
		t.Errorf("same seed, different IDs:\n%v\n%v", a, b)
	}
	if c := ids(2); slices.Equal(a, c) {
		t.Errorf("different seeds, same IDs %v", a)
	}
	for _, id := range a {
		if len(id) != len("task_")+32 || strings.Trim(id[5:], "0123456789abcdef") != "" {
			t.Errorf("task ID %q is not task_<32 hex>", id)
		}
	}
}
