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
	// An hour-long task on a fake clock: its timer never fires during the
	// test, so only the clock decides what each GET sees.
	_, ts, clock := newClockedTestServer(t, nil)
	const md = `{"resolution":"720p","ratio":"9:16"}`
	id := submit(t, ts, `{"model":"videogen-1","prompt":"a cat [mock:duration=1h]","seconds":"4","metadata":`+md+`}`)

	steps := []struct {
		advance time.Duration
		want    string
	}{
		{0, statusSubmitted},
		{15*time.Minute - time.Nanosecond, statusSubmitted},
		{time.Nanosecond, statusRunning},                  // 25% of the duration
		{45*time.Minute - time.Nanosecond, statusRunning}, // just before the end
		{time.Nanosecond, statusSucceeded},
		{time.Hour, statusSucceeded},
	}
	var final taskJSON
	for i, st := range steps {
		clock.Add(st.advance)
		v := getTask(t, ts, id)
		if v.Status != st.want {
			t.Fatalf("step %d: status %s, want %s", i, v.Status, st.want)
		}
		if v.Status != statusSucceeded && v.URL != "" {
			t.Errorf("status %s carries a url", v.Status)
		}
		final = v
	}
	if final.TaskID != id || final.Format != "mp4" || final.Error != nil || string(final.Metadata) != md {
		t.Errorf("final task %+v", final)
	}
	if !strings.HasPrefix(final.URL, ts.URL+"/_mock/clips/"+id+".mp4?sig=") {
		t.Errorf("url %q is not an absolute clip URL on %s", final.URL, ts.URL)
	}

	// The task object carries only what the service returns: no echo of
	// model, prompt or seconds, which clients must keep themselves.
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
		c.TaskDuration = 0
		c.Keys = append(c.Keys, Key{Key: "k", Balance: ptr[int64](12)})
	})
	ok := submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p [mock:hold]","seconds":"5"}`)
	failed := submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p [mock:fail]","seconds":"5"}`)
	if lt, _ := srv.Ledger().Task(ok); lt.Billed || lt.Status != statusRunning {
		t.Errorf("held task %+v: want running and not billed before it finished", lt)
	}
	if !srv.FinishTask(ok) {
		t.Fatal("FinishTask of the held task returned false")
	}
	awaitFinal(t, srv, failed)
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
	awaitFinal(t, srv, submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p","seconds":"7"}`))
	res = do(t, ts, http.MethodPost, "/v1/video/generations", "k", `{"model":"videogen-1","prompt":"p","seconds":"1"}`)
	if e := apiErr(t, res); res.status != 403 || e.Type != "insufficient_quota" {
		t.Fatalf("status %d, error %+v; want insufficient_quota", res.status, e)
	}
}

func TestBillingNotReserved(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) {
		c.HoldTasks = true
		c.Keys = append(c.Keys, Key{Key: "k", Balance: ptr[int64](5)})
	})
	// Both pass the submit check; only the first to finish can be paid for.
	a := submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p"}`)
	b := submitAs(t, ts, "k", `{"model":"videogen-1","prompt":"p"}`)
	if !srv.FinishTask(a) || !srv.FinishTask(b) {
		t.Fatal("FinishTask of a held task returned false")
	}
	l := srv.Ledger()
	if ta, _ := l.Task(a); !ta.Billed || ta.Status != statusSucceeded {
		t.Errorf("first task %+v: want a billed success", ta)
	}
	if tb, _ := l.Task(b); tb.Billed || tb.Status != statusFailed {
		t.Errorf("second task %+v: want an unbilled failure", tb)
	}
	if v := getTask(t, ts, b); v.Error == nil || !strings.Contains(v.Error.Message, "insufficient balance") {
		t.Errorf("unpaid task %+v", v)
	}
	srv.mu.Lock()
	balance := *srv.keys["k"].Balance
	srv.mu.Unlock()
	if balance != 0 {
		t.Errorf("balance %d after one paid task, want 0", balance)
	}
}

func TestDeleteTask(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	viaGo := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:duration=1h]"}`)
	viaHTTP := getTask(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"p"}`))

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
	// Without a seed every start draws its own: no ID repeats across
	// restarts, and the drawn seed repeats the run.
	var seeds []int64
	unseeded := func() []string {
		srv, ts := newTestServer(t, func(c *Config) { c.Seed = 0 })
		seeds = append(seeds, srv.Seed())
		return []string{submit(t, ts, `{"model":"videogen-1","prompt":"p"}`), submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)}
	}
	first, second := unseeded(), unseeded()
	if slices.ContainsFunc(first, func(id string) bool { return slices.Contains(second, id) }) || seeds[0] == seeds[1] || seeds[0] == 0 {
		t.Errorf("two unseeded starts (seeds %v) gave IDs %v and %v", seeds, first, second)
	}
	if again := ids(seeds[0]); !slices.Equal(again[:2], first) {
		t.Errorf("the drawn seed %d gave %v, the run it was drawn for %v", seeds[0], again[:2], first)
	}
	for _, id := range a {
		if len(id) != len("task_")+32 || strings.Trim(id[5:], "0123456789abcdef") != "" {
			t.Errorf("task ID %q is not task_<32 hex>", id)
		}
	}
}
