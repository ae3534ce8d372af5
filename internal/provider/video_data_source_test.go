package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
)

func TestAccVideoDataSource(t *testing.T) {
	mock := acctest.NewMock(t)
	taskID := submitDirectly(t, mock, client.VideoRequest{
		Model: "videogen-2", Prompt: "@image1 in the rain", Metadata: &client.Metadata{
			Ratio: "1:1", Resolution: "1080p", CallbackURL: "https://hooks.example.com/x",
			Content: []client.ContentEntry{client.NewContentEntry(client.ContentImage, "https://cdn.example.com/a.png")},
		},
	})
	const addr = "data.videogen_video.existing"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: mock.ProviderBlock() + `data "videogen_video" "existing" { task_id = "` + taskID + `" }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("format"), knownvalue.StringExact("mp4")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("url"), knownvalue.StringRegexp(regexp.MustCompile(`\.mp4`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ratio"), knownvalue.StringExact("1:1")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("resolution"), knownvalue.StringExact("1080p")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("callback_url"), knownvalue.StringExact("https://hooks.example.com/x")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("reference_images"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("https://cdn.example.com/a.png"),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("reference_videos"), knownvalue.Null()),
				},
			},
			{
				Config:      mock.ProviderBlock() + `data "videogen_video" "existing" { task_id = "task_does_not_exist" }`,
				ExpectError: regexp.MustCompile(`(?s)Unable to Read Video.*does\s+not\s+know\s+this\s+task\s+ID`),
			},
		},
	})
}

// rejectingProviderBlock is a provider block whose service answers every request
// with a 400 that blames a clip argument's parameter (param), as a gateway may
// for a request it cannot place.
func rejectingProviderBlock(t *testing.T, param string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"error":{"message":"%s is not supported","type":"invalid_request_error","param":%q}}`, param, param)
	}))
	t.Cleanup(srv.Close)
	return acctest.NewMock(t).ProviderBlock(fmt.Sprintf("base_url = %q", srv.URL), "max_retries = 0")
}

// A read that the service rejects as invalid, blaming a clip argument, is not
// pinned on that argument of the data source, which only echoes it: the
// detail says to check the arguments against the service's rules.
func TestAccVideoDataSource_badRequestNamesNoArgument(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      rejectingProviderBlock(t, "metadata.ratio") + `data "videogen_video" "x" { task_id = "task_1" }`,
			ExpectError: wrapped("Unable to Read Video", "rejected the request as invalid", "Check the arguments against the service's rules"),
		}},
	})
}
