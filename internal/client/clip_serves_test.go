package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
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
// route, takes a one-byte GET too). Whether Google's own file route answers
// HEAD cannot be checked offline, so the Gemini API's files are asked about
// both ways.
func TestClipServes(t *testing.T) {
	t.Parallel()
	gemini := []func(*mockapi.Config){mockapi.WithDialect(mockapi.DialectGemini)}
	for _, tc := range []struct {
		name string
		opts []func(*mockapi.Config)
		// headAnswered puts a front before the mock that answers HEAD on
		// every route.
		headAnswered bool
		// probes is what asking costs while the clip serves.
		probes int64
	}{
		{"signed", nil, false, 1},
		{"keyed", []func(*mockapi.Config){mockapi.WithKeyedClips()}, false, 1},
		{"gemini", gemini, false, 2},
		{"gemini answering HEAD", gemini, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := acctest.NewMock(t, tc.opts...)
			if tc.headAnswered {
				m = answeringHEAD(t, m)
			}
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

// answeringHEAD is m behind a front that answers a HEAD as the GET of the
// first byte it asks the mock for, whose body a HEAD response leaves out: the
// ledger counts it as the range request it is, not as a download.
func answeringHEAD(t *testing.T, m *acctest.Mock) *acctest.Mock {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			r = r.Clone(r.Context())
			r.Method = http.MethodGet
			r.Header.Set("Range", "bytes=0-0")
		}
		m.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	front := *m
	front.URL = ts.URL
	return &front
}

// probeCounter counts the client's requests to clip hosts that ask whether a
// clip serves.
type probeCounter struct{ n atomic.Int64 }

func (p *probeCounter) Debug(_ context.Context, msg string, _ map[string]any) {
	if msg == "videogen clip probe" {
		p.n.Add(1)
	}
}
