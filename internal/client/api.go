package client

import (
	"fmt"
	"strings"
)

// API names the protocol a Client speaks (CONTRIBUTING.md, "OpenAI's video API"). Both
// generate a clip asynchronously and read it back as the same *Video, so that
// waiting, billing and downloading are one path whichever is spoken.
type API string

const (
	// APIVideoGenerations is the API this project was written for: JSON
	// submissions to POST /v1/video/generations, tasks read at
	// GET /v1/video/generations/{task_id}, the clip at a storage URL.
	APIVideoGenerations API = "video-generations"
	// APIOpenAIVideos is OpenAI's video API: multipart submissions to
	// POST /v1/videos, videos read at GET /v1/videos/{id}, the clip at
	// GET /v1/videos/{id}/content behind the key, and DELETE /v1/videos/{id}.
	APIOpenAIVideos API = "openai-videos"
	// APIGemini is Veo through the Gemini API: JSON submissions to
	// POST {base}/v1beta/models/{model}:predictLongRunning with the key in
	// x-goog-api-key, the long-running operation read at GET {base}/v1beta/{name},
	// the clip a file URI on the service's own origin, behind the key
	// (CONTRIBUTING.md, "Google's Veo").
	APIGemini API = "gemini"
	// APIVertex is Veo through Vertex AI: submissions to
	// POST {base}/v1/projects/{p}/locations/{l}/publishers/google/models/{m}:predictLongRunning
	// with an OAuth 2 access token from Application Default Credentials, the
	// operation read with POST ...:fetchPredictOperation, the clip in the
	// operation itself or written by Vertex to a gs:// destination.
	APIVertex API = "vertex"
)

// APIs lists the APIs a user selects (the provider's api), the default first.
var APIs = []API{APIVideoGenerations, APIOpenAIVideos, APIGemini, APIVertex}

// GoogleAPIs lists the APIs of Google's Veo.
var GoogleAPIs = []API{APIGemini, APIVertex}

// APINames are the names of APIs, as a user writes them, the default first.
func APINames() []string {
	names := make([]string, len(APIs))
	for i, a := range APIs {
		names[i] = string(a)
	}
	return names
}

// ParseAPI reads an API name as a user writes it; the names are exact, so that a
// typo is an error and not the default.
func ParseAPI(name string) (API, error) {
	for _, a := range APIs {
		if string(a) == name {
			return a, nil
		}
	}
	names := make([]string, len(APIs))
	for i, a := range APIs {
		names[i] = fmt.Sprintf("%q", a)
	}
	return "", fmt.Errorf("unknown API %q: use one of %s", name, strings.Join(names, ", "))
}

// WithAPI selects the API the client speaks; APIVideoGenerations by default.
func WithAPI(a API) Option { return func(c *Client) { c.api = a } }

// API returns the API the client speaks.
func (c *Client) API() API { return c.api }

// CanDelete reports whether the API has a call that deletes a finished clip
// from the service (DeleteVideo).
func (a API) CanDelete() bool { return a == APIOpenAIVideos }

// Google reports the APIs of Google's Veo, whose operations, errors and base
// URLs are Google's rather than the video-generations shapes.
func (a API) Google() bool { return a == APIGemini || a == APIVertex }
