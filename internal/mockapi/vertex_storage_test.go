package mockapi

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/videogen/terraform-provider-videogen/internal/storetest"
)

// TestVertexWritesClipToCloudStorage: with Config.CloudStorage, the vertex
// dialect writes the clip of an operation submitted with a storageUri into
// the bucket (fake-gcs-server here) before it answers done, and the
// operation carries no bytes: the ledger shows the clip served 0 times.
// Into a bucket that does not exist, the write fails and the read is
// answered 503, never done.
func TestVertexWritesClipToCloudStorage(t *testing.T) {
	gcs := storetest.StartGCS(t)
	srv, ts := newTestServer(t, func(c *Config) {
		WithDialect(DialectVertex)(c)
		c.Keys = append(c.Keys, Key{Key: vertexToken})
		c.CloudStorage = gcs.Endpoint
	})
	c, _ := newGenaiClient(t, ts.URL, DialectVertex, vertexToken)
	ctx := t.Context()
	op, err := c.Models.GenerateVideos(ctx, "videogen-1", "a heron [mock:hold]", nil,
		&genai.GenerateVideosConfig{OutputGCSURI: "gs://" + gcs.Bucket + "/veo/"})
	if err != nil {
		t.Fatalf("GenerateVideos: %v", err)
	}
	srv.FinishTask(op.Name)
	done, err := c.Operations.GetVideosOperation(ctx, op, nil)
	if err != nil || !done.Done || done.Response == nil || len(done.Response.GeneratedVideos) != 1 {
		t.Fatalf("GetVideosOperation = %+v, %v; want done with one video", done, err)
	}
	uri := done.Response.GeneratedVideos[0].Video.URI
	if want := VertexClipURI("gs://"+gcs.Bucket+"/veo/", op.Name); uri != want {
		t.Fatalf("video URI = %q, want %q", uri, want)
	}
	rd, err := gcs.GCSClient(t).Bucket(gcs.Bucket).Object(strings.TrimPrefix(uri, "gs://"+gcs.Bucket+"/")).NewReader(ctx)
	if err != nil {
		t.Fatalf("reading %s from fake-gcs-server: %v", uri, err)
	}
	got, err := io.ReadAll(rd)
	_ = rd.Close()
	clip, _ := srv.Clip(op.Name)
	if err != nil || !bytes.Equal(got, clip) {
		t.Errorf("the object holds %d bytes (%v), want the clip's %d", len(got), err, len(clip))
	}
	lt, _ := srv.Ledger().Task(op.Name)
	if lt.ClipServed != 0 || !lt.Billed {
		t.Errorf("ledger task = served %d, billed %v; want served 0 (the clip went to the bucket), billed", lt.ClipServed, lt.Billed)
	}

	lost, err := c.Models.GenerateVideos(ctx, "videogen-1", "a heron [mock:hold]", nil,
		&genai.GenerateVideosConfig{OutputGCSURI: "gs://no-such-bucket/veo/"})
	if err != nil {
		t.Fatalf("GenerateVideos: %v", err)
	}
	srv.FinishTask(lost.Name)
	res := do(t, ts, "POST", "/v1/"+strings.SplitN(lost.Name, "/operations/", 2)[0]+":fetchPredictOperation", vertexToken,
		`{"operationName": "`+lost.Name+`"}`)
	if res.status != 503 || !strings.Contains(string(res.body), "could not be written to its storageUri") {
		t.Errorf("fetchPredictOperation into a missing bucket = %d %s, want 503 saying the clip could not be written", res.status, res.body)
	}
}
