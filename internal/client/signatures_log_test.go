package client

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

const (
	logSignature = "SIGlogcanary7f3a"
	logToken     = "TOKlogcanary91c2"
	signedRef    = "https://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png?versionId=v1&X-Amz-Algorithm=AWS4-HMAC-SHA256" +
		"&X-Amz-Credential=AKID%2F20260101%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900" +
		"&X-Amz-Security-Token=" + logToken + "&X-Amz-SignedHeaders=host&X-Amz-Signature=" + logSignature
)

func TestWithoutSignatures(t *testing.T) {
	t.Parallel()
	quoted, _ := json.Marshal(signedRef) // "&" as \u0026, as Go writes JSON
	tests := map[string]struct{ in, want string }{
		"raw": {
			"see " + signedRef + " now",
			"see https://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png?versionId=v1&X-Amz-Algorithm=(redacted)" +
				"&X-Amz-Credential=(redacted)&X-Amz-Date=(redacted)&X-Amz-Expires=(redacted)&X-Amz-Security-Token=(redacted)" +
				"&X-Amz-SignedHeaders=(redacted)&X-Amz-Signature=(redacted) now",
		},
		"json": {
			`{"image_url":{"url":` + string(quoted) + `},"n":1}`,
			`{"image_url":{"url":"https://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png?versionId=v1\u0026X-Amz-Algorithm=(redacted)` +
				`\u0026X-Amz-Credential=(redacted)\u0026X-Amz-Date=(redacted)\u0026X-Amz-Expires=(redacted)\u0026X-Amz-Security-Token=(redacted)` +
				`\u0026X-Amz-SignedHeaders=(redacted)\u0026X-Amz-Signature=(redacted)"},"n":1}`,
		},
		"any store, any case, any host": {
			"https://proxy.example.com/a?x-amz-signature=1&sig=2&Signature=3&GoogleAccessId=4&Key-Pair-Id=5&src=6#sig=7",
			"https://proxy.example.com/a?x-amz-signature=(redacted)&sig=(redacted)&Signature=(redacted)&GoogleAccessId=(redacted)&Key-Pair-Id=(redacted)&src=6#sig=7",
		},
		"percent-encoded name": {"http://h/a?X%2DAmz%2DSignature=1&b=2", "http://h/a?X%2DAmz%2DSignature=(redacted)&b=2"},
		"a URL inside a URL": {
			"https://thumbs.example.com/t?src=" + url.QueryEscape(signedRef) + "&w=100",
			"https://thumbs.example.com/t?src=" + url.QueryEscape(
				"https://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png?versionId=v1&X-Amz-Algorithm=(redacted)"+
					"&X-Amz-Credential=(redacted)&X-Amz-Date=(redacted)&X-Amz-Expires=(redacted)&X-Amz-Security-Token=(redacted)"+
					"&X-Amz-SignedHeaders=(redacted)&X-Amz-Signature=(redacted)") + "&w=100",
		},
		"nothing signed":   {`{"url":"https://h/x.png?versionId=1&generation=2","sig":"not a URL"}`, `{"url":"https://h/x.png?versionId=1&generation=2","sig":"not a URL"}`},
		"no URL":           {"sig=1&Signature=2", "sig=1&Signature=2"},
		"unfinished JSON":  {`{"u":"https://h/x?sig=1`, `{"u":"https://h/x?sig=(redacted)`},
		"empty and broken": {`"" "\" https://h/?=&&sig&sig=`, `"" "\" https://h/?=&&sig&sig=(redacted)`},
	}
	for name, tt := range tests {
		if got := withoutSignatures(tt.in); got != tt.want {
			t.Errorf("%s: withoutSignatures(%q)\n = %q\nwant %q", name, tt.in, got, tt.want)
		}
	}
}

// A signed reference URL reaches the service as written, and neither the request
// nor the service's echo of it puts its signature in the log, in any form: as
// JSON, or in OpenAI's multipart form.
func TestLogKeepsSignaturesOut(t *testing.T) {
	t.Parallel()
	// Veo's APIs send no reference URL: they fetch the image and send its
	// bytes (see TestVeoReferenceImagesGoAsBytes).
	for _, api := range []API{APIVideoGenerations, APIOpenAIVideos} {
		t.Run(string(api), func(t *testing.T) {
			t.Parallel()
			logKeepsSignaturesOut(t, api)
		})
	}
}

func logKeepsSignaturesOut(t *testing.T, api API) {
	quoted, _ := json.Marshal(signedRef)
	echo := `{"task_id":"t1","status":"running","metadata":{"content":[{"type":"image_url","image_url":{"url":` +
		string(quoted) + `}}],"note":"fetched ` + signedRef + `"}}`
	srv, s := newScriptServer(t, okReply(`{"task_id":"t1","status":"submitted"}`), okReply(echo))
	logger := &recordingLogger{}
	c, err := New(srv.URL, testAPIKey, WithLogger(logger), WithAPI(api))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p", Metadata: &Metadata{
		Content: []ContentEntry{NewContentEntry(ContentImage, signedRef)},
	}}); err != nil {
		t.Fatal(err)
	}
	v, err := c.GetVideo(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	// OpenAI's video object echoes no reference.
	if got := v.Metadata.Content; api == APIVideoGenerations && (len(got) != 1 || got[0].MediaURL() != signedRef) {
		t.Fatalf("the echo reads %v, want the URL as the service sent it", got)
	}
	if sent := s.request(0).Body; !strings.Contains(string(sent), logSignature) {
		t.Fatalf("the service did not receive the signed URL: %s", sent)
	}
	entries := logger.all()
	if len(entries) < 4 {
		t.Fatalf("%d log entries, want a request and a response for each call", len(entries))
	}
	var all strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&all, "%s %v\n", e.msg, e.fields)
	}
	for _, secret := range []string{logSignature, logToken} {
		for form, s := range map[string]string{"raw": secret, "base64": base64.StdEncoding.EncodeToString([]byte(secret)),
			"hex": hex.EncodeToString([]byte(secret))} {
			if strings.Contains(all.String(), s) {
				t.Errorf("the log holds the %s form of %q:\n%s", form, secret, all.String())
			}
		}
	}
	if !strings.Contains(all.String(), "versionId=v1") {
		t.Errorf("the log lost the URL's other parameters:\n%s", all.String())
	}
}

