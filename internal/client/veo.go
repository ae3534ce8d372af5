package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Veo's request and operation, as google.golang.org/genai (v1.77) writes and
// reads them for both of Google's APIs (CONTRIBUTING.md, "Google's Veo"): a
// predict request {"instances": [{prompt, referenceImages}], "parameters":
// {aspectRatio, resolution, durationSeconds, ...}}, answered by a long-running
// operation {name, done, error, response}.

// ParamStorageURI is the vertex API's gs:// destination, as Inexpressible names
// it on the APIs that cannot carry it.
const ParamStorageURI = "storage_uri"

// maxVeoReferenceImages is how many reference ("asset") images Veo takes.
const maxVeoReferenceImages = 3

// maxReferenceImageBytes bounds a reference image fetched to be sent inline
// (the Gemini API takes images only as bytes): Google's inline request limit
// is 20 MB, base64 included.
const maxReferenceImageBytes = 10 << 20

// veoTypedParameters are the members of parameters the client writes from typed
// fields, which extra (vendor) parameters may not set: sampleCount because a
// task is one clip here, and a second sample would be billed and never seen.
var veoTypedParameters = []string{"aspectRatio", "resolution", "durationSeconds", "generateAudio", "storageUri", "sampleCount"}

type veoImage struct {
	BytesBase64Encoded string `json:"bytesBase64Encoded,omitempty"`
	GCSURI             string `json:"gcsUri,omitempty"`
	MIMEType           string `json:"mimeType,omitempty"`
}

type veoReferenceImage struct {
	Image         veoImage `json:"image"`
	ReferenceType string   `json:"referenceType"`
}

type veoInstance struct {
	Prompt          string              `json:"prompt"`
	ReferenceImages []veoReferenceImage `json:"referenceImages,omitempty"`
}

type veoRequest struct {
	Instances  []veoInstance              `json:"instances"`
	Parameters map[string]json.RawMessage `json:"parameters,omitempty"`
}

// veoInexpressible lists the values of req that Veo on api cannot carry, in a
// stable order; what it cannot carry at all is refused by API.Inexpressible.
func veoInexpressible(a API, req VideoRequest) []Inexpressible {
	var out []Inexpressible
	name := map[API]string{APIGemini: geminiVeo, APIVertex: vertexVeo}[a]
	if req.Seconds != "" {
		if n, err := strconv.Atoi(req.Seconds); err != nil || n <= 0 {
			out = append(out, Inexpressible{Param: ParamSeconds, Reason: name + " takes a whole number of seconds (durationSeconds)"})
		}
	}
	if _, carried := a.Member(ParamStorageURI); carried && req.StorageURI != "" &&
		(!strings.HasPrefix(req.StorageURI, "gs://") || len(req.StorageURI) <= len("gs://")) {
		out = append(out, Inexpressible{Param: ParamStorageURI, Reason: "a Cloud Storage destination is a gs:// URI, such as gs://bucket/clips/"})
	}
	md := req.Metadata
	if md == nil {
		return out
	}
	images := 0
	for _, e := range md.Content {
		if e.Type != ContentImage {
			continue
		}
		images++
		u := e.MediaURL()
		switch {
		case strings.HasPrefix(u, "gs://") && a == APIGemini:
			out = append(out, Inexpressible{Param: ContentParam(ContentImage),
				Reason: name + " takes reference images as bytes, not gs:// URIs (only Vertex AI reads Cloud Storage)"})
		case !strings.HasPrefix(u, "gs://") && !isHTTPURL(u):
			out = append(out, Inexpressible{Param: ContentParam(ContentImage),
				Reason: "a reference image for Veo is an http(s) URL (sent as its bytes) or, on Vertex AI, a gs:// URI"})
		}
	}
	if images > maxVeoReferenceImages {
		out = append(out, Inexpressible{Param: ContentParam(ContentImage),
			Reason: fmt.Sprintf("%s takes at most %d reference images, not %d", name, maxVeoReferenceImages, images)})
	}
	for _, k := range slices.Sorted(maps.Keys(md.Extra)) {
		if slices.Contains(veoTypedParameters, k) {
			out = append(out, Inexpressible{Param: "metadata." + k,
				Reason: fmt.Sprintf("%s's %s is set by the provider's own arguments, not by a vendor parameter", name, k)})
		}
	}
	return out
}

