package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// Vertex AI's Veo routes (CONTRIBUTING.md, "Google's Veo"), relative to a base
// URL without a version.
const (
	vertexPredictPath = "/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:predictLongRunning"
	vertexFetchPath   = "/v1/{model}:fetchPredictOperation"
	vertexModelsPath  = "/v1beta1/publishers/google/models"
	// vertexMaxOperationBytes bounds a vertex operation answer, which holds
	// its clip inline when no storage destination was given: a long 1080p
	// clip is tens of MB, a third more in base64.
	vertexMaxOperationBytes = 256 << 20
	// cloudPlatformScope is the scope Vertex AI's calls need.
	cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"
)

// GoogleEnvProject and GoogleEnvLocation are the environment variables Google's
// own tools (gcloud, the client libraries, google.golang.org/genai) read the
// project and location from, in order of preference.
var (
	GoogleEnvProject  = []string{"GOOGLE_CLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT"}
	GoogleEnvLocation = []string{"GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_REGION", "CLOUDSDK_COMPUTE_REGION"}
)

// FirstEnv is the first of names that is set and not blank, and its name.
func FirstEnv(names []string) (value, name string) {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v, n
		}
	}
	return "", ""
}

// GoogleCredentials are Application Default Credentials: a token source and
// the project they name, if any (a service account's, or gcloud's quota
// project).
type GoogleCredentials struct {
	Tokens    oauth2.TokenSource
	ProjectID string
}

// GoogleDefaultCredentials finds Application Default Credentials as Google's
// tools do: GOOGLE_APPLICATION_CREDENTIALS, gcloud's
// application_default_credentials.json, then the metadata server of the machine
// (workload identity). They are the vertex API's only credentials: nothing the
// configuration says can replace them, so that no credential is ever an
// argument, in state or in a plan. The error never quotes a credential file.
func GoogleDefaultCredentials(ctx context.Context) (GoogleCredentials, error) {
	creds, err := google.FindDefaultCredentials(ctx, cloudPlatformScope)
	if err != nil {
		return GoogleCredentials{}, fmt.Errorf("no Application Default Credentials: set GOOGLE_APPLICATION_CREDENTIALS to a "+
			"service account key file, run `gcloud auth application-default login`, or run where a workload identity "+
			"is attached (%w)", err)
	}
	return GoogleCredentials{Tokens: oauth2.ReuseTokenSource(nil, creds.TokenSource), ProjectID: creds.ProjectID}, nil
}

// vertexModelEndpoint is
// {base}/v1/projects/{p}/locations/{l}/publishers/google/models/{model}:{verb}.
// A model given as publishers/google/models/{id} is the same model.
func (c *Client) vertexModelEndpoint(model, verb string) string {
	model = strings.TrimPrefix(strings.TrimPrefix(model, "publishers/google/"), "models/")
	return c.verbEndpoint(verb, "v1", "projects", c.google.project, "locations", c.google.location,
		"publishers", "google", "models", model)
}

// listVertexModels lists Google's models in Vertex AI's Model Garden (GET
// /v1beta1/publishers/google/models, as google.golang.org/genai lists base
// models). The list says nothing of what a model generates, so none is left
// out; and it is Google's, not the project's: a model it names may still be
// closed to the project.
func (c *Client) listVertexModels(ctx context.Context) ([]Model, error) {
	var out []Model
	err := c.listGoogleModels(ctx, vertexModelsPath, c.endpoint("v1beta1", "publishers", "google", "models"), "publisherModels",
		func(raw json.RawMessage) bool {
			var m struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &m) != nil || strings.TrimSpace(m.Name) == "" {
				return false
			}
			out = append(out, Model{ID: m.Name[strings.LastIndex(m.Name, "/")+1:], OwnedBy: "google", Raw: raw})
			return true
		})
	return out, err
}

// inlineClipsKey carries, on a vertex operation read, where takeInlineClips
// puts the clip it finds in the answer (nil: the clip is dropped).
type inlineClipsKey struct{}

type inlineClip struct{ base64 []byte }

func withInlineClips(ctx context.Context, sink *inlineClip) context.Context {
	return context.WithValue(ctx, inlineClipsKey{}, &sink)
}

// responseLimit is how much of an answer doRequest reads: a vertex operation
// may carry its clip.
func responseLimit(ctx context.Context) int {
	if ctx.Value(inlineClipsKey{}) != nil {
		return vertexMaxOperationBytes
	}
	return maxResponseBytes
}

// inlineMember is the member of a vertex operation's video that holds the clip.
var inlineMember = []byte(`"bytesBase64Encoded"`)

