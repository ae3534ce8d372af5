package mockapi

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A clip whose storage expired: the task still answers succeeded with a URL,
// but no URL of the clip, old or fresh, serves it again; billing is kept.
func TestExpireClip(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	before := getTask(t, ts, id)
	if res := do(t, ts, http.MethodGet, before.URL, "", ""); res.status != http.StatusOK {
		t.Fatalf("clip before expiry: status %d", res.status)
	}
	if res := do(t, ts, http.MethodPost, "/_mock/tasks/"+id+"/expire-clip", "", ""); res.status != http.StatusNoContent {
		t.Fatalf("POST expire-clip: status %d: %s", res.status, res.body)
	}
	after := getTask(t, ts, id)
	if after.Status != statusSucceeded || after.URL == "" {
		t.Fatalf("task after its clip expired: %+v; want it still succeeded with a url", after)
	}
	for _, u := range []string{before.URL, after.URL} {
		res := do(t, ts, http.MethodGet, u, "", "")
		if res.status != http.StatusForbidden || !strings.Contains(string(res.body), "AccessDenied") {
			t.Errorf("GET %s after expire-clip: status %d %s; want 403 AccessDenied", u, res.status, res.body)
		}
	}
	srv.ExpireURLs()
	if res := do(t, ts, http.MethodGet, getTask(t, ts, id).URL, "", ""); res.status != http.StatusForbidden {
		t.Errorf("a URL signed after ExpireURLs: status %d; want 403 for ever", res.status)
	}
	lt, _ := srv.Ledger().Task(id)
	if !lt.ClipExpired || lt.Deleted || !lt.Billed {
		t.Errorf("ledger task %+v: want clip_expired, not deleted, billed", lt)
	}
}

func TestExpireClipAnswers(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	held := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:hold]"}`)
	if res := do(t, ts, http.MethodPost, "/_mock/tasks/"+held+"/expire-clip", "", ""); res.status != http.StatusConflict {
		t.Errorf("expire-clip of a running task: status %d; want 409", res.status)
	}
	if res := do(t, ts, http.MethodPost, "/_mock/tasks/task_nope/expire-clip", "", ""); res.status != http.StatusNotFound {
		t.Errorf("expire-clip of an unknown task: status %d; want 404", res.status)
	}
	if res := do(t, ts, http.MethodGet, "/_mock/tasks/"+held+"/expire-clip", "", ""); res.status != http.StatusMethodNotAllowed {
		t.Errorf("GET expire-clip: status %d; want 405", res.status)
	}
	gone := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	srv.DeleteTask(gone)
	if srv.ExpireClip(gone) {
		t.Error("ExpireClip of a deleted task reported true")
	}
}

// Behind the key (new-api's Sora and Veo channels, OpenAI's content) an
// expired clip is 404, while the video itself still answers.
func TestExpireClipKeyed(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0; c.KeyedClips = true })
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	u := getTask(t, ts, id).URL
	if res := do(t, ts, http.MethodGet, u, DefaultAPIKey, ""); res.status != http.StatusOK {
		t.Fatalf("keyed clip: status %d", res.status)
	}
	if !srv.ExpireClip(id) {
		t.Fatal("ExpireClip reported false for a succeeded task")
	}
	if res := do(t, ts, http.MethodGet, u, DefaultAPIKey, ""); res.status != http.StatusNotFound {
		t.Errorf("keyed clip after ExpireClip: status %d; want 404", res.status)
	}
	if v := getTask(t, ts, id); v.Status != statusSucceeded {
		t.Errorf("task after ExpireClip: %+v", v)
	}
}

// Config.TaskRetention forgets a final task once it has passed, as DeleteTask
// does; a held task is never forgotten, since it has not ended.
func TestTaskRetention(t *testing.T) {
	t.Parallel()
	srv, ts, clock := newClockedTestServer(t, func(c *Config) { c.TaskDuration = 0; c.TaskRetention = Duration(24 * time.Hour) })
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	held := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:hold]"}`)
	clock.Add(24*time.Hour - time.Second)
	if v := getTask(t, ts, id); v.Status != statusSucceeded {
		t.Fatalf("task a second before its retention ends: %+v", v)
	}
	clock.Add(time.Second)
	if res := do(t, ts, http.MethodGet, "/v1/video/generations/"+id, DefaultAPIKey, ""); res.status != http.StatusNotFound {
		t.Errorf("task after its retention: status %d; want 404", res.status)
	}
	if v := getTask(t, ts, held); v.Status != statusRunning {
		t.Errorf("held task: %+v; want it kept while running", v)
	}
	lt, _ := srv.Ledger().Task(id)
	if !lt.Deleted || !lt.Billed || lt.Status != statusSucceeded {
		t.Errorf("ledger task %+v: want deleted, billed, succeeded", lt)
	}
}

// Config.ClipRetention expires the clip's storage, not the task.
func TestClipRetention(t *testing.T) {
	t.Parallel()
	srv, ts, clock := newClockedTestServer(t, func(c *Config) { c.TaskDuration = 0; c.ClipRetention = Duration(time.Hour) })
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	u := getTask(t, ts, id).URL
	clock.Add(time.Hour - time.Second)
	if res := do(t, ts, http.MethodHead, u, "", ""); res.status != http.StatusOK {
		t.Fatalf("clip a second before its retention ends: status %d", res.status)
	}
	clock.Add(time.Second)
	if res := do(t, ts, http.MethodGet, getTask(t, ts, id).URL, "", ""); res.status != http.StatusForbidden {
		t.Errorf("clip after its retention: status %d; want 403", res.status)
	}
	if lt, _ := srv.Ledger().Task(id); !lt.ClipExpired || lt.Deleted {
		t.Errorf("ledger task %+v: want clip_expired and not deleted", lt)
	}
}

func TestRetentionMustNotBeNegative(t *testing.T) {
	t.Parallel()
	for _, mutate := range []func(*Config){
		func(c *Config) { c.TaskRetention = -1 },
		func(c *Config) { c.ClipRetention = -1 },
	} {
		cfg := testConfig()
		mutate(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "retention") {
			t.Errorf("New: %v; want an error naming the retention", err)
		}
	}
}
