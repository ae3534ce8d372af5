package videofile

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// A 401 on a clip download says whether the key went with it, and what to do
// in each case, instead of the advice for transient errors.
func TestAddDownloadErrorUnauthorized(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		err     error
		want    []string
		notWant string
	}{
		{"keyed", &client.DownloadError{StatusCode: 401, URL: "https://gw.example/v1/videos/v/content", WithKey: true, Attempts: 1},
			[]string{"refused the API key", "api_key"}, "transient"},
		{"another address", &client.DownloadError{StatusCode: 401, URL: "http://localhost:3000/v1/videos/v/content", Attempts: 1},
			[]string{"another address", "base_url", "Server Address"}, "transient"},
		{"other status", &client.DownloadError{StatusCode: 503, URL: "https://cdn.example/v.mp4", Attempts: 3},
			[]string{"HTTP 503 after 3 attempt(s)", "transient"}, "Server Address"},
	}
	for _, tt := range tests {
		var diags diag.Diagnostics
		addDownloadError(&diags, "v", fileTarget{path: "out/v.mp4"}, tt.err)
		if len(diags) != 1 || diags[0].Summary() != "Unable to Download Video File" {
			t.Fatalf("%s: %v", tt.name, diags)
		}
		detail := diags[0].Detail()
		for _, w := range tt.want {
			if !strings.Contains(detail, w) {
				t.Errorf("%s: the detail does not say %q:\n%s", tt.name, w, detail)
			}
		}
		if strings.Contains(detail, tt.notWant) {
			t.Errorf("%s: the detail says %q:\n%s", tt.name, tt.notWant, detail)
		}
	}
}
