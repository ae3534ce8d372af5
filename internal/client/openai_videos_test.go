package client_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

func newOpenAIVideosClient(t *testing.T, m *acctest.Mock, api client.API) *client.Client {
	t.Helper()
	c, err := client.New(m.URL, mockapi.DefaultAPIKey, client.WithAPI(api),
		client.WithRetryWait(time.Millisecond, 5*time.Millisecond),
		client.WithPollPolicy(client.PollPolicy{Fixed: time.Millisecond, MaxConsecutiveErrors: 3}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The client speaks OpenAI's video API to the mock's openai-videos dialect,
// which OpenAI's SDK holds to OpenAI's shapes: the same *Video as the other
// API, the clip at /content, one submission per task.
func TestOpenAIVideosAgainstMock(t *testing.T) {
	t.Parallel()
	m := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos), func(c *mockapi.Config) { c.HoldTasks = true })
	c := newOpenAIVideosClient(t, m, client.APIOpenAIVideos)
	ctx := t.Context()
	v, err := c.SubmitVideo(ctx, client.VideoRequest{Model: "videogen-1", Prompt: "a heron", Seconds: "8",
		Metadata: &client.Metadata{Ratio: "16:9", Resolution: "720p",
			Content: []client.ContentEntry{client.NewContentEntry(client.ContentImage, "https://img.example/a.png")}}})
	if err != nil || v.Status.Final() || !strings.HasPrefix(v.TaskID, "video_") {
		t.Fatalf("SubmitVideo = %+v, %v; want an unfinished video", v, err)
	}
	task, _ := m.Ledger().Task(v.TaskID)
	if task.Seconds != "8" || string(task.Metadata) != `{"input_reference[image_url]":"https://img.example/a.png","size":"1280x720"}` {
		t.Errorf("the mock received seconds %q and %s, want 8 and the size and reference image", task.Seconds, task.Metadata)
	}
	m.FinishTask(v.TaskID)
	done, err := c.WaitForVideo(ctx, v.TaskID)
	if err != nil || done.Status != client.StatusSucceeded || done.URL != m.URL+"/v1/videos/"+v.TaskID+"/content" {
		t.Fatalf("WaitForVideo = %+v, %v; want succeeded with the clip at the video's /content", done, err)
	}
	if done.Made == nil || *done.Made != (client.MadeParams{Seconds: "8", Ratio: "16:9", Resolution: "720p"}) ||
		done.Metadata == nil || done.Metadata.Ratio != "16:9" || done.Metadata.Resolution != "720p" {
		t.Errorf("Made = %+v, Metadata = %+v; want 8 s at 16:9, 720p read from seconds and size", done.Made, done.Metadata)
	}

	failed, err := c.SubmitVideo(ctx, client.VideoRequest{Model: "videogen-1", Prompt: "a storm"})
	if err != nil {
		t.Fatal(err)
	}
	m.FailTask(failed.TaskID, "the prompt was refused")
	got, err := c.GetVideo(ctx, failed.TaskID)
	if err != nil || got.Status != client.StatusFailed || got.FailureReason != "the prompt was refused (video_generation_failed)" {
		t.Errorf("GetVideo of a failed video = %+v, %v; want failed with the reason and its code", got, err)
	}
	if _, err := c.GetVideo(ctx, "video_unknown"); !client.IsNotFound(err) {
		t.Errorf("GetVideo of an unknown video: %v, want not found", err)
	}
	if n := m.Submissions(); n != 2 {
		t.Errorf("%d submissions, want 2", n)
	}
}

// A request OpenAI's API cannot carry is refused whole before anything is
// sent: sending the rest would make, and bill, another clip.
func TestOpenAIVideosRefusesWhatItCannotSend(t *testing.T) {
	t.Parallel()
	m := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos))
	c := newOpenAIVideosClient(t, m, client.APIOpenAIVideos)
	yes := true
	image := client.NewContentEntry(client.ContentImage, "https://img.example/a.png")
	for _, tc := range []struct {
		md    client.Metadata
		param string
	}{
		{client.Metadata{Ratio: "16:9"}, client.ParamRatio},
		{client.Metadata{Resolution: "720p"}, client.ParamResolution},
		{client.Metadata{Ratio: "16:9", Resolution: "480p"}, client.ParamRatio},
		{client.Metadata{GenerateAudio: &yes}, client.ParamGenerateAudio},
		{client.Metadata{CallbackURL: "https://hooks.example/v"}, client.ParamCallbackURL},
		{client.Metadata{Content: []client.ContentEntry{image, image}}, client.ContentParam(client.ContentImage)},
		{client.Metadata{Content: []client.ContentEntry{client.NewContentEntry(client.ContentVideo, "https://v.example/a.mp4")}},
			client.ContentParam(client.ContentVideo)},
		{client.Metadata{Extra: map[string]json.RawMessage{"watermark": json.RawMessage(`false`)}}, "metadata.watermark"},
	} {
		req := client.VideoRequest{Model: "videogen-1", Prompt: "a heron", Metadata: &tc.md}
		_, err := c.SubmitVideo(t.Context(), req)
		var inexpressible *client.InexpressibleError
		if !errors.As(err, &inexpressible) || len(inexpressible.Params) != 1 || inexpressible.Params[0].Param != tc.param {
			t.Errorf("%+v: %v, want it refused for %s", tc.md, err, tc.param)
		}
		if bad := client.APIVideoGenerations.Inexpressible(req); len(bad) != 0 {
			t.Errorf("%+v: the video-generations API cannot carry %v", tc.md, bad)
		}
	}
	if n := m.Ledger().RequestCount(); n != 0 {
		t.Errorf("the mock received %d requests, want none", n)
	}
}

func TestOpenAIVideoSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ ratio, resolution, size string }{
		{"", "", ""},
		{"16:9", "720p", "1280x720"},
		{"9:16", "720p", "720x1280"},
		{"16:9", "1080p", "1920x1080"},
		{"32:18", "1080P", "1920x1080"},
		{"1:1", "480p", "480x480"},
		{"4:3", "480p", "640x480"},
		{"16:9", "480p", ""}, // 853.33 pixels wide
		{"7:4", "720p", ""},  // 1260 wide, but 7:4 at 1080p is 1890: both whole, so only check one
		{"16:9", "", ""},
		{"", "720p", ""},
		{"16:9", "4k", ""},
	} {
		size, err := client.OpenAIVideoSize(tc.ratio, tc.resolution)
		if tc.ratio == "7:4" {
			if size != "1260x720" || err != nil {
				t.Errorf("%s at %s: %q, %v; want 1260x720", tc.ratio, tc.resolution, size, err)
			}
			continue
		}
		if size != tc.size || (err == nil) != (tc.size != "" || tc.ratio == "" && tc.resolution == "") {
			t.Errorf("%s at %s: %q, %v; want %q", tc.ratio, tc.resolution, size, err, tc.size)
		}
		if tc.size == "" {
			continue
		}
		ratio, resolution := client.RatioAndResolutionOf(size)
		if r, _ := client.OpenAIVideoSize(ratio, resolution); r != size {
			t.Errorf("%s reads back as %s at %s, which is %s", size, ratio, resolution, r)
		}
	}
	if ratio, resolution := client.RatioAndResolutionOf("1792x1024"); ratio != "7:4" || resolution != "" {
		t.Errorf("1792x1024 reads as %q at %q, want 7:4 and no resolution", ratio, resolution)
	}
}

// DeleteVideo deletes a finished video once; a video already gone is not
// found; the video-generations API has no delete and sends nothing.
func TestDeleteVideo(t *testing.T) {
	t.Parallel()
	m := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos), func(c *mockapi.Config) { c.TaskDuration = 0 })
	c := newOpenAIVideosClient(t, m, client.APIOpenAIVideos)
	v, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "a heron"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteVideo(t.Context(), v.TaskID); err != nil {
		t.Fatalf("DeleteVideo: %v", err)
	}
	if task, _ := m.Ledger().Task(v.TaskID); !task.Deleted || !task.Billed {
		t.Errorf("ledger task = %+v, want deleted and still billed", task)
	}
	if err := c.DeleteVideo(t.Context(), v.TaskID); !client.IsNotFound(err) {
		t.Errorf("second DeleteVideo: %v, want not found", err)
	}
	before := m.Ledger().RequestCount()
	other := newOpenAIVideosClient(t, m, client.APIVideoGenerations)
	if err := other.DeleteVideo(t.Context(), v.TaskID); err == nil || client.IsNotFound(err) {
		t.Errorf("DeleteVideo on the video-generations API: %v, want an error of its own", err)
	}
	if n := m.Ledger().RequestCount(); n != before {
		t.Errorf("%d requests sent by a delete the API does not have", n-before)
	}
}

