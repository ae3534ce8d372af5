package apidiag

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// TestAddAttachesOnlyToTheResourcesOwnArguments: an error that concerns a clip
// argument (a rejected request, an unknown model) is attached to that argument
// only for a resource that has clip arguments; without them (nil), it is
// attached to the resource, with the same advice minus the argument's name.
func TestAddAttachesOnlyToTheResourcesOwnArguments(t *testing.T) {
	t.Parallel()
	ratio := func(error) string { return "ratio" }
	badRequest := &client.APIError{StatusCode: 400, Type: "invalid_request_error", Message: "ratio 5:1 is not supported",
		Param: "metadata.ratio", Method: "GET", Endpoint: "/video/generations/{task_id}", Attempts: 1}
	unknownModel := &client.APIError{StatusCode: 503, Type: "new_api_error", Code: "model_not_found",
		Message: "no available channel for model videogen-9", Attempts: 1}
	cases := []struct {
		name   string
		err    error
		args   Arguments
		attr   string
		advice string
	}{
		{"400_clip_arguments", badRequest, ratio, "ratio", `This most likely concerns the "ratio" argument`},
		{"400_no_clip_arguments", badRequest, nil, "", "Check the arguments against the service's rules"},
		{"model_clip_arguments", unknownModel, ratio, "model", "no model, or no channel serving it, by this ID"},
		{"model_no_clip_arguments", unknownModel, nil, "", "no model, or no channel serving it, by this ID"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var diags diag.Diagnostics
			Add(&diags, "Unable to Download Video File", Get, c.err, c.args)
			if len(diags) != 1 || diags[0].Summary() != "Unable to Download Video File" {
				t.Fatalf("want one 'Unable to Download Video File', got %v", diags)
			}
			if detail := diags[0].Detail(); !strings.Contains(detail, c.advice) || !strings.Contains(detail, "Original error: ") {
				t.Errorf("detail lacks %q or the original error:\n%s", c.advice, detail)
			}
			withPath, ok := diags[0].(diag.DiagnosticWithPath)
			switch {
			case c.attr == "" && ok:
				t.Errorf("diagnostic attached to %s, want the resource", withPath.Path())
			case c.attr != "" && (!ok || !withPath.Path().Equal(path.Root(c.attr))):
				t.Errorf("diagnostic not attached to %q: %v", c.attr, diags[0])
			}
		})
	}
}
