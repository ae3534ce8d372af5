package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// OpenAI's video API (CONTRIBUTING.md, "OpenAI's video API"). Its submission is
// multipart/form-data, as OpenAI's own SDK (openai-go v3) sends it, with the
// members model, prompt, seconds, size and input_reference; there is no metadata.
const (
	videosPath  = "/v1/videos"
	videoPath   = "/v1/videos/{id}"
	contentPath = "/v1/videos/{id}/content"
)

// Request members as the video-generations API names them, which is how
// Inexpressible says what another API cannot carry.
const (
	ParamRatio         = "metadata.ratio"
	ParamResolution    = "metadata.resolution"
	ParamGenerateAudio = "metadata.generate_audio"
	ParamCallbackURL   = "metadata.callback_url"
	// ParamContent is followed by the content type in brackets, as in
	// metadata.content[image_url].
	ParamContent = "metadata.content"
)

// ContentParam names the reference media of one content type, as in
// metadata.content[image_url].
func ContentParam(contentType string) string { return ParamContent + "[" + contentType + "]" }

// Inexpressible is one member of a VideoRequest that an API has no way to send.
type Inexpressible struct {
	// Param is the member as the video-generations API names it (the Param*
	// constants, ContentParam, or "metadata.<key>" for a vendor parameter).
	Param string
	// Reason says why, in words that can follow the member's name.
	Reason string
}

// InexpressibleError is a request refused before anything was sent, because the
// client's API cannot carry part of it: sending the rest would make a clip other
// than the one asked for, and bill it.
type InexpressibleError struct {
	API    API
	Params []Inexpressible
}

func (e *InexpressibleError) Error() string {
	parts := make([]string, len(e.Params))
	for i, p := range e.Params {
		parts[i] = p.Param + ": " + p.Reason
	}
	return fmt.Sprintf("the %s API cannot carry this request, so nothing was sent: %s", e.API, strings.Join(parts, "; "))
}

// Inexpressible lists the members of req that a cannot send: first each one
// it sets that a does not carry at all (see carriage), then those whose value
// a cannot carry.
func (a API) Inexpressible(req VideoRequest) []Inexpressible {
	var out []Inexpressible
	for _, p := range req.members() {
		if why, refused := a.refusal(p); refused {
			out = append(out, Inexpressible{Param: p, Reason: why})
		}
	}
	switch {
	case a.Google():
		out = append(out, veoInexpressible(a, req)...)
	case a == APIOpenAIVideos && req.Metadata != nil:
		out = append(out, openAIInexpressible(*req.Metadata)...)
	}
	return out
}

// openAIInexpressible lists the values of md that OpenAI's video API cannot
// carry: a ratio and resolution that make no size, more than one reference image.
func openAIInexpressible(md Metadata) []Inexpressible {
	var out []Inexpressible
	if md.Ratio != "" || md.Resolution != "" {
		if _, err := OpenAIVideoSize(md.Ratio, md.Resolution); err != nil {
			param := ParamRatio
			if md.Ratio != "" && md.Resolution == "" || md.Ratio == "" && md.Resolution != "" {
				// The one that is set is what to change (or complete).
				if md.Resolution != "" {
					param = ParamResolution
				}
			}
			out = append(out, Inexpressible{Param: param, Reason: err.Error()})
		}
	}
	n := 0
	for _, e := range md.Content {
		if e.Type == ContentImage {
			n++
		}
	}
	if n > 1 {
		out = append(out, Inexpressible{Param: ContentParam(ContentImage),
			Reason: fmt.Sprintf("OpenAI's video API takes one reference image (input_reference), not %d", n)})
	}
	return out
}

// resolutionLines are the resolutions a size can be named by: the number of
// lines of its shorter side.
var resolutionLines = map[string]int{"480p": 480, "720p": 720, "1080p": 1080}

// OpenAIVideoSize is the size ("1280x720") of OpenAI's video API that means a
// ratio ("16:9") and a resolution ("720p"): the resolution is the shorter side,
// and the longer side follows from the ratio exactly. A combination without such
// a size is an error that says why: one given without the other, or a ratio
// whose longer side is not a whole, even number of pixels at that resolution
// (16:9 at 480p would be 853.33 pixels wide; a server would round it to a clip
// of another ratio). Both empty is "" (the server's default size).
func OpenAIVideoSize(ratio, resolution string) (string, error) {
	if ratio == "" && resolution == "" {
		return "", nil
	}
	if ratio == "" || resolution == "" {
		return "", errors.New("OpenAI's video API takes a size (width x height): set both ratio and resolution, " +
			"such as 16:9 and 720p for 1280x720, or neither for the server's default size")
	}
	lines, ok := resolutionLines[strings.ToLower(resolution)]
	w, h, okRatio := parseRatio(ratio)
	if !ok || !okRatio {
		return "", fmt.Errorf("%s at %s has no size: resolution must be 480p, 720p or 1080p and ratio W:H", ratio, resolution)
	}
	short, long := h, w
	if w < h {
		short, long = w, h
	}
	if (lines*long)%short != 0 || (lines*long/short)%2 != 0 {
		return "", fmt.Errorf("%s at %s has no size: the longer side would be %.2f pixels, not a whole, even number "+
			"(16:9, 9:16, 4:3, 3:4 and 1:1 work at 720p and 1080p)", ratio, resolution, float64(lines*long)/float64(short))
	}
	other := lines * long / short
	if w >= h {
		return fmt.Sprintf("%dx%d", other, lines), nil
	}
	return fmt.Sprintf("%dx%d", lines, other), nil
}

