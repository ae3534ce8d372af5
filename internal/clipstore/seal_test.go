package clipstore

import (
	"bytes"
	"errors"
	"io"
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
