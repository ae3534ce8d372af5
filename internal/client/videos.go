package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Media roles and types of metadata.content[] (CONTRIBUTING.md, "Submission body").
const (
	ContentImage = "image_url"
	ContentVideo = "video_url"
	ContentAudio = "audio_url"
)

var contentRoles = map[string]string{
	ContentImage: "reference_image",
	ContentVideo: "reference_video",
	ContentAudio: "reference_audio",
}

// MediaURL is the payload object of a content entry.
type MediaURL struct {
	URL string `json:"url"`
}

// ContentEntry is one reference medium: {"type":"image_url","image_url":{"url":...},"role":"reference_image"}.
type ContentEntry struct {
	Type     string    `json:"type"`
	ImageURL *MediaURL `json:"image_url,omitempty"`
	VideoURL *MediaURL `json:"video_url,omitempty"`
	AudioURL *MediaURL `json:"audio_url,omitempty"`
	Role     string    `json:"role"`
}

// NewContentEntry builds the entry of the given type ("image_url", "video_url" or
// "audio_url") with the role the service pairs with it.
func NewContentEntry(contentType, mediaURL string) ContentEntry {
	e := ContentEntry{Type: contentType, Role: contentRoles[contentType]}
	m := &MediaURL{URL: mediaURL}
	switch contentType {
	case ContentImage:
		e.ImageURL = m
	case ContentVideo:
		e.VideoURL = m
	case ContentAudio:
		e.AudioURL = m
	}
	return e
}

// MediaURL returns the entry's URL, whichever payload member holds it.
func (e ContentEntry) MediaURL() string {
	for _, m := range []*MediaURL{e.ImageURL, e.VideoURL, e.AudioURL} {
		if m != nil {
			return m.URL
		}
	}
	return ""
}

// Metadata holds the vendor parameters sent and echoed in metadata (CONTRIBUTING.md, "Submission body").
type Metadata struct {
	Ratio         string         `json:"ratio,omitempty"`
	Resolution    string         `json:"resolution,omitempty"`
	GenerateAudio *bool          `json:"generate_audio,omitempty"`
	CallbackURL   string         `json:"callback_url,omitempty"`
	Content       []ContentEntry `json:"content,omitempty"`
	// Extra holds vendor parameters that have no field here; they are sent as
	// members of metadata beside the typed ones (which win on a clash).
	Extra map[string]json.RawMessage `json:"-"`
}

// MarshalJSON merges Extra into the typed members.
func (m Metadata) MarshalJSON() ([]byte, error) {
	type typed Metadata
	data, err := json.Marshal(typed(m))
	if err != nil || len(m.Extra) == 0 {
		return data, err
	}
	merged := make(map[string]json.RawMessage, len(m.Extra)+5)
	for k, v := range m.Extra {
		merged[k] = v
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, err
	}
	for k, v := range members {
		merged[k] = v
	}
	return json.Marshal(merged)
}

// isEmpty reports whether metadata would send no member. It asks the
// encoding itself rather than a list of the fields, so that a member added to
// Metadata is never dropped from a request that carries it alone.
func (m *Metadata) isEmpty() bool {
	if m == nil {
		return true
	}
	data, err := json.Marshal(m)
	return err == nil && string(data) == "{}"
}

// VideoRequest is the body of POST /v1/video/generations.
type VideoRequest struct {
	Model    string    `json:"model"`
	Prompt   string    `json:"prompt"`
	Seconds  string    `json:"seconds,omitempty"`
	Metadata *Metadata `json:"metadata,omitempty"`
	// StorageURI is the vertex API's gs:// destination, where Vertex AI writes
	// the clip itself (its storageUri); no other API carries it.
	StorageURI string `json:"-"`
	// IdempotencyKey, when set, is sent as the submission's Idempotency-Key
	// header, the same on every attempt: a server that honours it answers
	// the same key with the task the first attempt created, billed once.
	// Not part of the body, nor of what the request means (its fingerprint).
	IdempotencyKey string `json:"-"`
}

