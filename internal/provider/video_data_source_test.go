package provider

import (
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