// takeInlineClips replaces the value of every bytesBase64Encoded member of a
// vertex operation with a short marker, keeping the first in the read's sink
// when it has one. So the clip never reaches the redactor, a log line or a
// decoder built for small answers, and a status read costs no clip-sized
// copies; a download reads it from the sink. Other answers pass untouched.
func takeInlineClips(ctx context.Context, data []byte) []byte {
	holder, _ := ctx.Value(inlineClipsKey{}).(**inlineClip)
	if holder == nil || !bytes.Contains(data, inlineMember) {
		return data
	}
	var out bytes.Buffer
	rest := data
	for {
		i := bytes.Index(rest, inlineMember)
		if i < 0 {
			out.Write(rest)
			return out.Bytes()
		}
		j := i + len(inlineMember)
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\n' || rest[j] == '\r' || rest[j] == '\t' || rest[j] == ':') {
			j++
		}
		if j >= len(rest) || rest[j] != '"' {
			out.Write(rest[:j])
			rest = rest[j:]
			continue
		}
		end := j + 1
		for end < len(rest) && rest[end] != '"' {
			if rest[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(rest) {
			out.Write(rest)
			return out.Bytes()
		}
		if *holder != nil && (*holder).base64 == nil {
			// base64 has no escapes but the JSON escape of "/".
			(*holder).base64 = bytes.ReplaceAll(rest[j+1:end], []byte(`\/`), []byte("/"))
		}
		out.Write(rest[:j])
		out.WriteString(`"(inline clip)"`)
		rest = rest[end+1:]
	}
}

// downloadInlineClip reads a vertex operation again and writes the clip it
// holds to out: the clip of an operation without a storage destination exists
// nowhere else. The clip must look like an MP4 and fit in maxBytes, as a
// downloaded one must.
func (c *Client) downloadInlineClip(ctx context.Context, video *Video, out Output, maxBytes int64) (Download, error) {
	method, path, rawURL, body, err := c.veoReadRoute(video.TaskID)
	if err != nil {
		return Download{}, err
	}
	sink := &inlineClip{}
	var answer json.RawMessage
	if _, err := c.doRequest(withReadCall(withInlineClips(ctx, sink)), method, path, rawURL, body, &answer); err != nil {
		return Download{}, err
	}
	if sink.base64 == nil {
		return Download{}, fmt.Errorf("%s: operation %s no longer holds its clip", downloadEndpoint, video.TaskID)
	}
	if int64(base64.StdEncoding.DecodedLen(len(sink.base64))) > maxBytes+3 {
		return Download{}, &TooLargeError{URL: video.TaskID, MaxBytes: maxBytes, Announced: int64(base64.StdEncoding.DecodedLen(len(sink.base64)))}
	}
	clip := make([]byte, base64.StdEncoding.DecodedLen(len(sink.base64)))
	n, err := base64.StdEncoding.Decode(clip, sink.base64)
	if err != nil {
		return Download{}, fmt.Errorf("%s: operation %s's clip is not valid base64: %w", downloadEndpoint, video.TaskID, err)
	}
	clip = clip[:n]
	if int64(n) > maxBytes {
		return Download{}, &TooLargeError{URL: video.TaskID, MaxBytes: maxBytes, Announced: int64(n)}
	}
	if !localfile.LooksLikeMP4(clip[:min(len(clip), sniffBytes)]) {
		return Download{}, &NotMP4Error{URL: video.TaskID, ContentType: "inline", Start: printable(clip, 80)}
	}
	if err := out.Reset(); err != nil {
		return Download{}, fmt.Errorf("preparing the output of %s: %w", downloadEndpoint, err)
	}
	w, err := out.Write(clip)
	if err != nil {
		return Download{}, fmt.Errorf("writing the clip of operation %s: %w", video.TaskID, err)
	}
	return Download{Bytes: int64(w)}, nil
}

// CloudStorageObject is the gs:// URI of the clip when Vertex AI wrote it
// into the team's bucket itself (a submission with a StorageURI), "" when the
// clip is anywhere else. Such a clip is read from the bucket with the team's
// own credentials, where object stores are read, never through the API.
func (v *Video) CloudStorageObject() string {
	if v == nil || v.Status != StatusSucceeded || !strings.HasPrefix(v.URL, "gs://") {
		return ""
	}
	return v.URL
}

// errCloudStorageClip is a clip Vertex AI wrote to Cloud Storage, which this
// client does not read.
var errCloudStorageClip = errors.New("the clip is in Cloud Storage, where Vertex AI wrote it (storage_uri): read it from there")