// OpenAI answers an account without quota 429 insufficient_quota: a refusal that
// no retry or pause changes, said as a balance too low, after one request.
func TestOpenAIVideosQuotaExhaustedIsNotARateLimit(t *testing.T) {
	t.Parallel()
	m := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos), func(c *mockapi.Config) {
		none := int64(0)
		c.Keys[0].Balance = &none
	})
	c := newOpenAIVideosClient(t, m, client.APIOpenAIVideos)
	_, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "a heron"})
	if !client.IsQuotaExhausted(err) || client.IsTransient(err) || client.IsAmbiguousSubmit(err) ||
		client.CauseOfForbidden(err) != client.ForbiddenBalance {
		t.Fatalf("SubmitVideo: %v, want a quota refusal, not transient", err)
	}
	if n := m.Ledger().Requests["POST /v1/videos"]; n != 1 {
		t.Errorf("%d submissions sent, want 1: a used-up quota is not retried", n)
	}
	if _, err := c.ListModels(t.Context()); err != nil {
		t.Errorf("the next call waited for a pause or failed: %v", err)
	}
}

// A video whose content the server no longer keeps (past its expires_at) is not
// downloaded again and again: the error says when it expired and that only a new,
// billed clip gives one; until then the same download works.
func TestDownloadVideoAfterExpiresAt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		ttl     time.Duration
		expired bool
	}{{"kept", 24 * time.Hour, false}, {"expired", time.Nanosecond, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos),
				func(c *mockapi.Config) { c.URLTTL = mockapi.Duration(tc.ttl) })
			c := newOpenAIVideosClient(t, m, client.APIOpenAIVideos)
			v, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "a heron"})
			if err != nil {
				t.Fatal(err)
			}
			if v, err = c.WaitForVideo(t.Context(), v.TaskID); err != nil || v.ExpiresAt.IsZero() {
				t.Fatalf("WaitForVideo = %+v, %v; want a clip with its expires_at", v, err)
			}
			_, err = c.DownloadVideo(t.Context(), v, &bufferOutput{}, 1<<30)
			if !tc.expired {
				if err != nil {
					t.Fatalf("DownloadVideo before expires_at: %v", err)
				}
				return
			}
			if !client.IsExpiredURL(err) || !strings.Contains(err.Error(), "(its expires_at): it can no longer be downloaded") {
				t.Errorf("DownloadVideo after expires_at: %v, want an error that says the clip expired", err)
			}
			if n := m.Ledger().Requests["GET /v1/videos/{task_id}/content"]; n != 2 {
				t.Errorf("%d downloads, want 2: the clip, then once more after reading the video again", n)
			}
		})
	}
}

// TestOpenAIVideosHandlesEveryRequestMember keeps openAIVideoForm and
// API.Inexpressible in step with the request: OpenAI's video API refuses a
// member it does not know, so every member of VideoRequest and Metadata must be
// either sent as a form field or refused before anything is sent. A member added
// to either struct fails here until it is handled in openai_videos.go (and the
// refusal, where it is one, is covered by TestOpenAIVideosRefusesWhatItCannotSend).
func TestOpenAIVideosHandlesEveryRequestMember(t *testing.T) {
	t.Parallel()
	handled := map[string]string{
		"VideoRequest.Model":          "sent as model",
		"VideoRequest.Prompt":         "sent as prompt",
		"VideoRequest.Seconds":        "sent as seconds",
		"VideoRequest.Metadata":       "its members below",
		"VideoRequest.StorageURI":     "refused",
		"VideoRequest.IdempotencyKey": "sent as the Idempotency-Key header, as on every API",
		"Metadata.Ratio":              "sent within size, or refused",
		"Metadata.Resolution":         "sent within size, or refused",
		"Metadata.GenerateAudio":      "refused",
		"Metadata.CallbackURL":        "refused",
		"Metadata.Content":            "one image sent as input_reference[image_url]; the rest refused",
		"Metadata.Extra":              "refused",
	}
	seen := map[string]bool{}
	for _, typ := range []reflect.Type{reflect.TypeFor[client.VideoRequest](), reflect.TypeFor[client.Metadata]()} {
		for f := range typ.Fields() {
			name := typ.Name() + "." + f.Name
			seen[name] = true
			if _, ok := handled[name]; !ok && f.IsExported() {
				t.Errorf("%s is not handled for OpenAI's video API: send it in openAIVideoForm or refuse it in API.Inexpressible, then list it here", name)
			}
		}
	}
	for name := range handled {
		if !seen[name] {
			t.Errorf("%s is listed as handled but the request has no such member", name)
		}
	}
}

