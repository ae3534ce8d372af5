package videofile

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// configured is Configured with one client, for tests that call the resource's
// methods directly.
type configured struct {
	client  *client.Client
	clips   localfile.Known
	planned localfile.Claims
}

func (c *configured) Client() *client.Client          { return c.client }
func (c *configured) KnownClips() *localfile.Known    { return &c.clips }
func (c *configured) PlannedPaths() *localfile.Claims { return &c.planned }
func (c *configured) TaskModel(string) string         { return "" }
func (c *configured) ClipLost(string) bool            { return false }

// A task read that the service rejects as invalid, blaming a clip argument
// (ratio), concerns no argument of videogen_video_file, which has none of
// them: the error is attached to the resource, not to an attribute its schema
// lacks.
func TestFinishedVideoBadRequestConcernsNoClipArgument(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"ratio 5:1 is not supported","type":"invalid_request_error","param":"metadata.ratio"}}`))
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, "vg-test-key", client.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	r := &videoFileResource{data: &configured{client: c}}
	var diags diag.Diagnostics
	if _, ok := r.finishedVideo(t.Context(), "task_1", time.Minute, downloadSummary, &diags); ok {
		t.Fatal("a rejected read gave a video")
	}
	if len(diags) != 1 || diags[0].Summary() != downloadSummary {
		t.Fatalf("want one %q, got %v", downloadSummary, diags)
	}
	if withPath, ok := diags[0].(diag.DiagnosticWithPath); ok {
		t.Errorf("the error is attached to %s, want the resource", withPath.Path())
	}
	if detail := diags[0].Detail(); !strings.Contains(detail, "Check the arguments against the service's rules") ||
		strings.Contains(detail, `"ratio"`) {
		t.Errorf("the detail names a clip argument, or not the service's rules:\n%s", detail)
	}
}
