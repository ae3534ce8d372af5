package mockapi

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2"
	"google.golang.org/genai"
)

// The gemini and vertex dialects are held to Google's shapes by Google's own
// Go client, google.golang.org/genai: if it cannot send to them or read them,
// the dialects are wrong, whatever this repository's client makes of them.

// vertexToken is the access token the test's token source hands out, one of
// the mock's keys, as a Google account's token would be one Vertex AI knows.
const vertexToken = "ya29.mock-vertex-access-token"

// testTokens is a token source the test controls: no Google account is needed
// and none is reached. It counts the tokens it handed out.
type testTokens struct {
	mu     sync.Mutex
	token  string
	issued int
}

func (s *testTokens) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issued++
	return &oauth2.Token{AccessToken: s.token, TokenType: "Bearer"}, nil
}

// newGenaiClient is genai's client of a mock speaking dialect (gemini or
// vertex), authenticated with key (the Gemini API's key, or the access token
// the vertex client's token source hands out).
func newGenaiClient(t *testing.T, srvURL, dialect, key string) (*genai.Client, *testTokens) {
	t.Helper()
	cfg := &genai.ClientConfig{HTTPOptions: genai.HTTPOptions{BaseURL: srvURL}}
	tokens := &testTokens{token: key}
	if dialect == DialectGemini {
		cfg.Backend, cfg.APIKey = genai.BackendGeminiAPI, key
		cfg.HTTPClient = &http.Client{}
	} else {
		cfg.Backend, cfg.Project, cfg.Location = genai.BackendVertexAI, "videogen-test", "us-central1"
		cfg.HTTPOptions.APIVersion = "v1"
		cfg.HTTPClient = &http.Client{Transport: &oauth2.Transport{Source: tokens, Base: http.DefaultTransport}}
	}
	c, err := genai.NewClient(t.Context(), cfg)
	if err != nil {
		t.Fatalf("genai.NewClient: %v", err)
	}
	return c, tokens
}

// newGoogleMock is the mock speaking dialect, with the vertex token among its keys.
func newGoogleMock(t *testing.T, dialect string) (*Server, string) {
	t.Helper()
	srv, ts := newTestServer(t, func(c *Config) {
		WithDialect(dialect)(c)
		c.Keys = append(c.Keys, Key{Key: vertexToken})
	})
	return srv, ts.URL
}

func googleKey(dialect string) string {
	if dialect == DialectGemini {
		return DefaultAPIKey
	}
	return vertexToken
}

// A PNG's first bytes: enough for the mock, which records its digest.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")

