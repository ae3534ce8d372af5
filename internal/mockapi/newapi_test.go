package mockapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// newAPITestServer is newTestServer speaking the new-api dialect.
func newAPITestServer(t *testing.T, mutate func(*Config)) (*Server, *httptest.Server) {
	t.Helper()
	return newTestServer(t, func(c *Config) {
		WithDialect(DialectNewAPI)(c)
		if mutate != nil {
			mutate(c)
		}
	})
}

// newAPISubmit posts a task and returns its ID, checking that the answer is
// exactly new-api's: the task ID and nothing else.
func newAPISubmit(t *testing.T, ts *httptest.Server, body string) string {
	t.Helper()
	res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, body)
	var answer map[string]string
	mustDecode(t, res.body, &answer)
	if res.status != http.StatusOK || len(answer) != 1 || answer["task_id"] == "" {
		t.Fatalf("submit %s: status %d, body %s; want 200 with only a task_id", body, res.status, res.body)
	}
	return answer["task_id"]
}

// newAPIRecord is the task record in the envelope, with the raw upstream
// record decoded.
type newAPIRecord struct {
	newAPITask
	raw map[string]json.RawMessage
	rec ArkTask
}

func newAPIGet(t *testing.T, ts *httptest.Server, id string) newAPIRecord {
	t.Helper()
	res := do(t, ts, http.MethodGet, "/v1/video/generations/"+id, DefaultAPIKey, "")
	if res.status != http.StatusOK {
		t.Fatalf("GET %s: status %d: %s", id, res.status, res.body)
	}
	var env struct {
		Code    string                     `json:"code"`
		Message *string                    `json:"message"`
		Data    map[string]json.RawMessage `json:"data"`
	}
	mustDecode(t, res.body, &env)
	if env.Code != "success" || env.Message == nil || *env.Message != "" {
		t.Fatalf("envelope %s: want code success and an empty message", res.body)
	}
	want := []string{"task_id", "action", "status", "fail_reason", "submit_time", "start_time", "finish_time", "progress", "data"}
	if len(env.Data) != len(want) {
		t.Errorf("task record has members %v, want exactly %v: %s", keys(env.Data), want, res.body)
	}
	for _, k := range want {
		if _, ok := env.Data[k]; !ok {
			t.Errorf("task record lacks %q: %s", k, res.body)
		}
	}
	var out newAPIRecord
	b, _ := json.Marshal(env.Data)
	mustDecode(t, b, &out.newAPITask)
	mustDecode(t, out.Data, &out.raw)
	mustDecode(t, out.Data, &out.rec)
	return out
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestNewAPILifecycle(t *testing.T) {
	t.Parallel()
	// Clip URLs that expire carry an "&".
	_, ts, clock := newClockedTestServer(t, func(c *Config) { WithDialect(DialectNewAPI)(c); c.URLTTL = Duration(10 * time.Hour) })
	id := newAPISubmit(t, ts, `{"model":"videogen-2","prompt":"a cat [mock:duration=1h]"}`)
	if !regexp.MustCompile(`^cgt-20250601120000-[0-9a-f]{5}$`).MatchString(id) {
		t.Errorf("task ID %q does not look like the upstream's", id)
	}
	submitted := clock.Now().Unix()

	v := newAPIGet(t, ts, id)
	if v.TaskID != id || v.Action != "generate" || v.Status != "NOT_START" || v.Progress != "0%" || v.FailReason != "" ||
		v.SubmitTime != submitted || v.StartTime != 0 || v.FinishTime != 0 || string(v.Data) != `{"id":"`+id+`"}` {
		t.Errorf("new task %+v data %s", v.newAPITask, v.Data)
	}

	clock.Add(15 * time.Minute)
	v = newAPIGet(t, ts, id)
	if v.Status != "IN_PROGRESS" || v.Progress != "25%" || v.StartTime != submitted+15*60 || v.FinishTime != 0 ||
		v.FailReason != "" || v.rec.Status != "running" || v.rec.Content != nil {
		t.Errorf("running task %+v data %s", v.newAPITask, v.Data)
	}

	clock.Add(45 * time.Minute)
	res := do(t, ts, http.MethodGet, "/v1/video/generations/"+id, DefaultAPIKey, "")
	if !strings.Contains(string(res.body), `\u0026sig=`) {
		t.Errorf("new-api escapes & in JSON; the answer does not: %s", res.body)
	}
	v = newAPIGet(t, ts, id)
	if v.Status != "SUCCESS" || v.Progress != "100%" || v.FinishTime != submitted+3600 ||
		!strings.HasPrefix(v.FailReason, ts.URL+"/_mock/clips/"+id+".mp4?expires=") {
		t.Errorf("succeeded task %+v", v.newAPITask)
	}
	if v.rec.ID != id || v.rec.Model != "videogen-2" || v.rec.Status != "succeeded" || v.rec.Content == nil ||
		v.rec.Content.VideoURL != v.FailReason || v.rec.Resolution != "1080p" || v.rec.Ratio != "16:9" ||
		v.rec.Duration != 5 || v.rec.FramesPerSecond != 24 || v.rec.Error != nil {
		t.Errorf("raw record %s", v.Data)
	}
	for _, k := range []string{"url", "format", "metadata"} {
		if _, ok := v.raw[k]; ok {
			t.Errorf("raw record has %q: %s", k, v.Data)
		}
	}
	if clip := do(t, ts, http.MethodGet, v.FailReason, "", ""); clip.status != http.StatusOK || string(clip.body[4:8]) != "ftyp" {
		t.Errorf("the clip URL in fail_reason: status %d", clip.status)
	}
}

func TestNewAPIDropsParameters(t *testing.T) {
	t.Parallel()
	var hooks atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hooks.Add(1) }))
	t.Cleanup(receiver.Close)
	srv, ts := newAPITestServer(t, func(c *Config) {
		c.TaskDuration = 0
		c.Keys = append(c.Keys, Key{Key: "k", Balance: ptr[int64](100)})
	})
	md := `{"resolution":"720p","ratio":"9:16","generate_audio":true,"callback_url":"` + receiver.URL + `",` +
		`"content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"},"role":"reference_image"}]}`
	body := `{"model":"videogen-1","prompt":"p","seconds":"10","metadata":` + md + `}`
	res := do(t, ts, http.MethodPost, "/v1/video/generations", "k", body)
	var answer map[string]string
	mustDecode(t, res.body, &answer)
	id := answer["task_id"]

	// What was made is the model's default: 5 s at its highest resolution,
	// 16:9, whatever was asked; that is what is billed, and no webhook.
	v := newAPIGet(t, ts, id)
	if v.Status != "SUCCESS" || v.rec.Resolution != "720p" || v.rec.Duration != 5 || v.rec.Ratio != "16:9" {
		t.Errorf("task %+v, raw record %s", v.newAPITask, v.Data)
	}
	srv.mu.Lock()
	balance, deliveries := *srv.keys["k"].Balance, srv.deliveriesStarted
	srv.mu.Unlock()
	if balance != 95 || deliveries != 0 {
		t.Errorf("balance %d (want 100 - 5 s), webhook deliveries %d (want 0)", balance, deliveries)
	}
	// The ledger keeps the request as it arrived.
	if lt, _ := srv.Ledger().Task(id); lt.Seconds != "10" || string(lt.Metadata) != md || !lt.Billed {
		t.Errorf("ledger %+v", lt)
	}
	if n := hooks.Load(); n != 0 {
		t.Errorf("the callback URL got %d request(s)", n)
	}
}

