package acctest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

func TestProviderBlock(t *testing.T) {
	t.Parallel()
	m := &Mock{URL: "http://127.0.0.1:1234"}
	tests := []struct {
		name  string
		extra []string
		want  string
	}{
		{"defaults", nil, `
provider "videogen" {
  base_url      = "http://127.0.0.1:1234"
  api_key       = "videogen-mock-key"
  poll_interval = "100ms"
}
`},
		{"extra lines", []string{"max_retries = 2", "  request_timeout = \"5s\"  "}, `
provider "videogen" {
  base_url      = "http://127.0.0.1:1234"
  api_key       = "videogen-mock-key"
  poll_interval = "100ms"
  max_retries = 2
  request_timeout = "5s"
}
`},
		{"overrides", []string{`api_key = "limited-key"`, "base_url=terraform_data.endpoint.output", `poll_interval = "1s"`}, `
provider "videogen" {
  base_url      = terraform_data.endpoint.output
  api_key       = "limited-key"
  poll_interval = "1s"
}
`},
		{"multi-line extra is not an override", []string{"api_key = \"x\"\nmax_retries = 1"}, `
provider "videogen" {
  base_url      = "http://127.0.0.1:1234"
  api_key       = "videogen-mock-key"
  poll_interval = "100ms"
  api_key = "x"
  max_retries = 1
}
`},
	}
	// The API of the mock's dialect, when it is not the default, and an override of it.
	videos := &Mock{URL: "http://127.0.0.1:1234", api: client.APIOpenAIVideos}
	if got, want := videos.ProviderBlock("api = null"), `
provider "videogen" {
  base_url      = "http://127.0.0.1:1234"
  api_key       = "videogen-mock-key"
  poll_interval = "100ms"
  api           = null
}
`; got != want {
		t.Errorf("ProviderBlock of an openai-videos mock = %s, want %s", got, want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := m.ProviderBlock(tt.extra...); got != tt.want {
				t.Errorf("ProviderBlock(%q) =\n%s\nwant\n%s", tt.extra, got, tt.want)
			}
		})
	}
}

func TestNewMock(t *testing.T) {
	t.Parallel()
	m := NewMock(t, func(c *mockapi.Config) { c.Seed = 7 }, func(c *mockapi.Config) { c.HoldTasks = c.Seed == 7 })
	if !strings.HasPrefix(m.URL, "http://127.0.0.1:") {
		t.Errorf("URL %q", m.URL)
	}
	c := m.Client(t)
	held, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	// Options apply in order, on top of the default config.
	if v := m.Task(t, held.TaskID); v.Status != client.StatusRunning {
		t.Fatalf("task under HoldTasks is %s, want running", v.Status)
	}
	if !m.FinishTask(held.TaskID) {
		t.Fatal("FinishTask returned false")
	}
	v := m.Task(t, held.TaskID)
	if v.Status != client.StatusSucceeded || !strings.HasPrefix(v.URL, m.URL+"/") || v.Format != "mp4" {
		t.Errorf("finished task %+v", v)
	}
	if m.Submissions() != 1 {
		t.Errorf("Submissions() = %d, want 1", m.Submissions())
	}
	if err := m.ExpectSubmissions(1)(nil); err != nil {
		t.Error(err)
	}
	if err := m.ExpectSubmissions(2)(nil); err == nil || !strings.Contains(err.Error(), "shows 1 submitted task(s), want 2") {
		t.Errorf("ExpectSubmissions(2) with one task: %v", err)
	}
}

func TestNewMockFinishesTasksAtOnce(t *testing.T) {
	t.Parallel()
	m := NewMock(t)
	v, err := m.Client(t).SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Task(t, v.TaskID); got.Status != client.StatusSucceeded {
		t.Errorf("task is %s, want succeeded at once", got.Status)
	}
}

func TestNewMockClosesWithTheTest(t *testing.T) {
	t.Parallel()
	var url string
	t.Run("user", func(t *testing.T) {
		url = NewMock(t).URL
	})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/_mock/ledger", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("the mock still answers after its test ended: status %d", resp.StatusCode)
	}
}

// fatalRecorder is a testing.TB whose Fatal ends only the goroutine, so a
// test can check what a helper reports when it fails.
type fatalRecorder struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.msg = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	panic(r)
}

// failure runs f and returns what it passed to Fatal, or "".
func failure(t *testing.T, f func(tb testing.TB)) (msg string) {
	rec := &fatalRecorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != any(rec) {
			panic(p)
		}
		msg = rec.msg
	}()
	f(rec)
	return ""
}

func TestTaskReportsErrors(t *testing.T) {
	t.Parallel()
	m := NewMock(t)
	msg := failure(t, func(tb testing.TB) { m.Task(tb, "task_nope") })
	if !strings.Contains(msg, "reading task task_nope from the mock") || !strings.Contains(msg, "404") {
		t.Errorf("Task of an unknown ID failed with %q", msg)
	}
	if strings.Contains(msg, mockapi.DefaultAPIKey) {
		t.Errorf("the failure shows the API key: %q", msg)
	}

	bad := &Mock{URL: "not a url"}
	if msg := failure(t, func(tb testing.TB) { bad.Client(tb) }); !strings.Contains(msg, "client for the mock") {
		t.Errorf("Client with a bad URL failed with %q", msg)
	}
}

func TestStartMock(t *testing.T) {
	t.Parallel()
	if _, err := StartMock(mockapi.Config{}); err == nil || !strings.Contains(err.Error(), "starting the mock") {
		t.Errorf("StartMock with an empty config: %v", err)
	}
	m, err := StartMock(mockapi.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- m.AwaitTasks(ctx, 1) }()
	if _, err := m.Client(t).SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("AwaitTasks through Mock: %v", err)
	}
	m.Close()
}