// TestGenai_lifecycle: genai creates a video with every parameter its backend
// takes, reads the operation until done and downloads the clip (the Gemini
// API's file; Vertex AI's bytes in the operation); the ledger bills one clip
// and recorded the parameters as sent.
func TestGenai_lifecycle(t *testing.T) {
	t.Parallel()
	for _, dialect := range GoogleDialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			srv, url := newGoogleMock(t, dialect)
			c, tokens := newGenaiClient(t, url, dialect, googleKey(dialect))
			ctx := t.Context()
			secs := int32(8)
			cfg := &genai.GenerateVideosConfig{AspectRatio: "16:9", Resolution: "720p", DurationSeconds: &secs,
				NegativePrompt: "blur", PersonGeneration: "allow_adult"}
			want := `{"aspectRatio":"16:9","durationSeconds":8,"negativePrompt":"blur","personGeneration":"allow_adult","referenceImages":["sha256:`
			if dialect == DialectGemini {
				cfg.ReferenceImages = []*genai.VideoGenerationReferenceImage{{Image: &genai.Image{ImageBytes: pngBytes, MIMEType: "image/png"},
					ReferenceType: genai.VideoGenerationReferenceTypeAsset}}
			} else {
				audio := true
				cfg.GenerateAudio = &audio
				cfg.ReferenceImages = []*genai.VideoGenerationReferenceImage{{Image: &genai.Image{GCSURI: "gs://refs/mug.png", MIMEType: "image/png"},
					ReferenceType: genai.VideoGenerationReferenceTypeAsset}}
				want = `{"aspectRatio":"16:9","durationSeconds":8,"generateAudio":true,"negativePrompt":"blur","personGeneration":"allow_adult","referenceImages":["gs://refs/mug.png"]`
			}
			op, err := c.Models.GenerateVideos(ctx, "videogen-1", "a heron lands on a pier [mock:hold]", nil, cfg)
			if err != nil {
				t.Fatalf("GenerateVideos: %v", err)
			}
			if op.Done || !strings.Contains(op.Name, "/operations/") {
				t.Fatalf("operation = %+v, want a named operation not done", op)
			}
			task, ok := srv.Ledger().Task(op.Name)
			if !ok || task.Model != "videogen-1" || task.Seconds != "8" || !strings.HasPrefix(string(task.Metadata), want) {
				t.Errorf("ledger task = %+v (metadata %s), want videogen-1, 8 s, metadata starting %s", task, task.Metadata, want)
			}
			held, err := c.Operations.GetVideosOperation(ctx, op, nil)
			if err != nil || held.Done {
				t.Fatalf("GetVideosOperation of a held task = %+v, %v; want not done", held, err)
			}
			srv.FinishTask(op.Name)
			done, err := c.Operations.GetVideosOperation(ctx, op, nil)
			if err != nil {
				t.Fatalf("GetVideosOperation: %v", err)
			}
			if !done.Done || done.Error != nil || done.Response == nil || len(done.Response.GeneratedVideos) != 1 {
				t.Fatalf("finished operation = %+v, want done with one video", done)
			}
			clip, _ := srv.Clip(op.Name)
			video := done.Response.GeneratedVideos[0].Video
			if dialect == DialectGemini {
				if !strings.HasPrefix(video.URI, url+"/v1beta/files/") {
					t.Errorf("video URI %q is not a file of the service", video.URI)
				}
				got, err := c.Files.Download(ctx, genai.NewDownloadURIFromGeneratedVideo(done.Response.GeneratedVideos[0]), nil)
				if err != nil {
					t.Fatalf("Files.Download: %v", err)
				}
				if !bytes.Equal(got, clip) {
					t.Errorf("downloaded %d bytes, want the mock's clip of %d", len(got), len(clip))
				}
			} else if !bytes.Equal(video.VideoBytes, clip) || video.MIMEType != "video/mp4" {
				t.Errorf("the operation holds %d bytes of %q, want the mock's clip of %d as video/mp4", len(video.VideoBytes), video.MIMEType, len(clip))
			}
			l := srv.Ledger()
			if len(l.Tasks) != 1 || !l.Tasks[0].Billed || l.Tasks[0].GetCount != 2 {
				t.Errorf("ledger = %+v, want one billed task read twice", l.Tasks)
			}
			if dialect == DialectVertex && tokens.issued == 0 {
				t.Error("no request asked the test's token source for a token")
			}
		})
	}
}

// TestGenai_vertexStorageURI: with outputGcsUri (storageUri) the operation
// names the clip in the bucket instead of holding it.
func TestGenai_vertexStorageURI(t *testing.T) {
	t.Parallel()
	srv, url := newGoogleMock(t, DialectVertex)
	c, _ := newGenaiClient(t, url, DialectVertex, vertexToken)
	op, err := c.Models.GenerateVideos(t.Context(), "videogen-1", "a heron", nil,
		&genai.GenerateVideosConfig{OutputGCSURI: "gs://clips-bucket/veo/"})
	if err != nil {
		t.Fatalf("GenerateVideos: %v", err)
	}
	srv.FinishTask(op.Name)
	done, err := c.Operations.GetVideosOperation(t.Context(), op, nil)
	if err != nil || !done.Done || done.Response == nil || len(done.Response.GeneratedVideos) != 1 {
		t.Fatalf("GetVideosOperation = %+v, %v; want done with one video", done, err)
	}
	v := done.Response.GeneratedVideos[0].Video
	if want := VertexClipURI("gs://clips-bucket/veo/", op.Name); v.URI != want || len(v.VideoBytes) != 0 {
		t.Errorf("video = %q with %d bytes, want %q and no bytes", v.URI, len(v.VideoBytes), want)
	}
}

