package client_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// A succeeded clip serves until its storage expires; then neither its URL
// nor a fresh one does, while the task still answers succeeded. Keyed clips
// (new-api's) and the Gemini API's files too. Asking downloads nothing, and
// costs one request to the clip's host while the clip serves (a HEAD; a host
// that refuses HEAD, a URL signed for GET only or the mock's Gemini file
// route, takes a one-byte GET too).
func TestClipServes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []func(*mockapi.Config)
		// probes is what asking costs while the clip serves.
		probes int64
	}{
		{"signed", nil, 1},
		{"keyed", []func(*mockapi.Config){mockapi.WithKeyedClips()}, 1},
		{"gemini", []func(*mockapi.Config){mockapi.WithDialect(mockapi.DialectGemini)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := acctest.NewMock(t, tc.opts...)
			probes := &probeCounter{}
			c := m.Client(t, client.WithLogger(probes))
			v, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: mockapi.DefaultConfig().Models[0].ID, Prompt: "a tide that goes out"})
			if err != nil {
				t.Fatal(err)
			}
			if v, err = c.WaitForVideo(t.Context(), v.TaskID); err != nil || v.Status != client.StatusSucceeded {
				t.Fatalf("WaitForVideo = %+v, %v", v, err)
			}
			if serves, err := c.ClipServes(t.Context(), v); !serves || err != nil {
				t.Fatalf("ClipServes of a fresh clip = %v, %v; want true", serves, err)
			}
			if n := m.ClipDownloads(); n != 0 {
				t.Fatalf("asking whether the clip serves downloaded it %d time(s), want 0", n)
			}
			if n := probes.n.Load(); n != tc.probes {
				t.Errorf("asking whether the clip serves took %d request(s) to its host, want %d", n, tc.probes)
			}
			// A whole download is still counted as one: the count above
			// is not blind.
			if _, err := c.DownloadVideo(t.Context(), v, &bufferOutput{}, 1<<20); err != nil {
				t.Fatal(err)
			}
			if n := m.ClipDownloads(); n != 1 {
				t.Fatalf("one download of the clip counted %d time(s), want 1", n)
			}
			if !m.ExpireClip(v.TaskID) {
				t.Fatal("the mock could not expire the clip")
			}
			if serves, err := c.ClipServes(t.Context(), v); serves || err != nil {
				t.Fatalf("ClipServes of an expired clip = %v, %v; want false, nil", serves, err)
			}
			// Proving it gone: HEAD and a one-byte GET of the URL, then of a
			// fresh one read from the task.
			if n := probes.n.Load() - tc.probes; n != 4 {
				t.Errorf("asking whether the expired clip serves took %d request(s) to its host, want 4", n)
			}
		})
	}
}

// probeCounter counts the client's requests to clip hosts that ask whether a
// clip serves.
type probeCounter struct{ n atomic.Int64 }

func (p *probeCounter) Debug(_ context.Context, msg string, _ map[string]any) {
	if msg == "videogen clip probe" {
		p.n.Add(1)
	}
}
