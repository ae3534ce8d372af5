package mockapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// The openai-videos dialect is held to OpenAI's shapes by OpenAI's own Go SDK:
// if the SDK cannot send to it or read it, the dialect is wrong, whatever this
// repository's client makes of it.

// newVideosClient is the official client of a mock speaking the openai-videos
// dialect, with the SDK's retries off so that every request is the test's.
// Its clock stands still unless the test moves it.
func newVideosClient(t *testing.T, mutate func(*Config)) (*Server, openai.Client, *fakeClock) {
	t.Helper()
	srv, ts, clock := newClockedTestServer(t, func(c *Config) {
		WithDialect(DialectOpenAIVideos)(c)
		if mutate != nil {
			mutate(c)
		}
	})
	return srv, openai.NewClient(option.WithBaseURL(ts.URL+"/v1"), option.WithAPIKey(DefaultAPIKey),
		option.WithMaxRetries(0)), clock
}

// TestOpenAIVideos_sdkLifecycle: create with every parameter, retrieve until
// completed, list, download the content, delete; the ledger bills one clip.
func TestOpenAIVideos_sdkLifecycle(t *testing.T) {
	t.Parallel()
	srv, c, clock := newVideosClient(t, func(c *Config) { c.URLTTL = Duration(24 * time.Hour) })
	ctx := t.Context()

	created, err := c.Videos.New(ctx, openai.VideoNewParams{
		Model: "videogen-1", Prompt: "a heron lands on a pier [mock:hold]", Seconds: openai.VideoSeconds8,
		Size: openai.VideoSize1280x720,
		InputReference: openai.VideoNewParamsInputReferenceUnion{
			OfImageInputReference: &openai.ImageInputReferenceParam{ImageURL: openai.String("https://img.example/heron.png")},
		},
	})
	if err != nil {
		t.Fatalf("Videos.New: %v", err)
	}
	if created.Status != openai.VideoStatusQueued || created.Model != "videogen-1" || created.Seconds != "8" ||
		created.Size != openai.VideoSize1280x720 || !strings.HasPrefix(created.ID, "video_") || created.Object != "video" {
		t.Fatalf("created video = %+v, want queued videogen-1 8 s 1280x720 video_...", created)
	}
	task, _ := srv.Ledger().Task(created.ID)
	if got := string(task.Metadata); got != `{"input_reference[image_url]":"https://img.example/heron.png","size":"1280x720"}` {
		t.Errorf("ledger metadata = %s, want the size and the reference image as sent", got)
	}

	held, err := c.Videos.Get(ctx, created.ID)
	if err != nil {
		t.Fatalf("Videos.Get: %v", err)
	}
	if held.Status != openai.VideoStatusQueued || held.Progress != 0 || !held.JSON.Progress.Valid() {
		t.Errorf("held video = %s progress %d, want queued with progress 0", held.Status, held.Progress)
	}
	if _, err := c.Videos.Delete(ctx, created.ID); statusOf(err) != http.StatusBadRequest {
		t.Errorf("Videos.Delete of a running video: %v, want 400", err)
	}
	srv.FinishTask(created.ID)
	done, err := c.Videos.Get(ctx, created.ID)
	if err != nil {
		t.Fatalf("Videos.Get: %v", err)
	}
	if done.Status != openai.VideoStatusCompleted || done.Progress != 100 || done.CompletedAt == 0 ||
		done.ExpiresAt != done.CompletedAt+24*60*60 {
		t.Errorf("finished video = %+v, want completed, progress 100, expires_at 24 h after completed_at", done)
	}

	page, err := c.Videos.List(ctx, openai.VideoListParams{Limit: openai.Int(10)})
	if err != nil {
		t.Fatalf("Videos.List: %v", err)
	}
	if len(page.Data) != 1 || page.Data[0].ID != created.ID || page.HasMore {
		t.Errorf("Videos.List = %+v, want the one video", page)
	}

	res, err := c.Videos.DownloadContent(ctx, created.ID, openai.VideoDownloadContentParams{})
	if err != nil {
		t.Fatalf("Videos.DownloadContent: %v", err)
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	want, _ := srv.Clip(created.ID)
	if err != nil || !bytes.Equal(body, want) {
		t.Errorf("downloaded %d bytes (%v), want the task's clip of %d bytes", len(body), err, len(want))
	}

	// Once expires_at has come, the content is gone; the video is still there.
	clock.Add(24 * time.Hour)
	if gone, err := c.Videos.DownloadContent(ctx, created.ID, openai.VideoDownloadContentParams{}); statusOf(err) != http.StatusNotFound {
		t.Errorf("Videos.DownloadContent after expires_at: %v, want 404", err)
	} else if gone != nil {
		_ = gone.Body.Close()
	}
	deleted, err := c.Videos.Delete(ctx, created.ID)
	if err != nil || !deleted.Deleted || deleted.ID != created.ID || deleted.Object != "video.deleted" {
		t.Fatalf("Videos.Delete = %+v, %v; want deleted", deleted, err)
	}
	if _, err := c.Videos.Get(ctx, created.ID); statusOf(err) != http.StatusNotFound {
		t.Errorf("Videos.Get after delete: %v, want 404", err)
	}
	l := srv.Ledger()
	if len(l.Tasks) != 1 || !l.Tasks[0].Billed || !l.Tasks[0].Deleted {
		t.Errorf("ledger = %+v, want one billed, deleted task", l.Tasks)
	}
}

// TestOpenAIVideos_sdkFileReference: input_reference as a file upload, the
// other form the SDK sends.
func TestOpenAIVideos_sdkFileReference(t *testing.T) {
	t.Parallel()
	srv, c, _ := newVideosClient(t, nil)
	v, err := c.Videos.New(t.Context(), openai.VideoNewParams{
		Model: "videogen-1", Prompt: "a heron",
		InputReference: openai.VideoNewParamsInputReferenceUnion{OfFile: openai.File(strings.NewReader("PNG"), "heron.png", "image/png")},
	})
	if err != nil {
		t.Fatalf("Videos.New: %v", err)
	}
	if v.Size != openAIDefaultSize || v.Seconds != "5" {
		t.Errorf("video = %s, %s s; want the defaults %s and the model's 5 s", v.Size, v.Seconds, openAIDefaultSize)
	}
	if task, _ := srv.Ledger().Task(v.ID); string(task.Metadata) != `{"input_reference":"heron.png"}` {
		t.Errorf("ledger metadata = %s, want the uploaded file's name", task.Metadata)
	}
}

// TestOpenAIVideos_sdkRefusals: what OpenAI refuses is refused before any task
// exists, in its error shape, which the SDK reads.
func TestOpenAIVideos_sdkRefusals(t *testing.T) {
	t.Parallel()
	srv, c, _ := newVideosClient(t, nil)
	ctx := t.Context()
	withMetadata := openai.VideoNewParams{Model: "videogen-1", Prompt: "p"}
	withMetadata.SetExtraFields(map[string]any{"metadata": "x"})
	for _, tc := range []struct {
		name   string
		params openai.VideoNewParams
		status int
		param  string
	}{
		{"unknown parameter", withMetadata, http.StatusBadRequest, "metadata"},
		{"unknown model", openai.VideoNewParams{Model: "sora-9", Prompt: "p"}, http.StatusNotFound, "model"},
		{"size the model does not make", openai.VideoNewParams{Model: "videogen-1", Prompt: "p", Size: "1920x1080"},
			http.StatusBadRequest, "size"},
		{"too long", openai.VideoNewParams{Model: "videogen-1", Prompt: "p", Seconds: "12"}, http.StatusBadRequest, "seconds"},
	} {
		_, err := c.Videos.New(ctx, tc.params)
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status || apiErr.Param != tc.param || apiErr.Message == "" {
			t.Errorf("%s: %v, want HTTP %d naming %q", tc.name, err, tc.status, tc.param)
		}
	}
	if _, err := c.Videos.Get(ctx, "video_unknown"); statusOf(err) != http.StatusNotFound {
		t.Errorf("Videos.Get of an unknown video: %v, want 404", err)
	}
	if n := len(srv.Ledger().Tasks); n != 0 {
		t.Errorf("the ledger shows %d tasks, want none", n)
	}
}

// TestOpenAIVideos_sdkFailedAndPaged: a failed video carries OpenAI's error
// object; the list pages through the key's videos newest first.
func TestOpenAIVideos_sdkFailedAndPaged(t *testing.T) {
	t.Parallel()
	srv, c, _ := newVideosClient(t, func(c *Config) { c.TaskDuration = 0 })
	ctx := t.Context()
	failed, err := c.Videos.New(ctx, openai.VideoNewParams{Model: "videogen-1", Prompt: "a storm [mock:fail]"})
	if err != nil {
		t.Fatalf("Videos.New: %v", err)
	}
	got, err := c.Videos.Get(ctx, failed.ID)
	if err != nil || got.Status != openai.VideoStatusFailed || got.Error.Code == "" || !strings.Contains(got.Error.Message, "simulated failure") {
		t.Fatalf("failed video = %+v, %v; want failed with a code and the reason", got, err)
	}
	var ids []string
	for range 4 {
		v, err := c.Videos.New(ctx, openai.VideoNewParams{Model: "videogen-1", Prompt: "a heron"})
		if err != nil {
			t.Fatalf("Videos.New: %v", err)
		}
		ids = append(ids, v.ID)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var listed []string
	iter := c.Videos.ListAutoPaging(ctx, openai.VideoListParams{Limit: openai.Int(2), Order: openai.VideoListParamsOrderAsc})
	for iter.Next() {
		listed = append(listed, iter.Current().ID)
	}
	if err := iter.Err(); err != nil {
		t.Fatalf("ListAutoPaging: %v", err)
	}
	want := append([]string{failed.ID}, ids...)
	if strings.Join(listed, " ") != strings.Join(want, " ") {
		t.Errorf("listed %v, want %v in submission order", listed, want)
	}
	if n := srv.Ledger().Requests["GET "+epVideos]; n != 3 {
		t.Errorf("%d list requests, want 3 pages of at most 2", n)
	}
}

// TestOpenAIVideos_progress: progress grows linearly with the task's time, is
// below 100 until the video is completed, and 0 for a held task, which has no
// planned end.
func TestOpenAIVideos_progress(t *testing.T) {
	t.Parallel()
	_, c, clock := newVideosClient(t, func(c *Config) { c.TaskDuration = Duration(100 * time.Second) })
	ctx := t.Context()
	v, err := c.Videos.New(ctx, openai.VideoNewParams{Model: "videogen-1", Prompt: "a heron"})
	if err != nil {
		t.Fatalf("Videos.New: %v", err)
	}
	held, err := c.Videos.New(ctx, openai.VideoNewParams{Model: "videogen-1", Prompt: "a heron [mock:hold]"})
	if err != nil {
		t.Fatalf("Videos.New: %v", err)
	}
	for _, step := range []struct {
		advance  time.Duration
		status   openai.VideoStatus
		progress int64
	}{
		{0, openai.VideoStatusQueued, 0},
		{40 * time.Second, openai.VideoStatusInProgress, 40},
		{59 * time.Second, openai.VideoStatusInProgress, 99},
		{time.Second, openai.VideoStatusCompleted, 100},
	} {
		clock.Add(step.advance)
		got, err := c.Videos.Get(ctx, v.ID)
		if err != nil || got.Status != step.status || got.Progress != step.progress {
			t.Errorf("after %s more: %s %d (%v), want %s %d", step.advance, got.Status, got.Progress, err, step.status, step.progress)
		}
	}
	if got, err := c.Videos.Get(ctx, held.ID); err != nil || got.Status != openai.VideoStatusInProgress || got.Progress != 0 {
		t.Errorf("held video: %+v, %v; want in_progress with progress 0", got, err)
	}
}

// statusOf is the HTTP status of an SDK error, 0 for anything else.
func statusOf(err error) int {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode
	}
	return 0
}

// TestOpenAIVideos_withoutDelete: as new-api v0.10.0 serves /v1/videos, the
// video is created, read and downloaded, but DELETE and the list are not
// routes at all.
func TestOpenAIVideos_withoutDelete(t *testing.T) {
	t.Parallel()
	srv, c, _ := newVideosClient(t, func(c *Config) { c.TaskDuration, c.VideosWithoutDelete = 0, true })
	ctx := t.Context()
	v, err := c.Videos.New(ctx, openai.VideoNewParams{Model: "videogen-1", Prompt: "a heron"})
	if err != nil {
		t.Fatalf("Videos.New: %v", err)
	}
	if got, err := c.Videos.Get(ctx, v.ID); err != nil || got.Status != openai.VideoStatusCompleted {
		t.Fatalf("Videos.Get = %+v, %v", got, err)
	}
	_, err = c.Videos.Delete(ctx, v.ID)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || apiErr.Message != "Invalid URL (DELETE /v1/videos/"+v.ID+")" {
		t.Errorf("Videos.Delete: %v, want new-api's 404 Invalid URL", err)
	}
	if _, err := c.Videos.List(ctx, openai.VideoListParams{}); statusOf(err) != http.StatusNotFound {
		t.Errorf("Videos.List: %v, want 404", err)
	}
	if task, _ := srv.Ledger().Task(v.ID); task.Deleted {
		t.Error("the video was deleted")
	}
}
