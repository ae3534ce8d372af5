package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

type answer struct {
	status int
	body   []byte
}

func call(t *testing.T, method, url, key, body string) answer {
	t.Helper()
	return callWith(t, method, url, body, "Authorization", "Bearer "+key)
}

// callWith sends body with one header, left out when its value is empty or
// a bare "Bearer ".
func callWith(t *testing.T, method, url, body, header, value string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if value != "" && value != "Bearer " {
		req.Header.Set(header, value)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, b}
}

// submitBody is what new-api's Doubao adaptor sends: model and the prompt
// as a text content item, nothing else.
func submitBody(prompt string) string {
	b, _ := json.Marshal(map[string]any{
		"model":   "doubao-seedance-1-0-pro-250528",
		"content": []map[string]string{{"type": "text", "text": prompt}},
	})
	return string(b)
}

func decode[T any](t *testing.T, a answer) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatalf("answer %d %s: %v", a.status, a.body, err)
	}
	return v
}

// TestArkLifecycle follows one task from submission to success and another to
// failure, reading them as new-api's adaptor does.
func TestArkLifecycle(t *testing.T) {
	t.Parallel()
	s := New(Ark)
	defer s.Close()

	a := call(t, http.MethodPost, s.URL+ArkTasksPath, s.Key, submitBody("a lighthouse at dusk"))
	if a.status != http.StatusOK {
		t.Fatalf("submit: %d %s", a.status, a.body)
	}
	id := decode[struct{ ID string }](t, a).ID
	if !strings.HasPrefix(id, "cgt-") {
		t.Fatalf("task ID %q, want Ark's cgt- form", id)
	}
	subs := s.Submissions()
	if len(subs) != 1 || subs[0].TaskID != id || subs[0].Prompt != "a lighthouse at dusk" ||
		subs[0].Model != "doubao-seedance-1-0-pro-250528" || s.Tasks() != 1 {
		t.Fatalf("submissions %+v, tasks %d: want the one accepted", subs, s.Tasks())
	}

	rec := decode[mockapi.ArkTask](t, call(t, http.MethodGet, s.URL+ArkTasksPath+"/"+id, s.Key, ""))
	if rec.ID != id || rec.Status != "queued" || rec.Content != nil {
		t.Fatalf("before Succeed: %+v, want queued without content", rec)
	}
	if got := call(t, http.MethodGet, s.ClipURL(id), "", ""); got.status != http.StatusNotFound {
		t.Errorf("clip of a queued task: %d, want 404", got.status)
	}

	if err := s.Succeed(id); err != nil {
		t.Fatal(err)
	}
	if err := s.Fail(id, "late"); err == nil {
		t.Error("Fail after Succeed: no error")
	}
	rec = decode[mockapi.ArkTask](t, call(t, http.MethodGet, s.URL+ArkTasksPath+"/"+id, s.Key, ""))
	if rec.Status != "succeeded" || rec.Content == nil || rec.Content.VideoURL != s.ClipURL(id) ||
		rec.Resolution != ArkResolution || rec.Ratio != ArkRatio || rec.Duration != ArkDuration ||
		rec.Usage == nil || rec.Usage.TotalTokens == 0 {
		t.Fatalf("after Succeed: %+v", rec)
	}
	if s.Fetches(id) != 2 {
		t.Errorf("Fetches = %d, want 2", s.Fetches(id))
	}
	clip := call(t, http.MethodGet, rec.Content.VideoURL, "", "")
	if clip.status != http.StatusOK || !bytes.Equal(clip.body, Clip(id)) || !bytes.Equal(clip.body[4:8], []byte("ftyp")) {
		t.Errorf("clip: %d, %d bytes: want Clip(id), an MP4", clip.status, len(clip.body))
	}

	id2 := decode[struct{ ID string }](t, call(t, http.MethodPost, s.URL+ArkTasksPath, s.Key, submitBody("a second clip"))).ID
	if id2 == id || bytes.Equal(Clip(id), Clip(id2)) {
		t.Fatalf("second task %s: want its own ID and clip", id2)
	}
	if err := s.Fail(id2, "The output video may contain sensitive information."); err != nil {
		t.Fatal(err)
	}
	rec = decode[mockapi.ArkTask](t, call(t, http.MethodGet, s.URL+ArkTasksPath+"/"+id2, s.Key, ""))
	if rec.Status != "failed" || rec.Error == nil || rec.Error.Message != "The output video may contain sensitive information." {
		t.Fatalf("failed task: %+v", rec)
	}
}

// TestArkRefusals checks the answers that create no task: a wrong key, a
// rejected prompt, an unknown task; only the rejected prompt is a
// submission.
func TestArkRefusals(t *testing.T) {
	t.Parallel()
	s := New(Ark)
	defer s.Close()
	if a := call(t, http.MethodPost, s.URL+ArkTasksPath, "wrong", submitBody("p")); a.status != http.StatusUnauthorized {
		t.Errorf("wrong key: %d %s, want 401", a.status, a.body)
	}
	a := call(t, http.MethodPost, s.URL+ArkTasksPath, s.Key, submitBody("p "+RejectMarker))
	e := decode[struct{ Error mockapi.ArkError }](t, a)
	if a.status != http.StatusBadRequest || e.Error.Code == "" || e.Error.Message == "" {
		t.Errorf("rejected prompt: %d %s, want 400 with Ark's error", a.status, a.body)
	}
	if a := call(t, http.MethodGet, s.URL+ArkTasksPath+"/cgt-unknown", s.Key, ""); a.status != http.StatusNotFound {
		t.Errorf("unknown task: %d %s, want 404", a.status, a.body)
	}
	if subs := s.Submissions(); len(subs) != 1 || subs[0].TaskID != "" || s.Tasks() != 0 {
		t.Errorf("submissions %+v, tasks %d: want one refused, no task", subs, s.Tasks())
	}
	if err := s.Succeed("cgt-unknown"); err == nil {
		t.Error("Succeed of an unknown task: no error")
	}
}

// TestAwaitSubmissions checks that a waiter wakes on each submission and
// gives up with its context.
func TestAwaitSubmissions(t *testing.T) {
	t.Parallel()
	s := New(Ark)
	defer s.Close()
	done := make(chan []Submission)
	go func() {
		subs, err := s.AwaitSubmissions(t.Context(), 2)
		if err != nil {
			t.Error(err)
		}
		done <- subs
	}()
	call(t, http.MethodPost, s.URL+ArkTasksPath, s.Key, submitBody("one"))
	call(t, http.MethodPost, s.URL+ArkTasksPath, s.Key, submitBody("two"))
	if subs := <-done; len(subs) != 2 {
		t.Errorf("woke with %d submissions, want 2", len(subs))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if _, err := s.AwaitSubmissions(ctx, 3); err == nil {
		t.Error("AwaitSubmissions for a submission that never comes returned no error")
	}
}
