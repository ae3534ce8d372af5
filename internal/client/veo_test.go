package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// vertexTestToken is the access token the test's token source hands out; the
// mock knows it as one of its keys.
const vertexTestToken = "ya29.client-test-access-token"

// staticTokens is a token source the test controls.
type staticTokens struct{ token string }

func (s staticTokens) Token() (*oauth2.Token, error) {
	return &oauth2.Token{AccessToken: s.token, TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}, nil
}

// veoMock serves the mock in a Google dialect, tasks held until released.
func veoMock(t *testing.T, dialect string) (*mockapi.Server, string) {
	t.Helper()
	cfg := mockapi.DefaultConfig()
	cfg.Dialect, cfg.HoldTasks = dialect, true
	cfg.Keys = append(cfg.Keys, mockapi.Key{Key: vertexTestToken})
	srv, err := mockapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts.URL
}

// veoClient is the client of api against base, with the given credential: the
// Gemini API's key, or the token vertex's source hands out.
func veoClient(t *testing.T, api client.API, base, credential string, opts ...client.Option) *client.Client {
	t.Helper()
	opts = append(opts, client.WithAPI(api), client.WithRetryWait(time.Millisecond, 5*time.Millisecond),
		client.WithPollPolicy(client.PollPolicy{Fixed: time.Millisecond, MaxConsecutiveErrors: 3}))
	key := credential
	if api == client.APIVertex {
		key = ""
		opts = append(opts, client.WithTokenSource(staticTokens{credential}), client.WithVertexProject("videogen-test", "us-central1"))
	}
	c, err := client.New(base, key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func credentialOf(api client.API) string {
	if api == client.APIVertex {
		return vertexTestToken
	}
	return mockapi.DefaultAPIKey
}

var veoAPIs = map[client.API]string{client.APIGemini: mockapi.DialectGemini, client.APIVertex: mockapi.DialectVertex}

// The client follows a Veo operation through both of Google's APIs: submit
// with the typed parameters, read until done, download the clip (the Gemini
// API's file behind the key; Vertex AI's clip inline in the operation), one
// submission billed.
func TestVeoLifecycleAgainstMock(t *testing.T) {
	t.Parallel()
	for api, dialect := range veoAPIs {
		t.Run(string(api), func(t *testing.T) {
			t.Parallel()
			srv, base := veoMock(t, dialect)
			c := veoClient(t, api, base, credentialOf(api))
			audio := true
			md := &client.Metadata{Ratio: "16:9", Resolution: "720p",
				Extra: map[string]json.RawMessage{"negativePrompt": json.RawMessage(`"blur"`)}}
			if api == client.APIVertex {
				md.GenerateAudio = &audio
			}
			v, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "a heron", Seconds: "8", Metadata: md})
			if err != nil {
				t.Fatalf("SubmitVideo: %v", err)
			}
			if v.Status != client.StatusSubmitted || !strings.Contains(v.TaskID, "/operations/") {
				t.Fatalf("SubmitVideo = %+v, want a submitted operation", v)
			}
			task, _ := srv.Ledger().Task(v.TaskID)
			want := `{"aspectRatio":"16:9","durationSeconds":8,"negativePrompt":"blur","resolution":"720p"}`
			if api == client.APIVertex {
				want = `{"aspectRatio":"16:9","durationSeconds":8,"generateAudio":true,"negativePrompt":"blur","resolution":"720p"}`
			}
			if string(task.Metadata) != want || task.Seconds != "8" {
				t.Errorf("the mock received %s (seconds %q), want %s", task.Metadata, task.Seconds, want)
			}
			got, err := c.GetVideo(t.Context(), v.TaskID)
			if err != nil || got.Status != client.StatusRunning || got.TaskID != v.TaskID {
				t.Fatalf("GetVideo of a held operation = %+v, %v; want running", got, err)
			}
			srv.FinishTask(v.TaskID)
			got, err = c.GetVideo(t.Context(), v.TaskID)
			if err != nil || got.Status != client.StatusSucceeded {
				t.Fatalf("GetVideo of a finished operation = %+v, %v; want succeeded", got, err)
			}
			if api == client.APIGemini && !strings.HasPrefix(got.URL, base+"/v1beta/files/") {
				t.Errorf("URL = %q, want the service's file", got.URL)
			}
			if api == client.APIVertex && (!got.InlineClip || got.URL != "") {
				t.Errorf("video = %+v, want the clip inline and no URL", got)
			}
			var out bufferOutput
			if _, err := c.DownloadVideo(t.Context(), got, &out, 1<<20); err != nil {
				t.Fatalf("DownloadVideo: %v", err)
			}
			if clip, _ := srv.Clip(v.TaskID); !bytes.Equal(out.Bytes(), clip) {
				t.Errorf("downloaded %d bytes, want the mock's clip of %d", out.Len(), len(clip))
			}
			if l := srv.Ledger(); len(l.Tasks) != 1 || !l.Tasks[0].Billed {
				t.Errorf("ledger = %+v, want one billed task", l.Tasks)
			}
		})
	}
}