// veoBody builds the predict request of req for api. Reference images on an
// http(s) URL are fetched here, before anything is submitted, because Veo
// takes them only as bytes (Vertex AI also reads gs:// URIs itself); a failed
// fetch submits nothing.
func (c *Client) veoBody(ctx context.Context, req VideoRequest) (veoRequest, error) {
	if bad := c.api.Inexpressible(req); len(bad) > 0 {
		return veoRequest{}, &InexpressibleError{API: c.api, Params: bad}
	}
	inst := veoInstance{Prompt: req.Prompt}
	params := map[string]json.RawMessage{}
	set := func(k string, v any) {
		b, _ := json.Marshal(v) // strings, numbers and bools always encode
		params[k] = b
	}
	if req.Seconds != "" {
		n, _ := strconv.Atoi(req.Seconds) // checked by Inexpressible
		set("durationSeconds", n)
	}
	if req.StorageURI != "" {
		set("storageUri", req.StorageURI)
	}
	if md := req.Metadata; md != nil {
		for k, v := range md.Extra {
			params[k] = v
		}
		if md.Ratio != "" {
			set("aspectRatio", md.Ratio)
		}
		if md.Resolution != "" {
			set("resolution", md.Resolution)
		}
		if md.GenerateAudio != nil {
			set("generateAudio", *md.GenerateAudio)
		}
		for _, e := range md.Content {
			if e.Type != ContentImage {
				continue
			}
			img, err := c.referenceImage(ctx, e.MediaURL())
			if err != nil {
				return veoRequest{}, err
			}
			inst.ReferenceImages = append(inst.ReferenceImages, veoReferenceImage{Image: img, ReferenceType: "ASSET"})
		}
	}
	body := veoRequest{Instances: []veoInstance{inst}}
	if len(params) > 0 {
		body.Parameters = params
	}
	return body, nil
}

