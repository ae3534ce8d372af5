package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// The tests in this file run the core lifecycle of a clip against every
// dialect the mock speaks: the API as described, and the gateways in front of
// it that answer in their own shapes. A user does not choose the server's
// dialect, so each must give the same clips, plans and bills.

const videoDataAddr = "data.videogen_video.test"

// everyDialect are the dialects of the video-generations and openai-videos
// APIs and Google's Veo, which the core lifecycle tests in this file run
// against.
var everyDialect = slices.Concat(mockapi.Dialects, mockapi.GoogleDialects)

// clipURL matches the clip URL a dialect's mock hands out: a signed URL of its
// storage, or OpenAI's /content of the video, which is downloaded with the key.
func clipURL(dialect string) knownvalue.Check {
	if slices.Contains(mockapi.GoogleDialects, dialect) {
		return veoClipURL(dialect)
	}
	if dialect == mockapi.DialectOpenAIVideos {
		return knownvalue.StringRegexp(regexp.MustCompile(`^http://127\.0\.0\.1:\d+/v1/videos/video_[0-9a-f]+/content$`))
	}
	return knownvalue.StringRegexp(regexp.MustCompile(`^http://127\.0\.0\.1:\d+/.+\.mp4`))
}

// unknownTaskID is a task ID of the dialect's shape that the mock never
// handed out (Veo's are operation names, which the client checks).
func unknownTaskID(dialect string) string {
	switch dialect {
	case mockapi.DialectGemini:
		return "models/videogen-1/operations/000000000000"
	case mockapi.DialectVertex:
		return "projects/" + acctest.VertexProject + "/locations/" + acctest.VertexLocation +
			"/publishers/google/models/videogen-1/operations/00000000-0000-0000-0000-000000000000"
	}
	return "task_does_not_exist"
}

// TestAccDialect_lifecycle: create and wait, the file's bytes, the empty plan,
// import and the data source, with exactly one submission.
func TestAccDialect_lifecycle(t *testing.T) {
	t.Parallel()
	for _, dialect := range everyDialect {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			clip := filepath.Join(t.TempDir(), "heron.mp4")
			config := mock.VideoFileConfig("a heron lands on a pier", clip, "") + `
data "videogen_video" "test" {
  task_id = videogen_video.test.task_id
}
`
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						Config: config,
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), taskIDOf(mock, 0)),
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("url"), clipURL(dialect)),
							statecheck.CompareValuePairs(videoAddr, tfjsonpath.New("id"), videoAddr, tfjsonpath.New("task_id"),
								compare.ValuesSame()),
							statecheck.CompareValuePairs(videoDataAddr, tfjsonpath.New("task_id"), videoAddr, tfjsonpath.New("task_id"),
								compare.ValuesSame()),
							statecheck.ExpectKnownValue(videoDataAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
							statecheck.ExpectKnownValue(videoDataAddr, tfjsonpath.New("url"), clipURL(dialect)),
						},
						Check: resource.ComposeTestCheckFunc(
							mock.ExpectFileMatchesClip(t, clip),
							mock.ExpectClipDownloads(mock.DownloadsPerFile()),
							mock.ExpectSubmissions(1),
						),
					},
					mock.NothingNewStep(config, 1),
					{
						ResourceName:      videoAddr,
						ImportState:       true,
						ImportStateVerify: true,
						// The API does not echo these; after a real import they are adopted from configuration.
						ImportStateVerifyIgnore: []string{"model", "prompt", "seconds", "wait_for_completion", "timeouts"},
						Check:                   mock.ExpectSubmissions(1),
					},
					mock.NothingNewStep(config, 1),
				},
			})
		})
	}
}

// TestAccDialect_failedTask: a task that fails ends the apply with its task ID
// and the service's reason, is not billed, is saved tainted, and is replaced by
// the next apply.
func TestAccDialect_failedTask(t *testing.T) {
	t.Parallel()
	for _, dialect := range everyDialect {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			config := videoConfig(mock, `
  model  = "videogen-1"
  prompt = "a storm that never comes [mock:fail]"
`)
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						Config: config,
						ExpectError: regexp.MustCompile(
							`(?s)Video Generation Failed.*Task\s+\S+\s+ended\s+without\s+a\s+clip:.*simulated\s+failure.*not\s+billed`),
					},
					{
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionReplace)},
						},
						ExpectError: wrapped("Video Generation Failed"),
					},
				},
				CheckDestroy: func(*terraform.State) error {
					if n := mock.Submissions(); n != 2 {
						return fmt.Errorf("the ledger shows %d submissions, want 2 (one per apply)", n)
					}
					for _, task := range mock.Ledger().Tasks {
						if task.Billed {
							return fmt.Errorf("failed task %s was billed", task.TaskID)
						}
					}
					return nil
				},
			})
		})
	}
}

// TestAccDialect_unknownTask: a task the service does not know is an error
// for the data source and for an import, and a finished clip whose task
// vanished stays in state, said in billing; nothing is submitted but that one
// clip.
func TestAccDialect_unknownTask(t *testing.T) {
	t.Parallel()
	for _, dialect := range everyDialect {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			config := videoConfig(mock, `
  model  = "videogen-1"
  prompt = "a clip that vanishes"
`)
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						Config: mock.ProviderBlock() + fmt.Sprintf(`data "videogen_video" "test" { task_id = %q }`, unknownTaskID(dialect)),
						// terraform-plugin-testing runs no Check after an expected error: the next
						// steps' count of one submission shows that this one made none.
						ExpectError: wrapped("Unable to Read Video", "does not know this task ID"),
					},
					{
						Config:        config,
						ResourceName:  videoAddr,
						ImportState:   true,
						ImportStateId: unknownTaskID(dialect),
						ExpectError:   wrapped("Cannot import non-existent remote object"),
					},
					{Config: config, Check: mock.ExpectSubmissions(1)},
					{
						PreConfig: func() {
							if !mock.DeleteTask(mock.Ledger().Tasks[0].TaskID) {
								t.Fatal("the mock had no task to delete")
							}
						},
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionNoop)},
						},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), taskIDOf(mock, 0)),
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("billing"), knownvalue.StringExact(clip.BillingGone)),
						},
						Check: mock.ExpectSubmissions(1),
					},
				},
			})
		})
	}
}