// A generation Veo's safety filters withheld (done, no sample) is a failed clip
// with the filter's reason, not a success without a URL.
func TestVeoFilteredGenerationFails(t *testing.T) {
	t.Parallel()
	for api, dialect := range veoAPIs {
		t.Run(string(api), func(t *testing.T) {
			t.Parallel()
			srv, base := veoMock(t, dialect)
			c := veoClient(t, api, base, credentialOf(api))
			v, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "a heron " + mockapi.FilterMarker})
			if err != nil {
				t.Fatal(err)
			}
			srv.FailTask(v.TaskID, "the video may show a real person")
			got, err := c.GetVideo(t.Context(), v.TaskID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != client.StatusFailed || !strings.Contains(got.FailureReason, "safety filters") ||
				!strings.Contains(got.FailureReason, "the video may show a real person") {
				t.Errorf("filtered operation = %+v, want failed with the filter's reason", got)
			}
		})
	}
}

// A failed operation is a failed clip with its error's message.
func TestVeoFailedOperation(t *testing.T) {
	t.Parallel()
	srv, base := veoMock(t, mockapi.DialectGemini)
	c := veoClient(t, client.APIGemini, base, mockapi.DefaultAPIKey)
	v, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "a heron"})
	if err != nil {
		t.Fatal(err)
	}
	srv.FailTask(v.TaskID, "the heron would not land")
	got, err := c.GetVideo(t.Context(), v.TaskID)
	if err != nil || got.Status != client.StatusFailed || !strings.HasPrefix(got.FailureReason, "the heron would not land") {
		t.Errorf("failed operation = %+v, %v; want failed with its reason", got, err)
	}
}

// A refused key (the Gemini API answers 400 API_KEY_INVALID) or token (Vertex
// AI's 401) is an unauthorized error, and an unknown model a 404; nothing is
// created.
func TestVeoRefusals(t *testing.T) {
	t.Parallel()
	for api, dialect := range veoAPIs {
		t.Run(string(api), func(t *testing.T) {
			t.Parallel()
			srv, base := veoMock(t, dialect)
			_, err := veoClient(t, api, base, "not-a-credential").SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "p"})
			if !client.IsUnauthorized(err) || !client.IsKeyRefused(err) {
				t.Errorf("bad credential: %v, want an unauthorized error", err)
			}
			_, err = veoClient(t, api, base, credentialOf(api)).SubmitVideo(t.Context(), client.VideoRequest{Model: "veo-nope", Prompt: "p"})
			if !client.IsNotFound(err) {
				t.Errorf("unknown model: %v, want a 404", err)
			}
			if n := len(srv.Ledger().Tasks); n != 0 {
				t.Errorf("%d tasks created, want none", n)
			}
		})
	}
}

// The model list keeps the Gemini API's models that generate videos
// (predictLongRunning), not its text models.
func TestVeoListModels(t *testing.T) {
	t.Parallel()
	for api, dialect := range veoAPIs {
		t.Run(string(api), func(t *testing.T) {
			t.Parallel()
			_, base := veoMock(t, dialect)
			models, err := veoClient(t, api, base, credentialOf(api)).ListModels(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, m := range models {
				ids = append(ids, m.ID)
			}
			if got := strings.Join(ids, ","); got != "videogen-1,videogen-1-fast,videogen-2" {
				t.Errorf("models = %s, want the three video models", got)
			}
		})
	}
}

// The vertex API's storage destination goes as storageUri, and the clip is then
// where Vertex AI wrote it: the task's URL is the gs:// URI, and the client does
// not pretend to download it.
func TestVertexStorageURI(t *testing.T) {
	t.Parallel()
	srv, base := veoMock(t, mockapi.DialectVertex)
	c := veoClient(t, client.APIVertex, base, vertexTestToken)
	v, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: "p", StorageURI: "gs://bucket/clips/"})
	if err != nil {
		t.Fatal(err)
	}
	srv.FinishTask(v.TaskID)
	got, err := c.GetVideo(t.Context(), v.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if want := mockapi.VertexClipURI("gs://bucket/clips/", v.TaskID); got.URL != want || got.InlineClip {
		t.Errorf("video = %+v, want URL %s", got, want)
	}
	if _, err := c.DownloadVideo(t.Context(), got, &bufferOutput{}, 1<<20); err == nil || !strings.Contains(err.Error(), "Cloud Storage") {
		t.Errorf("DownloadVideo of a gs:// clip: %v, want an error naming Cloud Storage", err)
	}
}

