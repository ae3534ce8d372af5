package client

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestModelCatalogReadsTheListOnce(t *testing.T) {
	t.Parallel()
	srv, s := newScriptServer(t, okReply(`{"object":"list","data":[{"id":"veo-3","max_seconds":8},{"id":"sora-2"}]}`))
	catalog := NewModelCatalog(newTestClient(t, srv.URL))
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // the first caller's cancellation is not remembered as the answer
	for range 3 {
		ids, err := catalog.IDs(ctx)
		if err != nil || !slices.Equal(ids, []string{"veo-3", "sora-2"}) {
			t.Fatalf("IDs = %q, %v; want veo-3, sora-2", ids, err)
		}
	}
	if r, ok := catalog.Record(t.Context(), "veo-3"); !ok || r.Limits.MaxSeconds != 8 {
		t.Errorf("Record(veo-3) = %+v, %v; want its record with max_seconds 8", r, ok)
	}
	if _, ok := catalog.Record(t.Context(), "VEO-3"); ok {
		t.Error("Record(VEO-3) found a record: model IDs match exactly")
	}
	if err := catalog.VerifyService(t.Context()); err != nil {
		t.Errorf("VerifyService = %v, want nil", err)
	}
	if n := s.hits(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestModelCatalogRemembersTheFailure(t *testing.T) {
	t.Parallel()
	srv, s := newScriptServer(t, reply{status: http.StatusNotFound, body: "404 page not found"})
	catalog := NewModelCatalog(newTestClient(t, srv.URL))
	err := catalog.VerifyService(t.Context())
	if err == nil || !strings.Contains(err.Error(), "/v1/models did not answer with a model list") || !IsNotFound(err) {
		t.Fatalf("VerifyService = %v, want a not-found error naming the model list", err)
	}
	if _, ok := catalog.Record(t.Context(), "veo-3"); ok {
		t.Error("Record found a model in a list that could not be read")
	}
	if _, err := catalog.IDs(t.Context()); err == nil || s.hits() != 1 {
		t.Errorf("IDs = %v after %d requests, want the one remembered error", err, s.hits())
	}
}
