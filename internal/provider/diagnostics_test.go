package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

const distinctiveKey = "vg-live-SECRET-93f1c7"

func TestAddAPIError(t *testing.T) {
	t.Parallel()
	api := func(status int, typ, msg, param string) error {
		return &client.APIError{StatusCode: status, Type: typ, Message: msg, Param: param, Method: "POST",
			Endpoint: "/video/generations", Attempts: 1}
	}
	cases := []struct {
		name string
		op   apidiag.Operation
		err  error
		attr string
		want []string
	}{
		{"400_param", apidiag.Submit, api(400, "invalid_request_error", "seconds 30 exceeds the maximum of 10 for model videogen-1", "seconds"),
			"seconds", []string{"rejected the request as invalid: seconds 30 exceeds the maximum of 10", `concerns the "seconds" argument`, "not billed"}},
		{"400_metadata_param", apidiag.Submit, api(400, "invalid_request_error", "resolution 1080p is not supported", "metadata.resolution"),
			"resolution", []string{`concerns the "resolution" argument`}},
		{"400_content_param", apidiag.Submit, api(400, "invalid_request_error", "too many image entries", "metadata.content"),
			"reference_images", []string{`concerns the "reference_images" argument`}},
		{"400_from_message", apidiag.Submit, api(400, "", "callback_url must be inside metadata", ""),
			"callback_url", []string{`concerns the "callback_url" argument`}},
		{"400_word_inside_another", apidiag.Submit, api(400, "invalid_request_error", "Your request was blocked by our moderation system.", ""),
			"", []string{"Check the arguments against the service's rules"}},
		{"400_unplaceable", apidiag.Submit, api(400, "", "malformed body", ""),
			"", []string{"Check the arguments against the service's rules"}},
		{"401", apidiag.Submit, api(401, "authentication_error", "Invalid API key", ""),
			"", []string{"api_key", "VIDEOGEN_API_KEY", "revoked", "Invalid API key"}},
		{"403_balance", apidiag.Submit, api(403, "insufficient_quota", "insufficient balance: cost 5, balance 0", ""),
			"", []string{"balance is too low", "Top up"}},
		{"403_model", apidiag.Submit, api(403, "permission_error", "this API key may not use model videogen-2", ""),
			"", []string{"may not use the requested model", "videogen_models"}},
		{"403_unknown", apidiag.Submit, api(403, "", "forbidden", ""),
			"", []string{"balance is too low", "may not use the requested model"}},
		{"404_model", apidiag.Submit, api(404, "not_found_error", "model videogen-9 does not exist", "model"),
			"model", []string{"does not know this model ID", "videogen_models"}},
		{"503_model_not_found", apidiag.Submit, &client.APIError{StatusCode: 503, Type: "new_api_error", Code: "model_not_found",
			Message: "no available channel for model videogen-9", Attempts: 1},
			"model", []string{"no model, or no channel serving it, by this ID", "videogen_models", "Nothing was submitted or billed",
				"videogen-9"}},
		{"interrupted_before_sending", apidiag.Submit, fmt.Errorf("POST /video/generations: %w (%w)", client.ErrNotSubmitted, context.Canceled),
			"", []string{"interrupted before the submission reached the service", "nothing was billed", "Apply again"}},
		{"404_task", apidiag.Get, api(404, "not_found_error", "no task task_x", ""),
			"", []string{"does not know this task ID"}},
		{"404_models_endpoint", apidiag.ListModels, api(404, "", "Not Found", ""),
			"", []string{"no /v1/models endpoint", "base_url"}},
		{"429_exhausted", apidiag.Submit, &client.APIError{StatusCode: 429, Message: "rate limit", Attempts: 7, Elapsed: 31 * time.Second},
			"", []string{"rate limit", "after 7 attempts over 31s", "-parallelism", "max_retries"}},
		{"503_exhausted", apidiag.Get, &client.APIError{StatusCode: 503, Message: "Service Unavailable", Attempts: 4, Elapsed: 2500 * time.Millisecond},
			"", []string{"server error after 4 attempts over 2.5s", "transient"}},
		{"unreachable", apidiag.Submit, &client.TransportError{Method: "POST", Endpoint: "/video/generations", Attempts: 7,
			Elapsed: 9 * time.Second, Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}},
			"", []string{"could not be reached after 7 attempts over 9s", "base_url"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var diags diag.Diagnostics
			addAPIError(&diags, "Unable to Create Video", c.op, c.err)
			if len(diags) != 1 {
				t.Fatalf("want one diagnostic, got %v", diags)
			}
			d := diags[0]
			if d.Summary() != "Unable to Create Video" {
				t.Errorf("summary %q", d.Summary())
			}
			for _, w := range append(c.want, "Original error: ") {
				if !strings.Contains(d.Detail(), w) {
					t.Errorf("detail lacks %q:\n%s", w, d.Detail())
				}
			}
			withPath, ok := d.(diag.DiagnosticWithPath)
			switch {
			case c.attr == "" && ok:
				t.Errorf("diagnostic attached to %s, want none", withPath.Path())
			case c.attr != "" && (!ok || !withPath.Path().Equal(path.Root(c.attr))):
				t.Errorf("diagnostic not attached to %q: %v", c.attr, d)
			}
		})
	}
}