// Video is a task as the service reports it (CONTRIBUTING.md, "Task object and echoes").
type Video struct {
	TaskID string
	// Status is the provider's reading of RawStatus (see Status for the mapping).
	Status Status
	// RawStatus is the status exactly as the service sent it, trimmed and cut to a
	// safe length, for messages that say what the service said.
	RawStatus string
	URL       string
	Format    string
	// Metadata is the canonical echo of the vendor parameters (see Metadata).
	Metadata *Metadata
	// Made is what a gateway's raw upstream record says was really made, which
	// may differ from what was asked (a gateway that drops parameters); nil when
	// the answer has no such record or it says nothing about the clip.
	Made *MadeParams
	// KeyEchoed says, of a submission, that the answer echoed the request's
	// Idempotency-Key: the sign of a server that deduplicates by it (the
	// API as described does; new-api, OpenAI's and Google's do not echo it).
	KeyEchoed bool
	// UncertainAttempts lists, for a submission, the earlier attempts that a gateway
	// failed after the service may already have accepted them: each may have created
	// another task, billed and tracked by nobody.
	UncertainAttempts []string
	// FailureReason is whatever explanation the service gave for a task that ended
	// without a clip (Status is final but not usable); the service does not publish its
	// fields, so several common shapes are read. For a cancelled or expired task it
	// also names the status the service reported.
	FailureReason string
	// ExpiresAt is when the server stops serving the clip, when it says
	// (OpenAI's expires_at); zero otherwise.
	ExpiresAt time.Time
	// Progress is the share of the task the service says is done, from 0 to
	// 1, when HasProgress says the answer carried one (new-api's "30%",
	// OpenAI's 0-100); the waiter aims its looks with it.
	Progress    float64
	HasProgress bool
	// InlineClip is a succeeded vertex operation that holds its clip itself
	// (no storage destination was given): URL is empty, and DownloadVideo
	// reads the clip from the operation.
	InlineClip bool
	// NoEcho: the API's answers never echo the parameters asked for (Veo's
	// operations carry none of them), so a missing echo neither confirms nor
	// doubts any of them.
	NoEcho bool
}

// HasClip reports whether the task has a clip to hand out: it succeeded, and
// names where the clip is (URL) or holds it itself (InlineClip). Every reader
// of a finished task asks this, rather than its fields.
func (v *Video) HasClip() bool {
	return v.Status == StatusSucceeded && (v.URL != "" || v.InlineClip)
}

const (
	generationsPath = "/v1/video/generations"
	taskPath        = "/v1/video/generations/{task_id}"
)

