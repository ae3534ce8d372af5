package client_test

import (
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// The client reads the mock's new-api dialect as it reads the real gateway's
// answers (testdata/newapi): every call, one submission per task.
func TestClientAgainstNewAPIMock(t *testing.T) {
	t.Parallel()
	m := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectNewAPI), func(c *mockapi.Config) { c.HoldTasks = true })
	c, err := client.New(m.URL, mockapi.DefaultAPIKey,
		client.WithRetryWait(time.Millisecond, 5*time.Millisecond),
		client.WithPollPolicy(client.PollPolicy{Fixed: time.Millisecond, MaxConsecutiveErrors: 3}))
	if err != nil {
		t.Fatal(err)
	}
	model := mockapi.DefaultConfig().Models[0].ID
	submit := func(prompt string) *client.Video {
		t.Helper()
		v, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: model, Prompt: prompt, Seconds: "4",
			Metadata: &client.Metadata{Resolution: "480p"}})
		if err != nil {
			t.Fatalf("SubmitVideo: %v", err)
		}
		if v.TaskID == "" || v.Status != client.StatusSubmitted {
			t.Fatalf("SubmitVideo = %+v, want a submitted task", v)
		}
		return v
	}

	ok := submit("a lighthouse at dawn")
	v, err := c.GetVideo(t.Context(), ok.TaskID)
	if err != nil || v.Status.Final() || v.TaskID != ok.TaskID {
		t.Fatalf("GetVideo of a held task = %+v, %v; want it unfinished", v, err)
	}
	if !m.FinishTask(ok.TaskID) {
		t.Fatal("FinishTask failed")
	}
	v, err = c.GetVideo(t.Context(), ok.TaskID)
	if err != nil || v.Status != client.StatusSucceeded || v.URL == "" {
		t.Fatalf("GetVideo of a finished task = %+v, %v; want succeeded with a URL", v, err)
	}
	// The gateway dropped seconds and resolution: the upstream's record says
	// what it made instead, and the canonical echo says nothing.
	if v.Made == nil || v.Made.Seconds == "" || v.Made.Seconds == "4" || v.Made.Resolution == "" || v.Made.Resolution == "480p" {
		t.Errorf("Made = %+v, want the model's defaults", v.Made)
	}
	if v.Metadata != nil {
		t.Errorf("Metadata = %+v, want none", v.Metadata)
	}

	failed := submit("a storm at sea")
	if !m.FailTask(failed.TaskID, "the output video may contain sensitive information") {
		t.Fatal("FailTask failed")
	}
	v, err = c.GetVideo(t.Context(), failed.TaskID)
	if err != nil || v.Status != client.StatusFailed || v.FailureReason == "" || v.FailureReason == "task failed" {
		t.Fatalf("GetVideo of a failed task = %+v, %v; want failed with the upstream's reason", v, err)
	}

	if _, err := c.GetVideo(t.Context(), "cgt-no-such-task"); !client.IsNotFound(err) || client.IsBadRequest(err) {
		t.Errorf("GetVideo of an unknown task: %v, want not found", err)
	}
	before := m.Ledger().Requests["POST /v1/video/generations"]
	_, err = c.SubmitVideo(t.Context(), client.VideoRequest{Model: "no-such-model", Prompt: "p"})
	if !client.IsUnknownModel(err) || client.IsAmbiguousSubmit(err) {
		t.Errorf("SubmitVideo of an unknown model: %v, want an unknown model", err)
	}
	if n := m.Ledger().Requests["POST /v1/video/generations"] - before; n != 1 {
		t.Errorf("the unknown model was sent %d times, want once", n)
	}
	_, err = c.SubmitVideo(t.Context(), client.VideoRequest{Model: model, Prompt: " "})
	if !client.IsBadRequest(err) {
		t.Errorf("SubmitVideo without a prompt: %v, want a bad request", err)
	}
	if n := len(m.Ledger().Tasks); n != 2 {
		t.Errorf("the mock received %d tasks, want 2", n)
	}
	wrong, err := client.New(m.URL, "wrong-key")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.GetVideo(t.Context(), ok.TaskID); !client.IsUnauthorized(err) {
		t.Errorf("GetVideo with a wrong key: %v, want unauthorized", err)
	}
}