// RatioAndResolutionOf reads a size ("1280x720") back as the ratio in lowest
// terms ("16:9") and, when its shorter side is one of the resolutions,
// that resolution ("720p"); an unreadable size gives two empty strings.
func RatioAndResolutionOf(size string) (ratio, resolution string) {
	ws, hs, ok := strings.Cut(strings.ToLower(strings.TrimSpace(size)), "x")
	w, errW := strconv.Atoi(ws)
	h, errH := strconv.Atoi(hs)
	if !ok || errW != nil || errH != nil || w <= 0 || h <= 0 {
		return "", ""
	}
	g := gcd(w, h)
	ratio = fmt.Sprintf("%d:%d", w/g, h/g)
	for name, lines := range resolutionLines {
		if min(w, h) == lines {
			resolution = name
		}
	}
	return ratio, resolution
}

func parseRatio(s string) (w, h int, ok bool) {
	ws, hs, found := strings.Cut(s, ":")
	w, errW := strconv.Atoi(ws)
	h, errH := strconv.Atoi(hs)
	return w, h, found && errW == nil && errH == nil && w > 0 && h > 0
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// openAIVideoForm encodes a submission as OpenAI's SDK does: form fields, and the
// reference image as input_reference[image_url] (the SDK's encoding of an
// ImageInputReferenceParam). A request the API cannot carry is refused whole.
func openAIVideoForm(req VideoRequest) (formBody, error) {
	if bad := APIOpenAIVideos.Inexpressible(req); len(bad) > 0 {
		return formBody{}, &InexpressibleError{API: APIOpenAIVideos, Params: bad}
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fields := [][2]string{{"model", req.Model}, {"prompt", req.Prompt}}
	if req.Seconds != "" {
		fields = append(fields, [2]string{"seconds", req.Seconds})
	}
	if md := req.Metadata; md != nil {
		if size, _ := OpenAIVideoSize(md.Ratio, md.Resolution); size != "" {
			fields = append(fields, [2]string{"size", size})
		}
		for _, e := range md.Content {
			if e.Type == ContentImage {
				fields = append(fields, [2]string{"input_reference[image_url]", e.MediaURL()})
			}
		}
	}
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return formBody{}, err
		}
	}
	if err := w.Close(); err != nil {
		return formBody{}, err
	}
	return formBody{data: buf.Bytes(), contentType: w.FormDataContentType()}, nil
}

// openAIVideoWire is what OpenAI's video object says beyond the members
// decodeTask reads (id, status, and error, whose message, type and code make
// the failure reason as for every API).
type openAIVideoWire struct {
	Seconds   json.RawMessage `json:"seconds"`
	Size      string          `json:"size"`
	ExpiresAt *int64          `json:"expires_at"`
}

// decodeOpenAIVideo reads a video object of OpenAI's video API into the task
// model every API shares: its statuses are words decodeTask knows (queued,
// in_progress, completed, failed), the clip is at the video's /content (which
// needs the key), and seconds and size say what was made. On a read, the task is
// the one asked for: a gateway may answer with its upstream's record, whose id is
// the upstream's.
func (c *Client) decodeOpenAIVideo(data []byte, tc taskContext) (*Video, error) {
	v, err := decodeTask(data, tc)
	if err != nil {
		return nil, err
	}
	if tc.askedID != "" {
		v.TaskID = tc.askedID
	}
	var w openAIVideoWire
	_ = json.Unmarshal(data, &w) // decodeTask has read the same object
	made := MadeParams{Seconds: readSeconds(w.Seconds)}
	made.Ratio, made.Resolution = RatioAndResolutionOf(w.Size)
	if made != (MadeParams{}) {
		v.Made = &made
	}
	if made.Ratio != "" {
		v.Metadata = &Metadata{Ratio: made.Ratio, Resolution: made.Resolution}
	}
	if w.ExpiresAt != nil && *w.ExpiresAt > 0 {
		v.ExpiresAt = time.Unix(*w.ExpiresAt, 0)
	}
	if v.Status == StatusSucceeded {
		v.URL = c.endpoint("videos", v.TaskID, "content")
	}
	return v, nil
}

// DeleteVideo deletes a finished video and its stored clip from the service
// (OpenAI's DELETE /v1/videos/{id}). Deleting refunds nothing. A server without
// the route (new-api v0.10.0 answers 404 "Invalid URL") and a video already gone
// both answer 404: IsNotFound tells them from other errors, and the message says
// which. On an API without a delete it is an error, and nothing is sent.
func (c *Client) DeleteVideo(ctx context.Context, id string) error {
	if !c.api.CanDelete() {
		return fmt.Errorf("the %s API has no delete", c.api)
	}
	if strings.TrimSpace(id) == "" {
		return errors.New("a video ID is required")
	}
	_, err := c.doRequest(ctx, http.MethodDelete, videoPath, c.endpoint("videos", id), nil, nil)
	// DELETE is retried like a read: a 404 after an earlier attempt whose answer
	// was lost (a timeout, a gateway's 5xx) may be that attempt's work. It may
	// also be a server without the route behind a first attempt that deleted
	// nothing (a refused connection, a 502), so the video is gone only when
	// reading it answers 404 too; otherwise the 404 stands.
	var apiErr *APIError
	if IsNotFound(err) && errors.As(err, &apiErr) && apiErr.Attempts > 1 {
		if _, gerr := c.GetVideo(ctx, id); IsNotFound(gerr) {
			return nil
		}
	}
	return err
}

// IsNotSupported reports a call the server does not serve at all: HTTP 405 or
// 501, as a server answers a DELETE it has no route for.
func IsNotSupported(err error) bool {
	return hasStatus(err, http.StatusMethodNotAllowed) || hasStatus(err, http.StatusNotImplemented)
}