func TestNewAPIFailedTask(t *testing.T) {
	t.Parallel()
	srv, ts := newAPITestServer(t, func(c *Config) { c.TaskDuration = 0 })
	marked := newAPIGet(t, ts, newAPISubmit(t, ts, `{"model":"videogen-1","prompt":"p [mock:fail]"}`))
	held := newAPISubmit(t, ts, `{"model":"videogen-1","prompt":"p [mock:hold]"}`)
	if !srv.FailTask(held, "the upstream refused the prompt") {
		t.Fatal("FailTask returned false")
	}
	for _, tt := range []struct {
		v      newAPIRecord
		reason string
	}{{marked, "simulated failure"}, {newAPIGet(t, ts, held), "the upstream refused the prompt"}} {
		if tt.v.Status != "FAILURE" || tt.v.FailReason != "task failed" || tt.v.Progress != "100%" || tt.v.rec.Status != "failed" ||
			tt.v.rec.Error == nil || !strings.Contains(tt.v.rec.Error.Message, tt.reason) || tt.v.rec.Content != nil {
			t.Errorf("failed task %+v, raw record %s; want the reason %q in data.data.error.message", tt.v.newAPITask, tt.v.Data, tt.reason)
		}
	}
	if l := srv.Ledger(); l.Tasks[0].Billed || l.Tasks[1].Billed {
		t.Errorf("failed tasks billed: %+v", l.Tasks)
	}
}

