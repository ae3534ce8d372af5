package provider

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const videoAddr = "videogen_video.test"

func videoConfig(mock *testMock, body string) string {
	return mock.providerBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
%s
}
`, body)
}

func TestAccVideoResource_createImportEmptyPlan(t *testing.T) {
	mock := newTestMock(t)
	config := videoConfig(mock, `
  model          = "videogen-1"
  prompt         = "a red kite over the sea"
  seconds        = 4
  ratio          = "16:9"
  resolution     = "720p"
  generate_audio = false
  callback_url   = "https://hooks.example.com/videogen"
`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("format"), knownvalue.StringExact("mp4")),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("seconds"), knownvalue.StringExact("4")),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("url"),
						knownvalue.StringRegexp(regexp.MustCompile(`^http://127\.0\.0\.1:\d+/.+\.mp4`))),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), knownvalue.StringRegexp(regexp.MustCompile(`^\S+$`))),
					statecheck.CompareValuePairs(videoAddr, tfjsonpath.New("id"), videoAddr, tfjsonpath.New("task_id"), compareEqual{}),
				},
				Check: resource.ComposeTestCheckFunc(
					mock.expectSubmissions(1),
					func(*terraform.State) error {
						task := mock.Ledger().Tasks[0]
						if task.Model != "videogen-1" || task.Prompt != "a red kite over the sea" || task.Seconds != "4" {
							return fmt.Errorf("the mock received model=%q prompt=%q seconds=%q", task.Model, task.Prompt, task.Seconds)
						}
						var md map[string]any
						if err := json.Unmarshal(task.Metadata, &md); err != nil {
							return fmt.Errorf("metadata %s: %v", task.Metadata, err)
						}
						want := map[string]any{"ratio": "16:9", "resolution": "720p", "generate_audio": false,
							"callback_url": "https://hooks.example.com/videogen"}
						for k, v := range want {
							if md[k] != v {
								return fmt.Errorf("metadata.%s = %v, want %v (metadata %s)", k, md[k], v, task.Metadata)
							}
						}
						return nil
					},
				),
			},
			{
				ResourceName:      videoAddr,
				ImportState:       true,
				ImportStateVerify: true,
				// The API does not echo these; after a real import they are adopted from configuration.
				ImportStateVerifyIgnore: []string{"model", "prompt", "seconds", "wait_for_completion", "timeouts"},
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: mock.expectSubmissions(1),
			},
		},
	})
}

func TestAccVideoResource_failedTaskIsTaintedAndReplaced(t *testing.T) {
	mock := newTestMock(t)
	config := videoConfig(mock, `
  model  = "videogen-1"
  prompt = "this one fails [mock:fail]"
`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)Video Generation Failed.*task_\w+.*not\s+billed`),
			},
			{
				// The failed task was saved tainted, so the same configuration replaces it.
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionReplace)},
				},
				ExpectError: regexp.MustCompile(`Video Generation Failed`),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if n := mock.submissions(); n != 2 {
				return fmt.Errorf("want 2 submissions (one per apply), ledger shows %d", n)
			}
			for _, task := range mock.Ledger().Tasks {
				if task.Billed {
					return fmt.Errorf("failed task %s was billed", task.TaskID)
				}
			}
			return nil
		},
	})
}

func TestAccVideoResource_deletedOnServiceIsRecreated(t *testing.T) {
	mock := newTestMock(t)
	config := videoConfig(mock, `
  model  = "videogen-1"
  prompt = "a clip that vanishes"
`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config, Check: mock.expectSubmissions(1)},
			{
				PreConfig: func() {
					if !mock.DeleteTask(mock.Ledger().Tasks[0].TaskID) {
						t.Fatal("the mock had no task to delete")
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionCreate)},
				},
				Check: mock.expectSubmissions(2),
			},
		},
	})
}

// compareEqual is a compare.ValueComparer for two values that must be identical.
type compareEqual struct{}

func (compareEqual) CompareValues(values ...any) error {
	for _, v := range values[1:] {
		if v != values[0] {
			return fmt.Errorf("values differ: %v", values)
		}
	}
	return nil
}