// SubmitVideo submits a generation task and returns its ID and initial status.
// When the submission may have created a task although no task ID came back (the
// request was cut off after it was sent, a gateway failed after forwarding it, or
// the service's success answer cannot be read), the error is an
// *AmbiguousSubmitError. A success after such gateway failures lists them in
// Video.UncertainAttempts.
//
// An interrupt of ctx does not abandon an attempt already sent: its answer is
// awaited for SubmitInterruptGrace, so that the task ID is not lost (see
// submitGuard). An interrupt while nothing is on the wire ends the submission at
// once with ErrNotSubmitted.
func (c *Client) SubmitVideo(ctx context.Context, req VideoRequest) (*Video, error) {
	if req.Metadata.isEmpty() {
		req.Metadata = nil
	}
	path, url, body := generationsPath, c.endpoint("video", "generations"), any(req)
	switch c.api {
	case APIOpenAIVideos:
		form, err := openAIVideoForm(req)
		if err != nil {
			return nil, err
		}
		path, url, body = videosPath, c.endpoint("videos"), form
	case APIGemini, APIVertex:
		// Reference images are fetched before anything is submitted.
		veo, err := c.veoBody(ctx, req)
		if err != nil {
			return nil, err
		}
		path, url = c.veoSubmitRoute(req.Model)
		body = veo
	}
	parent := ctx
	ctx, guard := c.guardSubmission(parent)
	defer guard.stop()
	rec := &submitRecord{guard: guard, key: req.IdempotencyKey}
	ctx = context.WithValue(ctx, submitRecordKey{}, rec)
	var answer json.RawMessage
	header, err := c.doRequest(ctx, http.MethodPost, path, url, body, &answer)
	if err == nil {
		var v *Video
		if v, err = c.decodeVideo(answer, taskContext{submission: true}); err == nil {
			v.UncertainAttempts = rec.doubts
			v.KeyEchoed = req.IdempotencyKey != "" && header.Get(IdempotencyKeyHeader) == req.IdempotencyKey
			return v, nil
		}
		// A success status means the service most likely created the task.
		return nil, &AmbiguousSubmitError{Doubts: rec.doubts, Err: fmt.Errorf("POST %s: %w", path, err)}
	}
	var apiErr *APIError
	var tErr *TransportError
	switch {
	case len(rec.doubts) > 0, guard.wasAbandoned(), rec.lastStatus >= 200 && rec.lastStatus <= 299:
		// Gateway doubts, an attempt given up on while it was on the wire, or a
		// success answer that could not be read.
		return nil, &AmbiguousSubmitError{Doubts: rec.doubts, Err: err}
	case errors.As(err, &apiErr), errors.As(err, &tErr) && tErr.MaybeSent():
		return nil, err
	case guard.isInterrupted():
		return nil, fmt.Errorf("POST %s: %w (%w)", path, ErrNotSubmitted, context.Cause(parent))
	case errors.As(err, &tErr):
		return nil, err
	case rec.attempts > 0:
		// An answer that is neither an error status nor a readable success.
		return nil, &AmbiguousSubmitError{Err: err}
	}
	return nil, err
}

// GetVideo reads the current state of a task.
func (c *Client) GetVideo(ctx context.Context, taskID string) (*Video, error) {
	v, _, err := c.getVideo(ctx, taskID)
	return v, err
}

// getVideo is GetVideo that also returns the response's headers, for the waiter.
func (c *Client) getVideo(ctx context.Context, taskID string) (*Video, http.Header, error) {
	if strings.TrimSpace(taskID) == "" {
		return nil, nil, errors.New("a task ID is required")
	}
	method, path, url, body := http.MethodGet, taskPath, c.endpoint("video", "generations", taskID), any(nil)
	switch c.api {
	case APIOpenAIVideos:
		path, url = videoPath, c.endpoint("videos", taskID)
	case APIGemini, APIVertex:
		var err error
		if method, path, url, body, err = c.veoReadRoute(taskID); err != nil {
			return nil, nil, err
		}
		ctx = withReadCall(withInlineClips(ctx, nil))
	}
	var answer json.RawMessage
	header, err := c.doRequest(ctx, method, path, url, body, &answer)
	if err != nil {
		return nil, header, err
	}
	v, err := c.decodeVideo(answer, taskContext{askedID: taskID})
	if err != nil {
		return nil, header, fmt.Errorf("GET %s for task %q: %w", path, taskID, err)
	}
	return v, header, nil
}

// decodeVideo reads a task from a 2xx answer of the client's API. The answer
// itself stays as sent (a clip's URL may be signed and is needed as is); only the
// texts that reach an error, the failure reason and a quoted answer, are redacted.
func (c *Client) decodeVideo(data []byte, tc taskContext) (*Video, error) {
	decode := decodeTask
	switch c.api {
	case APIOpenAIVideos:
		decode = c.decodeOpenAIVideo
	case APIGemini, APIVertex:
		decode = c.decodeVeoOperation
	}
	redact := c.redactor()
	v, err := decode(data, tc)
	if err != nil {
		return nil, redact.Error(err)
	}
	v.FailureReason = redact.Text(v.FailureReason)
	return v, nil
}

// IdempotencyKeyHeader is the header that carries VideoRequest.IdempotencyKey.
const IdempotencyKeyHeader = "Idempotency-Key"