// TestNewAPIErrors checks every error against the answers captured from
// new-api v0.10.0.
func TestNewAPIErrors(t *testing.T) {
	t.Parallel()
	srv, ts := newAPITestServer(t, func(c *Config) {
		c.TaskDuration = 0
		c.Keys = append(c.Keys, Key{Key: "poor", Balance: ptr[int64](4)}, Key{Key: "v2", AllowedModels: []string{"videogen-2"}})
	})
	deleted := newAPISubmit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	srv.DeleteTask(deleted)
	const requestID = ` \(request id: [0-9]{14}[0-9]+[A-Za-z0-9]{8}\)`
	tests := []struct {
		name, method, path, key, body string
		status                        int
		want                          string // the exact body, as a regular expression
	}{
		{"unknown task", "GET", "/v1/video/generations/cgt-nope", DefaultAPIKey, "", 400,
			`\{"code":"task_not_exist","message":"task_not_exist","data":null\}`},
		{"deleted task", "GET", "/v1/video/generations/" + deleted, DefaultAPIKey, "", 400,
			`\{"code":"task_not_exist","message":"task_not_exist","data":null\}`},
		{"unknown model", "POST", "/v1/video/generations", DefaultAPIKey, `{"model":"nope","prompt":"p"}`, 503,
			`\{"error":\{"code":"model_not_found","message":"分组 default 下模型 nope 无可用渠道（distributor）` + requestID + `","type":"new_api_error"\}\}`},
		{"model not allowed", "POST", "/v1/video/generations", "v2", `{"model":"videogen-1","prompt":"p"}`, 403,
			`\{"error":\{"code":"","message":"该令牌无权访问模型 videogen-1` + requestID + `","type":"new_api_error"\}\}`},
		{"no model", "POST", "/v1/video/generations", DefaultAPIKey, `{"prompt":"p"}`, 400,
			`\{"error":\{"code":"","message":"未指定模型名称，模型名称不能为空` + requestID + `","type":"new_api_error"\}\}`},
		{"not JSON", "POST", "/v1/video/generations", DefaultAPIKey, `{"model":`, 400,
			`\{"error":\{"code":"","message":"Invalid request, 无效的请求, .*` + requestID + `","type":"new_api_error"\}\}`},
		{"no prompt", "POST", "/v1/video/generations", DefaultAPIKey, `{"model":"videogen-1","prompt":" "}`, 400,
			`\{"code":"invalid_request","message":"prompt is required","data":null\}`},
		{"seconds not a string", "POST", "/v1/video/generations", DefaultAPIKey, `{"model":"videogen-1","prompt":"p","seconds":5}`, 400,
			`\{"code":"invalid_request","message":"json: cannot unmarshal number into .*seconds.*","data":null\}`},
		{"quota", "POST", "/v1/video/generations", "poor", `{"model":"videogen-1","prompt":"p"}`, 403,
			`\{"code":"quota_not_enough","message":"user quota is not enough","data":null\}`},
		{"bad key", "GET", "/v1/models", "wrong", "", 401,
			`\{"error":\{"code":"","message":"无效的令牌` + requestID + `","type":"new_api_error"\}\}`},
		{"no key", "POST", "/v1/video/generations", "", `{"model":"videogen-1","prompt":"p"}`, 401,
			`\{"error":\{"code":"","message":"未提供令牌` + requestID + `","type":"new_api_error"\}\}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := do(t, ts, tt.method, tt.path, tt.key, tt.body)
			if res.status != tt.status || !regexp.MustCompile(`^`+tt.want+`$`).Match(res.body) ||
				!strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
				t.Errorf("status %d, %s\n%s\nwant %d and the body %s", res.status, res.header.Get("Content-Type"), res.body, tt.status, tt.want)
			}
		})
	}
	if n := len(srv.Ledger().Tasks); n != 1 {
		t.Errorf("the ledger holds %d tasks; only the deleted one was accepted", n)
	}
}

func TestNewAPIModels(t *testing.T) {
	t.Parallel()
	_, ts := newAPITestServer(t, func(c *Config) {
		c.Keys = append(c.Keys, Key{Key: "v2", AllowedModels: []string{"videogen-2"}})
	})
	res := do(t, ts, http.MethodGet, "/v1/models", "v2", "")
	const want = `{"data":[{"id":"videogen-2","object":"model","created":1626777600,"owned_by":"videogen","supported_endpoint_types":[]}],"object":"list","success":true}`
	if res.status != http.StatusOK || string(res.body) != want {
		t.Errorf("status %d, body\n%s\nwant\n%s", res.status, res.body, want)
	}
}

func TestNewAPIRateLimitAndFaults(t *testing.T) {
	t.Parallel()
	srv, ts := newAPITestServer(t, func(c *Config) { c.FaultRate = 1; c.Seed = 3 })
	for range 10 {
		res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, `{"model":"videogen-1","prompt":"p"}`)
		var env newAPIEnvelope
		mustDecode(t, res.body, &env)
		if res.status < 500 || env.Code != "fail_to_fetch_task" || !strings.Contains(env.Message, `"error"`) {
			t.Errorf("faulted submission: status %d, body %s", res.status, res.body)
		}
	}
	for range 10 {
		res := do(t, ts, http.MethodGet, "/v1/video/generations/cgt-x", DefaultAPIKey, "")
		if !strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
			continue // a proxy's page
		}
		var env newAPIEnvelope
		mustDecode(t, res.body, &env)
		if res.status < 500 || env.Code != "get_task_failed" {
			t.Errorf("faulted read: status %d, body %s", res.status, res.body)
		}
	}
	if n := len(srv.Ledger().Tasks); n != 0 {
		t.Errorf("%d tasks created by faulted submissions", n)
	}

	srv, ts = newAPITestServer(t, nil)
	srv.RateLimitSubmissions(1)
	res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, `{"model":"videogen-1","prompt":"p"}`)
	if res.status != http.StatusTooManyRequests || res.header.Get("Retry-After") != "" ||
		!strings.Contains(string(res.body), `"type":"new_api_error"`) {
		t.Errorf("rate-limited submission: status %d, Retry-After %q, body %s", res.status, res.header.Get("Retry-After"), res.body)
	}
	if n := len(srv.Ledger().Tasks); n != 0 {
		t.Errorf("%d tasks created by refused submissions", n)
	}
}

func TestDialectConfig(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{Keys: []Key{{Key: "k"}}, Models: defaultModels(), Dialect: "sora"}); err == nil ||
		!strings.Contains(err.Error(), "dialect") {
		t.Errorf("New with dialect sora: %v, want an error naming dialect", err)
	}
	cfg, err := LoadConfig(writeConfig(t, `{"dialect": "new-api"}`))
	if err != nil || cfg.Dialect != DialectNewAPI {
		t.Errorf("LoadConfig: %+v, %v", cfg.Dialect, err)
	}
	if got := DefaultConfig().withDefaults().Dialect; got != DialectOpenAI {
		t.Errorf("default dialect %q", got)
	}
}

// A running task's progress follows the configured curve of the share of its
// time elapsed, in whole percents, and is never 100% before the task is done.
func TestNewAPIProgressCurves(t *testing.T) {
	t.Parallel()
	for curve, want := range map[string][]string{
		"":             {"0%", "30%", "60%", "99%", "100%"},
		ProgressLinear: {"0%", "30%", "60%", "99%", "100%"},
		ProgressStall:  {"0%", "60%", "99%", "99%", "100%"},
		ProgressJump:   {"0%", "10%", "90%", "90%", "100%"},
		ProgressLate:   {"0%", "2%", "21%", "99%", "100%"},
	} {
		_, ts, clock := newClockedTestServer(t, func(c *Config) { WithDialect(DialectNewAPI)(c); c.ProgressCurve = curve })
		id := newAPISubmit(t, ts, `{"model":"videogen-2","prompt":"a cat [mock:duration=100s]"}`)
		var got []string
		for _, at := range []time.Duration{0, 30 * time.Second, 30 * time.Second, 39999 * time.Millisecond, time.Millisecond} {
			clock.Add(at)
			got = append(got, newAPIGet(t, ts, id).Progress)
		}
		if !slices.Equal(got, want) {
			t.Errorf("curve %q: progress at 0, 30, 60, 99.999 and 100 s of 100 s = %v, want %v", curve, got, want)
		}
	}
	if _, err := New(func() Config { c := DefaultConfig(); c.ProgressCurve = "wavy"; return c }()); err == nil ||
		!strings.Contains(err.Error(), "progress_curve") {
		t.Errorf("an unknown curve: %v, want an error naming progress_curve", err)
	}
}