// referenceImage is a reference image as Veo takes it: a gs:// URI as itself
// (Vertex AI reads it), anything else fetched and sent as bytes. The fetch
// carries no credential: the image's host is not the API.
func (c *Client) referenceImage(ctx context.Context, rawURL string) (veoImage, error) {
	if strings.HasPrefix(rawURL, "gs://") {
		return veoImage{GCSURI: rawURL, MIMEType: mime.TypeByExtension(path.Ext(rawURL))}, nil
	}
	shown := redactURLString(rawURL)
	fail := func(err error) (veoImage, error) {
		return veoImage{}, fmt.Errorf("fetching the reference image %s to send it to Veo (nothing was submitted): %w", shown, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fail(errors.New("not a valid URL"))
	}
	req.Header.Set("User-Agent", c.userAgent)
	resp, err := c.downloadHTTPClient().Do(req)
	if err != nil {
		var uErr *url.Error
		if errors.As(err, &uErr) {
			err = uErr.Err
		}
		return fail(c.redactor().Error(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Errorf("HTTP %d", resp.StatusCode))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReferenceImageBytes+1))
	if err != nil {
		return fail(err)
	}
	if len(data) > maxReferenceImageBytes {
		return fail(fmt.Errorf("the image is larger than %d bytes", maxReferenceImageBytes))
	}
	mt := http.DetectContentType(data)
	if !strings.HasPrefix(mt, "image/") {
		return fail(fmt.Errorf("the body is not an image (%s)", mt))
	}
	return veoImage{BytesBase64Encoded: base64.StdEncoding.EncodeToString(data), MIMEType: mt}, nil
}

// veoOperation is a long-running operation of either API. The Gemini API's
// response holds generateVideoResponse.generatedSamples[].video.uri; Vertex
// AI's holds videos[] with a gcsUri or the clip inline (bytesBase64Encoded,
// which takeInlineClips has replaced by a marker before decoding).
type veoOperation struct {
	Name     string          `json:"name"`
	Done     bool            `json:"done"`
	Error    json.RawMessage `json:"error"`
	Response *struct {
		GenerateVideoResponse *veoVideos `json:"generateVideoResponse"`
		veoVideos
	} `json:"response"`
}

type veoVideos struct {
	GeneratedSamples []struct {
		Video struct {
			URI string `json:"uri"`
		} `json:"video"`
	} `json:"generatedSamples"`
	Videos []struct {
		GCSURI             string `json:"gcsUri"`
		BytesBase64Encoded string `json:"bytesBase64Encoded"`
	} `json:"videos"`
	RAIMediaFilteredCount   int      `json:"raiMediaFilteredCount"`
	RAIMediaFilteredReasons []string `json:"raiMediaFilteredReasons"`
}

// decodeVeoOperation reads an operation into the task model every API shares.
// On a submission the operation's name is all that matters: an answer with a
// name is a task, whatever else it lacks. An operation not done is running; done
// with an error, failed; done with a clip, succeeded; done with neither (Veo's
// safety filters took every sample), failed with the filter's reasons.
func (c *Client) decodeVeoOperation(data []byte, tc taskContext) (*Video, error) {
	var op veoOperation
	if err := json.Unmarshal(data, &op); err != nil {
		return nil, fmt.Errorf("the answer is not a long-running operation (%w): %s", err, snippet(data))
	}
	id := op.Name
	if tc.askedID != "" {
		id = tc.askedID
	}
	if id == "" {
		return nil, fmt.Errorf("the answer has no operation name; it has %s: %s", memberNames(data), snippet(data))
	}
	v := &Video{TaskID: id, Status: StatusRunning, RawStatus: "running", Format: "mp4", NoEcho: true}
	switch {
	case tc.submission && !op.Done:
		v.Status, v.RawStatus = StatusSubmitted, "submitted"
	case !op.Done:
	case len(bytes.TrimSpace(op.Error)) > 0 && string(bytes.TrimSpace(op.Error)) != "null":
		v.Status, v.RawStatus = StatusFailed, "failed"
		if e, ok := readServiceError(op.Error); ok {
			v.FailureReason = e.text()
		}
		if v.FailureReason == "" {
			v.FailureReason = "the operation failed and gave no reason"
		}
	default:
		v.Status, v.RawStatus = StatusSucceeded, "succeeded"
		vids := veoVideos{}
		if op.Response != nil {
			vids = op.Response.veoVideos
			if g := op.Response.GenerateVideoResponse; g != nil {
				vids = *g
			}
		}
		switch {
		case len(vids.GeneratedSamples) > 0 && vids.GeneratedSamples[0].Video.URI != "":
			v.URL = vids.GeneratedSamples[0].Video.URI
		case len(vids.Videos) > 0 && vids.Videos[0].GCSURI != "":
			v.URL = vids.Videos[0].GCSURI
		case len(vids.Videos) > 0 && vids.Videos[0].BytesBase64Encoded != "":
			v.InlineClip = true
		default:
			v.Status, v.RawStatus = StatusFailed, "failed"
			v.FailureReason = "the operation finished without a video"
			if len(vids.RAIMediaFilteredReasons) > 0 || vids.RAIMediaFilteredCount > 0 {
				v.FailureReason = fmt.Sprintf("Veo's safety filters withheld the video (%d filtered)", max(1, vids.RAIMediaFilteredCount))
				if len(vids.RAIMediaFilteredReasons) > 0 {
					v.FailureReason += ": " + strings.Join(vids.RAIMediaFilteredReasons, "; ")
				}
			}
		}
	}
	return v, nil
}

// veoSubmitRoute is where a predict request for model goes on the client's API.
func (c *Client) veoSubmitRoute(model string) (path, rawURL string) {
	if c.api == APIVertex {
		return vertexPredictPath, c.vertexModelEndpoint(model, "predictLongRunning")
	}
	return geminiPredictPath, c.geminiModelEndpoint(model, "predictLongRunning")
}

// veoReadRoute is how an operation is read on the client's API: a GET of its
// name (Gemini API), or a POST of its name to its model's
// fetchPredictOperation (Vertex AI). A name of another shape is refused before
// anything is sent, so that no task ID can reach another path.
func (c *Client) veoReadRoute(name string) (method, path, rawURL string, body any, err error) {
	segments := strings.Split(name, "/")
	if len(segments) < 4 || segments[len(segments)-2] != "operations" || slices.Contains(segments, "") {
		return "", "", "", nil, fmt.Errorf("%q is not the name of a Veo operation (models/{model}/operations/{id}, or on Vertex AI projects/.../operations/{id})", name)
	}
	if c.api == APIVertex {
		if segments[0] != "projects" {
			return "", "", "", nil, fmt.Errorf("%q is not the name of a Vertex AI operation (projects/{project}/locations/{location}/publishers/google/models/{model}/operations/{id})", name)
		}
		resource := segments[:len(segments)-2]
		return http.MethodPost, vertexFetchPath, c.verbEndpoint("fetchPredictOperation", append([]string{"v1"}, resource...)...),
			map[string]string{"operationName": name}, nil
	}
	return http.MethodGet, geminiOperationPath, c.endpoint(append([]string{"v1beta"}, segments...)...), nil, nil
}

// verbEndpoint is endpoint(segments...) followed by Google's custom method
// ":verb"; a colon in the last segment is escaped, so that it cannot name
// another method.
func (c *Client) verbEndpoint(verb string, segments ...string) string {
	last := len(segments) - 1
	escaped := append([]string(nil), segments...)
	escaped[last] = strings.ReplaceAll(escaped[last], ":", "\x00")
	u := c.endpoint(escaped...)
	return strings.ReplaceAll(u, "%00", "%3A") + ":" + verb
}