// TestGenai_filteredAndFailed: a generation Veo's filters withheld is done with
// no video and the filter's reason; a failed one is done with an error; neither
// is billed.
func TestGenai_filteredAndFailed(t *testing.T) {
	t.Parallel()
	for _, dialect := range GoogleDialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			srv, url := newGoogleMock(t, dialect)
			c, _ := newGenaiClient(t, url, dialect, googleKey(dialect))
			ctx := t.Context()
			filtered, err := c.Models.GenerateVideos(ctx, "videogen-1", "a heron "+FilterMarker, nil, nil)
			if err != nil {
				t.Fatalf("GenerateVideos: %v", err)
			}
			failed, err := c.Models.GenerateVideos(ctx, "videogen-1", "a heron [mock:hold]", nil, nil)
			if err != nil {
				t.Fatalf("GenerateVideos: %v", err)
			}
			srv.FailTask(failed.Name, "the model could not render a heron")
			awaitFinal(t, srv, filtered.Name)
			op, err := c.Operations.GetVideosOperation(ctx, filtered, nil)
			if err != nil {
				t.Fatalf("GetVideosOperation: %v", err)
			}
			if !op.Done || op.Error != nil || op.Response == nil || len(op.Response.GeneratedVideos) != 0 ||
				op.Response.RAIMediaFilteredCount != 1 || len(op.Response.RAIMediaFilteredReasons) != 1 {
				t.Errorf("filtered operation = %+v (response %+v), want done, no video, one filter reason", op, op.Response)
			}
			op, err = c.Operations.GetVideosOperation(ctx, failed, nil)
			if err != nil {
				t.Fatalf("GetVideosOperation: %v", err)
			}
			if !op.Done || op.Error["message"] != "the model could not render a heron" {
				t.Errorf("failed operation = %+v, want done with the reason as error.message", op)
			}
			for _, task := range srv.Ledger().Tasks {
				if task.Billed {
					t.Errorf("task %s was billed", task.TaskID)
				}
			}
		})
	}
}

// TestGenai_typedErrors: genai reads the dialects' refusals as genai.APIError:
// a bad key (the Gemini API's 400 API_KEY_INVALID) or token (Vertex AI's 401),
// an unknown model (404), an unknown operation (404). Nothing is created.
func TestGenai_typedErrors(t *testing.T) {
	t.Parallel()
	for _, dialect := range GoogleDialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			srv, url := newGoogleMock(t, dialect)
			ctx := t.Context()
			bad, _ := newGenaiClient(t, url, dialect, "not-a-known-credential")
			_, err := bad.Models.GenerateVideos(ctx, "videogen-1", "a heron", nil, nil)
			wantCode, wantStatus := 400, "INVALID_ARGUMENT"
			if dialect == DialectVertex {
				wantCode, wantStatus = 401, "UNAUTHENTICATED"
			}
			expectAPIError(t, "bad credential", err, wantCode, wantStatus)

			c, _ := newGenaiClient(t, url, dialect, googleKey(dialect))
			_, err = c.Models.GenerateVideos(ctx, "veo-does-not-exist", "a heron", nil, nil)
			expectAPIError(t, "unknown model", err, 404, "NOT_FOUND")

			name := "models/videogen-1/operations/0123456789ab"
			if dialect == DialectVertex {
				name = "projects/videogen-test/locations/us-central1/publishers/google/models/videogen-1/operations/0"
			}
			_, err = c.Operations.GetVideosOperation(ctx, &genai.GenerateVideosOperation{Name: name}, nil)
			expectAPIError(t, "unknown operation", err, 404, "NOT_FOUND")
			if n := len(srv.Ledger().Tasks); n != 0 {
				t.Errorf("%d tasks were created, want none", n)
			}
		})
	}
}

func expectAPIError(t *testing.T, what string, err error, code int, status string) {
	t.Helper()
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		t.Errorf("%s: error %v (%T), want a genai.APIError", what, err, err)
		return
	}
	if apiErr.Code != code || apiErr.Status != status || apiErr.Message == "" {
		t.Errorf("%s: genai.APIError{Code: %d, Status: %q, Message: %q}, want %d %s with a message", what, apiErr.Code, apiErr.Status, apiErr.Message, code, status)
	}
}

// TestGenai_listModels: the Gemini API's list holds the video models with
// predictLongRunning beside a text model that lacks it.
func TestGenai_listModels(t *testing.T) {
	t.Parallel()
	_, url := newGoogleMock(t, DialectGemini)
	c, _ := newGenaiClient(t, url, DialectGemini, DefaultAPIKey)
	page, err := c.Models.List(t.Context(), nil)
	if err != nil {
		t.Fatalf("Models.List: %v", err)
	}
	video, text := 0, 0
	for _, m := range page.Items {
		switch {
		case strings.Contains(strings.Join(m.SupportedActions, ","), "predictLongRunning"):
			video++
		case m.Name == "models/"+geminiTextModel:
			text++
		}
	}
	if video != len(DefaultConfig().Models) || text != 1 {
		t.Errorf("listed %d video models and %d text models, want %d and 1", video, text, len(DefaultConfig().Models))
	}
}