// What Veo cannot carry is refused before anything is sent, each member named.
func TestVeoInexpressible(t *testing.T) {
	t.Parallel()
	yes := true
	req := client.VideoRequest{Model: "m", Prompt: "p", Seconds: "x", StorageURI: "s3://b", Metadata: &client.Metadata{
		GenerateAudio: &yes, CallbackURL: "https://hook.example/",
		Content: []client.ContentEntry{
			client.NewContentEntry(client.ContentImage, "gs://b/1.png"), client.NewContentEntry(client.ContentImage, "https://i/2.png"),
			client.NewContentEntry(client.ContentImage, "https://i/3.png"), client.NewContentEntry(client.ContentImage, "https://i/4.png"),
			client.NewContentEntry(client.ContentVideo, "https://v/1.mp4"),
		},
		Extra: map[string]json.RawMessage{"sampleCount": json.RawMessage("2"), "seed": json.RawMessage("7")},
	}}
	names := func(a client.API) string {
		var out []string
		for _, p := range a.Inexpressible(req) {
			out = append(out, p.Param)
		}
		return strings.Join(out, " ")
	}
	// First what the API does not carry at all, then what it cannot carry of a value.
	if got, want := names(client.APIGemini), "storage_uri metadata.callback_url metadata.content[video_url] "+
		"metadata.generate_audio seconds metadata.content[image_url] metadata.content[image_url] metadata.sampleCount"; got != want {
		t.Errorf("gemini refuses %q, want %q", got, want)
	}
	if got, want := names(client.APIVertex), "metadata.callback_url metadata.content[video_url] seconds storage_uri "+
		"metadata.content[image_url] metadata.sampleCount"; got != want {
		t.Errorf("vertex refuses %q, want %q", got, want)
	}
	if got := names(client.APIVideoGenerations); got != "storage_uri" {
		t.Errorf("video-generations refuses %q, want storage_uri only", got)
	}
	var ierr *client.InexpressibleError
	srv, base := veoMock(t, mockapi.DialectGemini)
	if _, err := veoClient(t, client.APIGemini, base, mockapi.DefaultAPIKey).SubmitVideo(t.Context(), req); !errors.As(err, &ierr) {
		t.Errorf("SubmitVideo: %v, want an InexpressibleError", err)
	}
	if n := srv.Ledger().RequestCount(); n != 0 {
		t.Errorf("%d requests reached the service, want none", n)
	}
}

// Reference images go to Veo as their bytes, fetched without any credential;
// on Vertex AI a gs:// image goes as itself.
func TestVeoReferenceImagesGoAsBytes(t *testing.T) {
	t.Parallel()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")
	var mu sync.Mutex
	var imageHeaders []http.Header
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		imageHeaders = append(imageHeaders, r.Header.Clone())
		mu.Unlock()
		_, _ = w.Write(png)
	}))
	t.Cleanup(images.Close)
	sum := sha256.Sum256(png)
	for api, dialect := range veoAPIs {
		t.Run(string(api), func(t *testing.T) {
			t.Parallel()
			srv, base := veoMock(t, dialect)
			content := []client.ContentEntry{client.NewContentEntry(client.ContentImage, images.URL+"/mug.png?X-Amz-Signature=abc")}
			want := `"referenceImages":["sha256:` + hex.EncodeToString(sum[:]) + `"`
			if api == client.APIVertex {
				content = append(content, client.NewContentEntry(client.ContentImage, "gs://refs/cup.png"))
				want += `,"gs://refs/cup.png"`
			}
			v, err := veoClient(t, api, base, credentialOf(api)).SubmitVideo(t.Context(),
				client.VideoRequest{Model: "videogen-1", Prompt: "p", Metadata: &client.Metadata{Content: content}})
			if err != nil {
				t.Fatal(err)
			}
			task, _ := srv.Ledger().Task(v.TaskID)
			if !strings.Contains(string(task.Metadata), want+"]") {
				t.Errorf("the mock received %s, want %s]", task.Metadata, want)
			}
		})
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, h := range imageHeaders {
			if h.Get("Authorization") != "" || h.Get("X-Goog-Api-Key") != "" {
				t.Errorf("the image host received a credential: %v", h)
			}
		}
	})
}

