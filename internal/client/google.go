package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/oauth2"
)

// Google's Veo, through the Gemini API and through Vertex AI (CONTRIBUTING.md,
// "Google's Veo"): both submit with predictLongRunning and answer a
// long-running operation, whose name is the task ID; they differ in base URL,
// credentials, how the operation is read and where the clip is.

// googleKeyHeader carries the Gemini API's key.
const googleKeyHeader = "X-Goog-Api-Key"

// googleAuth is what the vertex API needs beyond a base URL: the project and
// location of its paths, and the source of its access tokens. The tokens it
// handed out are remembered (the last few) so that no answer, log line or
// error repeats one.
type googleAuth struct {
	project  string
	location string
	tokens   oauth2.TokenSource

	mu   sync.Mutex
	seen []string
}

// maxSeenTokens bounds the tokens remembered for redaction: an access token
// lives an hour, so a few cover every request still in flight.
const maxSeenTokens = 4

func (g *googleAuth) remember(tok string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, t := range g.seen {
		if t == tok {
			return
		}
	}
	g.seen = append(g.seen, tok)
	if len(g.seen) > maxSeenTokens {
		g.seen = g.seen[1:]
	}
}

func (g *googleAuth) seenTokens() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.seen...)
}

// WithTokenSource gives the vertex API its access tokens (Application Default
// Credentials in the provider, see GoogleDefaultCredentials; a test's own
// source in tests). Tokens are asked for on every request, so a source that
// refreshes keeps a long apply authorised.
func WithTokenSource(ts oauth2.TokenSource) Option {
	return func(c *Client) { c.google.tokens = ts }
}

// WithVertexProject names the Google Cloud project and location whose Vertex
// AI the vertex API calls.
func WithVertexProject(project, location string) Option {
	return func(c *Client) { c.google.project, c.google.location = project, location }
}

// VertexBaseURL is Vertex AI's address for a location: the global endpoint for
// "global", else the location's regional one.
func VertexBaseURL(location string) string {
	if location == "" || location == "global" {
		return "https://aiplatform.googleapis.com"
	}
	return "https://" + location + "-aiplatform.googleapis.com"
}

// GeminiBaseURL is the Gemini API's address.
const GeminiBaseURL = "https://generativelanguage.googleapis.com"

// normalizeBaseURL reads the base URL as the client's API takes it: the
// video-generations and openai-videos APIs end it in /v1 (NormalizeBaseURL);
// Google's are given without a version, which each path names itself.
func (c *Client) normalizeBaseURL(raw string) (*url.URL, error) {
	switch c.api {
	case APIGemini:
		return NormalizeGoogleBaseURL(raw, "v1beta")
	case APIVertex:
		if strings.TrimSpace(raw) == "" {
			raw = VertexBaseURL(c.google.location)
		}
		return NormalizeGoogleBaseURL(raw, "v1")
	}
	return NormalizeBaseURL(raw)
}

// NormalizeGoogleBaseURL accepts a Google API's address with or without its
// version (version, or v1beta1/v1beta/v1) and returns it without, and without a
// trailing slash: https://h, https://h/ and https://h/v1beta are one endpoint.
// The rules of NormalizeBaseURL apply otherwise (absolute http or https, no user
// information, query or fragment).
func NormalizeGoogleBaseURL(raw, version string) (*url.URL, error) {
	u, err := NormalizeBaseURL(raw)
	if err != nil {
		return nil, err
	}
	path := strings.TrimSuffix(u.Path, "/v1")
	for _, v := range []string{version, "v1beta1", "v1beta", "v1"} {
		path = strings.TrimSuffix(path, "/"+v)
	}
	u.Path = path
	return u, nil
}

// checkCredentials checks that the client has the credential its API uses:
// a key, or for vertex a token source, a project and a location and no key
// (its credentials come only from Application Default Credentials).
func (c *Client) checkCredentials() error {
	if c.api != APIVertex {
		if strings.TrimSpace(c.apiKey) == "" {
			return errors.New("an API key is required")
		}
		return nil
	}
	switch {
	case c.apiKey != "":
		return errors.New("the vertex API takes no API key: its credentials come from Application Default Credentials")
	case c.google.tokens == nil:
		return errors.New("the vertex API needs a token source (Application Default Credentials)")
	case strings.TrimSpace(c.google.project) == "":
		return errors.New("the vertex API needs a Google Cloud project")
	case strings.TrimSpace(c.google.location) == "":
		return errors.New("the vertex API needs a location (such as us-central1)")
	}
	return nil
}

// authorize puts the client's credential on an API request: the bearer key,
// the Gemini API's x-goog-api-key, or a vertex access token.
func (c *Client) authorize(req *http.Request) error {
	switch c.api {
	case APIGemini:
		req.Header.Set(googleKeyHeader, c.apiKey)
	case APIVertex:
		tok, err := c.google.tokens.Token()
		if err != nil {
			// The token source's error may quote what it read; it names no
			// token we hold, but the redactor takes out those we do.
			return fmt.Errorf("no access token from Application Default Credentials: %w", c.redactor().Error(err))
		}
		if !tok.Valid() || tok.AccessToken == "" {
			return errors.New("no valid access token from Application Default Credentials")
		}
		c.google.remember(tok.AccessToken)
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	default:
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	return nil
}

// readCallKey marks a POST that reads and changes nothing (Vertex's
// fetchPredictOperation): it is retried like a GET and takes a read's place in
// the rate limiter.
type readCallKey struct{}

func withReadCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, readCallKey{}, true)
}

func isReadCall(ctx context.Context) bool {
	v, _ := ctx.Value(readCallKey{}).(bool)
	return v
}

// googleErrorBody is Google's error: {"error": {"code", "message", "status",
// "details": [{"@type", "reason", ...}]}}.
type googleErrorBody struct {
	Error struct {
		Status  string `json:"status"`
		Details []struct {
			Reason string `json:"reason"`
		} `json:"details"`
	} `json:"error"`
}

// Reasons of Google's ErrorInfo that the client tells apart.
const (
	// googleKeyInvalid is the Gemini API's answer to a bad key, which comes
	// with HTTP 400 rather than 401.
	googleKeyInvalid = "API_KEY_INVALID"
)

// readGoogleError completes an error decoded from a Google answer: its status
// word (INVALID_ARGUMENT, NOT_FOUND, ...) is the type, and an ErrorInfo reason
// is the code, so that a refused key reads as one (IsUnauthorized).
func readGoogleError(e *APIError, data []byte) {
	var body googleErrorBody
	if json.Unmarshal(data, &body) != nil {
		return
	}
	if body.Error.Status != "" {
		e.Type = body.Error.Status
	}
	for _, d := range body.Error.Details {
		if d.Reason != "" {
			e.Code = d.Reason
			break
		}
	}
}
