package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
)

// The ephemeral URL of one clip is the reference video of the next, passed
// through a write-only argument: the service receives the clip's current URL, and
// neither state nor plan keeps it.
func TestAccVideoURLEphemeralResource_intoWriteOnlyMedia(t *testing.T) {
	mock := acctest.NewMock(t)
	config := mock.ProviderBlock() + `
resource "videogen_video" "first" {
  model  = "videogen-1"
  prompt = "a paper boat on a pond"
}

ephemeral "videogen_video_url" "first" {
  task_id = videogen_video.first.task_id
}

resource "videogen_video" "sequel" {
  model                      = "videogen-1"
  prompt                     = "the paper boat sails on into the rain"
  reference_videos_wo        = [ephemeral.videogen_video_url.first.url]
  reference_media_wo_version = 1
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(
					mock.ExpectSubmissions(2),
					func(s *terraform.State) error {
						first := s.RootModule().Resources["videogen_video.first"].Primary.Attributes["task_id"]
						want := mock.Task(t, first).URL
						sent, err := submittedMedia(mock, 1)
						if err != nil {
							return err
						}
						if len(sent) != 1 || sent[0] != want {
							return fmt.Errorf("the sequel was submitted with %q, want the first clip's URL %q", sent, want)
						}
						for addr, rs := range s.RootModule().Resources {
							for k, v := range rs.Primary.Attributes {
								if addr != "videogen_video.first" && strings.Contains(v, first+".mp4") {
									return fmt.Errorf("%s.%s holds the ephemeral URL: %s", addr, k, v)
								}
							}
						}
						return nil
					},
				),
			},
			mock.NothingNewStep(config, 2),
		},
	})
}

func TestAccVideoURLEphemeralResource_unfinishedTask(t *testing.T) {
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock() + `
resource "videogen_video" "held" {
  model               = "videogen-1"
  prompt              = "still rendering [mock:hold]"
  wait_for_completion = false
}

ephemeral "videogen_video_url" "held" {
  task_id = videogen_video.held.task_id
}

resource "videogen_video" "sequel" {
  model                      = "videogen-1"
  prompt                     = "next"
  reference_videos_wo        = [ephemeral.videogen_video_url.held.url]
  reference_media_wo_version = 1
}
`,
			ExpectError: regexp.MustCompile(`(?s)Video Not Ready.*task_\w+.*wait_for_completion`),
		}},
		// No Check runs after an expected error; CheckDestroy counts the submissions.
		CheckDestroy: mock.ExpectSubmissions(1),
	})
}

// A task read that the service rejects as invalid, blaming a clip argument, is
// not pinned on an argument: the ephemeral resource has only task_id.
func TestAccVideoURLEphemeralResource_badRequestNamesNoArgument(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)},
		Steps: []resource.TestStep{{
			Config:      rejectingProviderBlock(t, "metadata.ratio") + `ephemeral "videogen_video_url" "x" { task_id = "task_1" }`,
			ExpectError: wrapped("Unable to Read Video URL", "rejected the request as invalid", "Check the arguments against the service's rules"),
		}},
	})
}
