package clipstore

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/storetest"
)

// TestSealGCS: an object another writer put in the bucket without metadata
// (as Vertex AI writes its clip) is sealed: its SHA-256 and task recorded,
// so that Stat tells the clip without reading it; sealing it again reads
// nothing, and a seal for another task leaves it as it is.
func TestSealGCS(t *testing.T) {
	srv := storetest.StartGCS(t)
	srv.Setenv(t)
	ctx := t.Context()
	data, sum := clip(7, 3<<20)
	w := srv.GCSClient(t).Bucket(srv.Bucket).Object("veo/op-1/sample_0.mp4").NewWriter(ctx)
	w.ContentType = ContentType
	if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, srv.URL("veo/op-1/sample_0.mp4"))
	if obj, err := s.Stat(ctx); err != nil || obj.Holds(int64(len(data)), sum) {
		t.Fatalf("before the seal: Stat = %+v, %v; want an object that does not hold the clip yet", obj, err)
	}
	got, err := s.Seal(ctx, Meta{TaskID: "projects/p/locations/l/publishers/google/models/m/operations/op-1", Model: "m"})
	if err != nil || got.Size != int64(len(data)) || got.SHA256 != sum || got.Unchanged {
		t.Fatalf("Seal = %+v, %v; want %d bytes with SHA-256 %s, newly sealed", got, err, len(data), sum)
	}
	obj, err := s.Stat(ctx)
	if err != nil || !obj.Holds(int64(len(data)), sum) || obj.TaskID != "projects/p/locations/l/publishers/google/models/m/operations/op-1" ||
		obj.Model != "m" || obj.ContentType != ContentType {
		t.Fatalf("after the seal: Stat = %+v, %v; want the clip of the task", obj, err)
	}
	again, err := s.Seal(ctx, Meta{TaskID: "projects/p/locations/l/publishers/google/models/m/operations/op-1", Model: "m"})
	if err != nil || !again.Unchanged || again.SHA256 != sum {
		t.Errorf("sealing again = %+v, %v; want the recorded clip, unchanged", again, err)
	}
	if _, err := s.Seal(ctx, Meta{TaskID: "other"}); !errors.Is(err, ErrExists) {
		t.Errorf("sealing for another task = %v, want ErrExists", err)
	}
	if _, err := openStore(t, srv.URL("veo/missing.mp4")).Seal(ctx, Meta{TaskID: "t"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("sealing nothing = %v, want ErrNotFound", err)
	}
}

// TestSealGCSReplacedWhileRead: an object replaced after Seal read it to hash
// it (same size, no metadata, other bytes) is left as it is: the SHA-256
// recorded with an object is always that of its own bytes. The store talks to
// the emulator through a front that replaces the object once it has read
// the object's bytes out, before it hands them on.
func TestSealGCSReplacedWhileRead(t *testing.T) {
	srv := storetest.StartGCS(t)
	ctx := t.Context()
	const key = "veo/op-2/sample_0.mp4"
	data, sum := clip(7, 1<<20)
	other, _ := clip(8, len(data))
	gcs := srv.GCSClient(t)
	put := func(b []byte) error {
		w := gcs.Bucket(srv.Bucket).Object(key).NewWriter(ctx)
		w.ContentType = ContentType
		if _, err := w.Write(b); err != nil {
			_ = w.Close()
			return err
		}
		return w.Close()
	}
	if err := put(data); err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var replaced atomic.Bool
	front := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target) // and the Host the emulator answers to
	}}
	front.ModifyResponse = func(res *http.Response) error {
		if res.Request.Method != http.MethodGet || !strings.Contains(res.Request.URL.Path, "sample_0.mp4") ||
			strings.Contains(res.Request.URL.Path, "/storage/v1/") && res.Request.URL.Query().Get("alt") != "media" {
			return nil
		}
		body, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if err != nil {
			return err
		}
		res.Body = io.NopCloser(bytes.NewReader(body))
		if replaced.CompareAndSwap(false, true) {
			return put(other)
		}
		return nil
	}
	ts := httptest.NewServer(front)
	t.Cleanup(ts.Close)
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(ts.URL, "http://"))

	got, err := openStore(t, srv.URL(key)).Seal(ctx, Meta{TaskID: "op-2", Model: "m"})
	if !replaced.Load() {
		t.Fatal("the object was not replaced while it was read: the test proves nothing")
	}
	attrs, aerr := gcs.Bucket(srv.Bucket).Object(key).Attrs(ctx)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if recorded := attrs.Metadata[MetaSHA256]; recorded != "" {
		t.Fatalf("Seal = %+v, %v; the replaced object records SHA-256 %s (the first object's is %s): want it left without one",
			got, err, recorded, sum)
	}
	if err == nil {
		t.Fatalf("Seal = %+v; want an error for an object replaced while it was read", got)
	}
}