func TestAddAPIErrorAmbiguousSubmission(t *testing.T) {
	t.Parallel()
	// A real ambiguous failure: the server read the request, then never answered in time.
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, 4096)
				for {
					if _, err := conn.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	c, err := client.New("http://"+ln.Addr().String(), distinctiveKey, client.WithRequestTimeout(200*time.Millisecond),
		client.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.SubmitVideo(context.Background(), client.VideoRequest{Model: "videogen-1", Prompt: "x"})
	if !client.IsAmbiguousSubmit(err) {
		t.Fatalf("want an ambiguous submission error, got %v", err)
	}
	var diags diag.Diagnostics
	addAPIError(&diags, "Unable to Create Video", apidiag.Submit, err)
	detail := diags[0].Detail()
	for _, w := range []string{"A task may exist", "may already have reached the service", "service's console", "terraform import"} {
		if !strings.Contains(detail, w) {
			t.Errorf("detail lacks %q:\n%s", w, detail)
		}
	}
	if strings.Contains(detail, distinctiveKey) {
		t.Error("the API key appears in the diagnostic")
	}
}

func TestAddWaitError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, taskID, summary string
		err                   error
		want                  []string
	}{
		{"failed", "task_1", "Video Generation Failed", &client.TaskFailedError{TaskID: "task_1", Reason: "content policy"},
			[]string{"task_1", "content policy", "not billed", "tainted"}},
		{"timeout", "task_2", "Video Not Ready", &client.WaitError{TaskID: "task_2", LastStatus: client.StatusRunning,
			Elapsed: 90 * time.Second, Polls: 12, Err: context.DeadlineExceeded},
			[]string{`still "running"`, "timeouts.create is 1m30s", "Apply again to keep waiting for the same task",
				"takes task task_2 over instead of submitting a new one", "a new task is submitted and task task_2 is left running"}},
		{"interrupted_before_first_poll", "task_3", "Video Not Ready", &client.WaitError{TaskID: "task_3", Err: context.Canceled},
			[]string{`still "submitted"`, "Apply again to keep waiting for the same task"}},
		{"service_kept_failing", "task_4", "Unable to Wait for Video", &client.WaitError{TaskID: "task_4",
			LastStatus: client.StatusRunning, Err: &client.APIError{StatusCode: 502, Message: "Bad Gateway", Attempts: 7,
				Elapsed: 20 * time.Second}},
			[]string{"task_4", "server error after 7 attempts", "last status seen: running", "apply again to keep waiting"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var diags diag.Diagnostics
			addWaitError(&diags, c.taskID, "create", 90*time.Second, c.err)
			if len(diags) != 1 || diags[0].Summary() != c.summary {
				t.Fatalf("want one %q diagnostic, got %v", c.summary, diags)
			}
			for _, w := range c.want {
				if !strings.Contains(diags[0].Detail(), w) {
					t.Errorf("detail lacks %q:\n%s", w, diags[0].Detail())
				}
			}
		})
	}
}