// A DELETE is retried like a read: when the first one deleted the video but its
// answer was lost (here a gateway's 502), the retry's 404 is that delete's work,
// not a server without the route, and DeleteVideo succeeds once reading the
// video answers 404 too. A first-attempt 404 stays an error.
func TestDeleteVideoRetriedAfterALostAnswer(t *testing.T) {
	t.Parallel()
	c, deletes := lostDeleteAnswerServer(t, false)
	if err := c.DeleteVideo(t.Context(), "video_1"); err != nil {
		t.Errorf("DeleteVideo after a lost answer: %v, want nil (the retry found it deleted)", err)
	}
	if n := deletes.Load(); n != 2 {
		t.Errorf("%d DELETEs of video_1, want 2", n)
	}
	if err := c.DeleteVideo(t.Context(), "video_gone"); !client.IsNotFound(err) {
		t.Errorf("DeleteVideo of a video that is not there: %v, want not found", err)
	}
}

// A server without the DELETE route behind a first attempt that deleted nothing
// (a gateway's 502) answers the retry 404 while the video is still there: that
// 404 is no proof of a delete, and DeleteVideo says not found.
func TestDeleteVideoRetried404WhileTheVideoIsThere(t *testing.T) {
	t.Parallel()
	c, deletes := lostDeleteAnswerServer(t, true)
	if err := c.DeleteVideo(t.Context(), "video_1"); !client.IsNotFound(err) {
		t.Errorf("DeleteVideo whose retry found no route while the video is there: %v, want not found", err)
	}
	if n := deletes.Load(); n != 2 {
		t.Errorf("%d DELETEs of video_1, want 2", n)
	}
}

// lostDeleteAnswerServer is an openai-videos client of a server whose first
// DELETE answers a gateway's 502 and every later one 404, as does the first
// DELETE of video_gone. Reading a video answers it, finished, when videoThere,
// and 404 otherwise. deletes counts the DELETEs.
func lostDeleteAnswerServer(t *testing.T, videoThere bool) (c *client.Client, deletes *atomic.Int32) {
	t.Helper()
	deletes = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method != http.MethodDelete && videoThere:
			_, _ = io.WriteString(w, `{"id":"video_1","object":"video","status":"completed","progress":100}`)
		case r.Method != http.MethodDelete, r.URL.Path == "/v1/videos/video_gone", deletes.Add(1) > 1:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":{"message":"No video found","type":"invalid_request_error"}}`)
		default:
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, `{"error":{"message":"upstream timed out","type":"server_error"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, "sk-test", client.WithAPI(client.APIOpenAIVideos),
		client.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return c, deletes
}

// A failed video's reason reads as OpenAI's clients present its error: the
// message, then its type and code; a code does not stand in for the type, and
// an error without a message is named by its type and code alone.
func TestOpenAIVideoFailureReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, err, want string
	}{
		{"message, type and code", `{"message":"The video was blocked.","type":"invalid_request_error","code":"moderation_blocked"}`,
			"The video was blocked. (invalid_request_error, moderation_blocked)"},
		{"code without a message", `{"message":"","code":"moderation_blocked"}`, "moderation_blocked"},
		{"a numeric code", `{"message":"The upstream refused it.","code":1301}`, "The upstream refused it. (1301)"},
		{"a code the message says already", `{"message":"moderation_blocked: the prompt","code":"moderation_blocked"}`,
			"moderation_blocked: the prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"id":"video_1","object":"video","status":"failed","error":`+tt.err+`}`)
			}))
			t.Cleanup(srv.Close)
			c, err := client.New(srv.URL, "test-key-7f3a", client.WithAPI(client.APIOpenAIVideos))
			if err != nil {
				t.Fatal(err)
			}
			v, err := c.GetVideo(t.Context(), "video_1")
			if err != nil || v.Status != client.StatusFailed || v.FailureReason != tt.want {
				t.Fatalf("GetVideo = %+v, %v; want failed with the reason %q", v, err, tt.want)
			}
		})
	}
}