// The Gemini API's key goes with a clip download only on the service's own
// origin: a file URI on another host gets no key.
func TestGeminiKeyOnlyOnOwnOrigin(t *testing.T) {
	t.Parallel()
	clip := mockapi.ClipFor("elsewhere")
	var mu sync.Mutex
	var keys []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("X-Goog-Api-Key")+r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = w.Write(clip)
	}))
	t.Cleanup(other.Close)
	var sameKey string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ":download") {
			sameKey = r.Header.Get("X-Goog-Api-Key")
			_, _ = w.Write(clip)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(api.Close)
	c := veoClient(t, client.APIGemini, api.URL, mockapi.DefaultAPIKey)
	for _, u := range []string{other.URL + "/v1beta/files/abc:download?alt=media", api.URL + "/v1beta/files/abc:download?alt=media"} {
		if _, err := c.DownloadVideo(t.Context(), &client.Video{TaskID: "t", Status: client.StatusSucceeded, URL: u}, &bufferOutput{}, 1<<20); err != nil {
			t.Fatalf("DownloadVideo %s: %v", u, err)
		}
	}
	if len(keys) != 1 || keys[0] != "" {
		t.Errorf("another origin received credentials %q, want none", keys)
	}
	if sameKey != mockapi.DefaultAPIKey {
		t.Errorf("the service's own origin received key %q, want the key", sameKey)
	}
}

// Every member of a request is sent to Veo or refused by API.Inexpressible: a
// member added to VideoRequest fails this test until it is one of the two.
func TestVeoHandlesEveryRequestMember(t *testing.T) {
	t.Parallel()
	handled := map[string]string{
		"VideoRequest.Model":      "in the URL",
		"VideoRequest.Prompt":     "instances[0].prompt",
		"VideoRequest.Seconds":    "parameters.durationSeconds, or refused when not a whole number",
		"VideoRequest.Metadata":   "its members below",
		"VideoRequest.StorageURI": "parameters.storageUri on Vertex AI, refused elsewhere",
		"VideoRequest.IdempotencyKey": "sent as the Idempotency-Key header, as on every API (Veo does not promise to " +
			"honour it)",
		"Metadata.Ratio":         "parameters.aspectRatio",
		"Metadata.Resolution":    "parameters.resolution",
		"Metadata.GenerateAudio": "parameters.generateAudio on Vertex AI, refused on the Gemini API",
		"Metadata.CallbackURL":   "refused",
		"Metadata.Content":       "images as instances[0].referenceImages (at most 3); video and audio refused",
		"Metadata.Extra":         "members of parameters, except the typed ones, refused",
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[client.VideoRequest](), reflect.TypeFor[client.Metadata]()} {
		for f := range typ.Fields() {
			if name := typ.Name() + "." + f.Name; f.IsExported() && handled[name] == "" {
				t.Errorf("%s is not handled for Veo: send it in veoBody or refuse it in veoInexpressible, then list it here", name)
			}
		}
	}
}

// An operation name of another shape never reaches a path: nothing is sent.
func TestVeoOperationNamesStayInTheirPath(t *testing.T) {
	t.Parallel()
	for api, dialect := range veoAPIs {
		srv, base := veoMock(t, dialect)
		c := veoClient(t, api, base, credentialOf(api))
		for _, name := range []string{"../../v1beta/files/x", "models/m/operations/", "models/m/files/x", "x"} {
			if _, err := c.GetVideo(t.Context(), name); err == nil {
				t.Errorf("%s: GetVideo(%q) succeeded", api, name)
			}
		}
		if n := srv.Ledger().RequestCount(); n != 0 {
			t.Errorf("%s: %d requests sent, want none", api, n)
		}
	}
}

// No access token reaches a log line or an error, even when the service quotes
// it back.
func TestVertexTokenStaysOutOfLogsAndErrors(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":400,"message":"bad header %s","status":"INVALID_ARGUMENT"}}`, //nolint:gosec // G705: JSON to the test's own client
			r.Header.Get("Authorization"))
	}))
	t.Cleanup(echo.Close)
	logger := &tokenLogger{}
	c := veoClient(t, client.APIVertex, echo.URL, vertexTestToken, client.WithLogger(logger))
	_, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: "m", Prompt: "p"})
	if err == nil || strings.Contains(err.Error(), vertexTestToken) {
		t.Errorf("error %v, want one without the token", err)
	}
	if strings.Contains(logger.text(), vertexTestToken) {
		t.Errorf("the log holds the token: %s", logger.text())
	}
	if !strings.Contains(logger.text(), "bad header") {
		t.Error("the log lacks the answer: the test saw nothing")
	}
}

type tokenLogger struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *tokenLogger) Debug(_ context.Context, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, "%s %v\n", msg, fields)
}

func (l *tokenLogger) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