func TestAddAPIErrorGatewayDoubts(t *testing.T) {
	t.Parallel()
	err := &client.AmbiguousSubmitError{
		Doubts: []string{"attempt 1 was answered HTTP 504 Gateway Timeout", "attempt 2 was answered HTTP 504 Gateway Timeout"},
		Err:    &client.APIError{StatusCode: 504, Message: "Gateway Timeout", Method: "POST", Endpoint: "/video/generations", Attempts: 2},
	}
	var diags diag.Diagnostics
	addAPIError(&diags, "Unable to Create Video", apidiag.Submit, err)
	detail := diags[0].Detail()
	for _, w := range []string{"A task may exist", "attempt 1 was answered HTTP 504", "attempt 2", "terraform import"} {
		if !strings.Contains(detail, w) {
			t.Errorf("detail lacks %q:\n%s", w, detail)
		}
	}
	if strings.Contains(detail, "not billed") {
		t.Errorf("a submission that may have created a task is called unbilled:\n%s", detail)
	}
}

func TestAddAPIErrorWrongAddress(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	addAPIError(&diags, "Unable to Read Video", apidiag.WrongAddress, &client.APIError{StatusCode: 404, Method: "GET",
		Endpoint: "/video/generations/{task_id}", Message: "Not Found"})
	detail := diags[0].Detail()
	for _, w := range []string{"base_url", "VIDEOGEN_BASE_URL", "Nothing was removed from state"} {
		if !strings.Contains(detail, w) {
			t.Errorf("detail lacks %q:\n%s", w, detail)
		}
	}
}

// TestAttributeForBadRequestFollowsTheTable: a 400 that blames where the
// request carries an argument is attached to that argument, for every row.
func TestAttributeForBadRequestFollowsTheTable(t *testing.T) {
	for _, a := range clipArguments {
		field := a.request[apiVideoGenerations]
		if field.get == nil {
			continue
		}
		err := &client.APIError{StatusCode: 400, Param: field.member, Message: "invalid value"}
		if got := attributeForBadRequest(err); got != a.name {
			t.Errorf("a 400 blaming %s is attached to %q, want %s", field.member, got, a.name)
		}
	}
	err := &client.APIError{StatusCode: 400, Param: "image_url", Message: "cannot fetch"}
	if got := attributeForBadRequest(err); got != "reference_images" {
		t.Errorf("a 400 blaming image_url is attached to %q, want reference_images", got)
	}
}

// A delete that fails is told as a delete: no balance, model, argument or
// billing advice, which concern submissions.
func TestDeleteVideoFailureAdvice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status  int
		body    string
		want    string
		notWant []string
	}{
		{http.StatusForbidden, `{"error":{"message":"insufficient permissions for this project","type":"invalid_request_error"}}`,
			"may not delete the videos", []string{"balance", "requested model"}},
		{http.StatusBadRequest, `{"error":{"message":"video is still processing","type":"invalid_request_error"}}`,
			"refused the delete with HTTP 400 (video is still processing)", []string{"argument", "billed"}},
	}
	for _, c := range cases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(c.status)
			_, _ = w.Write([]byte(c.body))
		}))
		t.Cleanup(srv.Close)
		cl, err := client.New(srv.URL, distinctiveKey, client.WithAPI(client.APIOpenAIVideos), client.WithMaxRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		lc := clip.New(clip.Config{Client: cl, API: client.APIOpenAIVideos, DeleteOnDestroy: true, MaxNewClips: -1,
			Journal: journal.New(filepath.Join(t.TempDir(), "journal.json"), "state", journal.DefaultMaxAge)})
		var diags diag.Diagnostics
		addNotes(&diags, lc.Release(t.Context(), clip.Clip{TaskID: "video_1", Status: client.StatusSucceeded}, clip.Destroyed))
		if len(diags) != 1 || diags[0].Summary() != "Unable to Delete Video" {
			t.Fatalf("HTTP %d: want one 'Unable to Delete Video', got %v", c.status, diags)
		}
		detail := diags[0].Detail()
		if !strings.Contains(detail, c.want) {
			t.Errorf("HTTP %d: the detail does not say %q:\n%s", c.status, c.want, detail)
		}
		for _, w := range c.notWant {
			if wrapped(w).MatchString(detail) {
				t.Errorf("HTTP %d: the detail says %q:\n%s", c.status, w, detail)
			}
		}
	}
}