// TestErrorsKeepSignaturesOut: a service that cannot fetch a signed reference URL
// quotes it back, in an error body (JSON or not), in an answer it cannot be read
// from, or as a task's failure reason. The error a caller shows, and the failure
// reason it reads, keep the URL's address and lose its signature and token.
func TestErrorsKeepSignaturesOut(t *testing.T) {
	t.Parallel()
	// Short enough that a quoted body, cut at 200 bytes, still holds all of it.
	signedRef := "https://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png?versionId=v1&X-Amz-Security-Token=" + logToken +
		"&X-Amz-Signature=" + logSignature
	quoted, _ := json.Marshal("cannot fetch " + signedRef)
	html := reply{status: http.StatusBadRequest, header: map[string]string{"Content-Type": "text/html"},
		body: "<html><p>cannot fetch " + signedRef + "</p></html>"}
	tests := map[string]struct {
		api   API
		reply reply
		call  func(context.Context, *Client) (any, error)
	}{
		"400 json message": {APIVideoGenerations, errReply(http.StatusBadRequest, "cannot fetch "+signedRef), submitCall},
		"400 html body":    {APIVideoGenerations, html, submitCall},
		"200 not json":     {APIVideoGenerations, okReply("cannot fetch " + signedRef), getCall},
		"task without status": {APIVideoGenerations,
			okReply(`{"task_id":"t1","note":` + string(quoted) + `}`), getCall},
		"failed task": {APIVideoGenerations,
			okReply(`{"task_id":"t1","status":"failed","error":{"message":` + string(quoted) + `}}`), getCall},
		"failed task, waited for": {APIVideoGenerations,
			okReply(`{"task_id":"t1","status":"failed","fail_reason":` + string(quoted) + `}`), waitCall},
		"failed openai video": {APIOpenAIVideos,
			okReply(`{"id":"t1","object":"video","status":"failed","error":{"code":"bad_reference","message":` + string(quoted) + `}}`), getCall},
		"model list": {APIVideoGenerations, okReply(`{"data":` + string(quoted) + `}`),
			func(ctx context.Context, c *Client) (any, error) { return c.ListModels(ctx) }},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newScriptServer(t, tt.reply)
			c, err := New(srv.URL, testAPIKey, WithAPI(tt.api), WithMaxRetries(0),
				WithPollPolicy(PollPolicy{Fixed: time.Millisecond, MaxConsecutiveErrors: 1}))
			if err != nil {
				t.Fatal(err)
			}
			result, err := tt.call(t.Context(), c)
			var shown string
			if err != nil {
				shown = err.Error()
			} else if v, ok := result.(*Video); ok && v.Status == StatusFailed {
				shown = v.FailureReason
			}
			if !strings.Contains(shown, "bucket.s3.eu-west-1.amazonaws.com/refs/mug.png?versionId=v1") {
				t.Fatalf("the text a caller shows does not quote the URL's address (result %+v): %q", result, shown)
			}
			for _, secret := range []string{logSignature, logToken} {
				if strings.Contains(shown, secret) {
					t.Errorf("the text a caller shows holds %q: %s", secret, shown)
				}
			}
		})
	}
}

func submitCall(ctx context.Context, c *Client) (any, error) {
	return c.SubmitVideo(ctx, VideoRequest{Model: "m", Prompt: "p"})
}

func getCall(ctx context.Context, c *Client) (any, error) { return c.GetVideo(ctx, "t1") }

func waitCall(ctx context.Context, c *Client) (any, error) { return c.WaitForVideo(ctx, "t1") }

// FuzzWithoutSignatures: whatever surrounds a signed URL, raw or as a JSON string,
// its signature does not survive, and redacting twice changes nothing more.
func FuzzWithoutSignatures(f *testing.F) {
	f.Add("", "", true)
	f.Add(`{"a":"`, `"}`, true)
	f.Add("see ", "?x=1#sig=2", false)
	f.Add(`"\`, "&sig=", true)
	f.Fuzz(func(t *testing.T, prefix, suffix string, asJSON bool) {
		text := signedRef
		if asJSON {
			quoted, _ := json.Marshal(signedRef)
			text = string(quoted)
		}
		got := withoutSignatures(prefix + " " + text + " " + suffix)
		if strings.Contains(got, logSignature) && !strings.Contains(prefix+suffix, logSignature) {
			t.Fatalf("the signature survives in %q", got)
		}
		if again := withoutSignatures(got); again != got {
			t.Fatalf("redacting again changed %q to %q", got, again)
		}
	})
}
