package client_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// bufferOutput is a client.Output in memory.
type bufferOutput struct{ bytes.Buffer }

func (b *bufferOutput) Reset() error { b.Buffer.Reset(); return nil }

// A clip the mock keeps behind the key, on its own address as new-api does,
// downloads with the key, in both dialects; the same download with another
// key is refused, and no request reaches the ledger as a submission.
func TestDownloadVideoBehindTheKey(t *testing.T) {
	t.Parallel()
	for _, dialect := range mockapi.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			m := acctest.NewMock(t, mockapi.WithDialect(dialect), mockapi.WithKeyedClips())
			c := m.Client(t)
			v, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: mockapi.DefaultConfig().Models[0].ID, Prompt: "a lighthouse at dawn"})
			if err != nil {
				t.Fatal(err)
			}
			if v, err = c.WaitForVideo(t.Context(), v.TaskID); err != nil || v.Status != client.StatusSucceeded {
				t.Fatalf("WaitForVideo = %+v, %v", v, err)
			}
			if want := m.URL + "/v1/videos/" + v.TaskID + "/content"; v.URL != want {
				t.Fatalf("the clip URL is %s, want %s on the API's own address", v.URL, want)
			}
			out := &bufferOutput{}
			dl, err := c.DownloadVideo(t.Context(), v, out, 1<<30)
			clip, _ := m.Clip(v.TaskID)
			if err != nil || dl.Bytes != int64(len(clip)) || !bytes.Equal(out.Bytes(), clip) {
				t.Fatalf("DownloadVideo = %+v, %v; %d bytes, want the %d-byte clip", dl, err, out.Len(), len(clip))
			}

			wrong, err := client.New(m.URL, "not-the-key", client.WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			_, err = wrong.DownloadVideo(t.Context(), v, &bufferOutput{}, 1<<30)
			var dErr *client.DownloadError
			if !errors.As(err, &dErr) || dErr.StatusCode != 401 || !dErr.WithKey {
				t.Errorf("DownloadVideo with a wrong key: %v, want HTTP 401 with the key", err)
			}
			if n := m.Submissions(); n != 1 {
				t.Errorf("the mock received %d tasks, want 1", n)
			}
		})
	}
}
