package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

const videoAddr = "videogen_video.test"

func videoConfig(mock *acctest.Mock, body string) string {
	return mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
%s
}
`, body)
}

func TestAccVideoResource_createImportEmptyPlan(t *testing.T) {
	mock := acctest.NewMock(t)
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
					statecheck.CompareValuePairs(videoAddr, tfjsonpath.New("id"), videoAddr, tfjsonpath.New("task_id"), compare.ValuesSame()),
				},
				Check: resource.ComposeTestCheckFunc(
					mock.ExpectSubmissions(1),
					func(*terraform.State) error {
						task := ledgerTask(t, mock, 0)
						if task.Model != "videogen-1" || task.Prompt != "a red kite over the sea" || task.Seconds != "4" {
							return fmt.Errorf("the mock received model=%q prompt=%q seconds=%q", task.Model, task.Prompt, task.Seconds)
						}
						var md map[string]any
						if err := json.Unmarshal(task.Metadata, &md); err != nil {
							return fmt.Errorf("metadata %s: %w", task.Metadata, err)
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
				// billing still says what the plan said ("new clip") until a refresh records
				// what the task's status means.
				ImportStateVerifyIgnore: []string{"model", "prompt", "seconds", "wait_for_completion", "timeouts", "billing"},
			},
			mock.NothingNewStep(config, 1),
		},
	})
}

// An unfinished task that the service forgets has no clip to keep: it leaves
// state, and the next apply generates one, never offering the forgotten task
// for adoption. (A finished clip stays: see TestAccVideoResource_vendorForgot.)
func TestAccVideoResource_unfinishedTaskDeletedOnServiceIsRecreated(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	mock := acctest.NewMock(t)
	wd := cliWorkdir(t, mock, `
resource "videogen_video" "clip" {
  model               = "videogen-1"
  prompt              = "a clip that vanishes [mock:hold]"
  wait_for_completion = false
}
`)
	applyOutput(t, wd)
	taskID := ledgerTask(t, mock, 0).TaskID
	if !mock.DeleteTask(taskID) {
		t.Fatal("the mock had no task to delete")
	}
	out := applyOutput(t, wd)
	if n := mock.Submissions(); n != 2 {
		t.Fatalf("the ledger shows %d submissions, want 2 (the forgotten unfinished task, then a new one):\n%s", n, out)
	}
	if !wrapped("Video Task Not Found", taskID, "before it finished").MatchString(out) || strings.Contains(out, "Clip May Adopt") {
		t.Fatalf("the apply does not say the unfinished task is gone, or offers it for adoption:\n%s", out)
	}
}

// TestAccVideoResource_planTimeValidation holds every rule that must fail at plan,
// before anything is submitted or billed.
func TestAccVideoResource_planTimeValidation(t *testing.T) {
	mock := acctest.NewMock(t)
	urls := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%q,", fmt.Sprintf("https://cdn.example.com/ref%d", i))
		}
		return "[" + strings.TrimSuffix(b.String(), ",") + "]"
	}
	cases := []struct {
		name, body, want string
	}{
		{"seconds_letters", `seconds = "eight"`, `(?s)seconds.*whole\s+number\s+of\s+seconds`},
		{"seconds_zero", `seconds = "0"`, `(?s)seconds.*1\s+or\s+more`},
		{"seconds_negative", `seconds = -3`, `(?s)seconds.*whole\s+number`},
		{"resolution", `resolution = "4k"`, `(?s)Invalid\s+Resolution.*resolution\s+must\s+be\s+one\s+of\s+"480p",\s+"720p",\s+"1080p",\s+got\s+"4k"`},
		{"resolution_case", `resolution = "720P"`, `(?s)Invalid\s+Resolution.*resolution\s+is\s+"720P":\s+write\s+it\s+as\s+"720p"`},
		{"ratio_shape", `ratio = "16x9"`, `(?s)ratio.*W:H`},
		{"ratio_zero", `ratio = "0:1"`, `(?s)ratio.*positive`},
		{"too_many_images", "reference_images = " + urls(10), `(?s)reference_images.*at most 9`},
		{"too_many_videos", "reference_videos = " + urls(4), `(?s)reference_videos.*at most 3`},
		{"too_many_audios", "reference_audios = " + urls(4), `(?s)reference_audios.*at most 3`},
		{"image_url_relative", `reference_images = ["images/cat.png"]`, `(?s)reference_images.*absolute\s+http`},
		{"audio_url_scheme", `reference_audios = ["ftp://x.example.com/a.mp3"]`, `(?s)reference_audios.*absolute\s+http`},
		{"callback_url", `callback_url = "hooks.example.com"`, `(?s)callback_url.*absolute\s+http`},
		{"image_citation_too_high", `reference_images = ["https://cdn.example.com/a.png"]` + "\n" + `prompt_override = "@image1 meets @image2"`,
			`(?s)cites\s+@image2.*reference_images\s+has\s+1`},
		{"image_citation_zero", `prompt_override = "@image0 at dawn"`, `(?s)@image0.*start\s+at\s+@image1`},
		{"blank_prompt", `prompt_override = "   "`, `(?s)prompt.*must\s+not\s+be\s+blank`},
		{"unknown_model", `model_override = "videogen-9"`, `(?s)Unknown Model.*videogen-9.*videogen-1,\s+videogen-1-fast,\s+videogen-2`},
		{"model_one_edit_away", `model_override = "videogen-1-fat"`, `(?s)Unknown Model.*Did\s+you\s+mean\s+"videogen-1-fast"\?`},
		// Numbers the service cannot take, and spellings it would echo differently.
		{"seconds_too_large", `seconds = "99999999999999999999"`, `(?s)seconds.*more\s+than\s+the\s+service\s+can\s+take`},
		{"seconds_leading_zero", `seconds = "08"`, `(?s)seconds.*without\s+leading\s+zeros,\s+as\s+"8"`},
		{"ratio_leading_zeros", `ratio = "016:09"`, `(?s)ratio.*without\s+leading\s+zeros,\s+as\s+"16:9"`},
		// Null elements, written out or computed, are named with their index.
		{"null_image", `reference_images = [null]`, `(?s)reference_images.*null\s+element\s+at\s+index\s+0`},
		{"null_image_computed", `reference_images = ["https://cdn.example.com/a.png", (true ? null : "x")]`,
			`(?s)reference_images.*null\s+element\s+at\s+index\s+1`},
		// URLs: no credentials in state, one spelling, and a hint for a missing scheme.
		{"image_url_credentials", `reference_images = ["https://user:pass@cdn.example.com/a.png"]`,
			`(?s)reference_images.*credentials.*stored.*state`},
		{"callback_url_credentials", `callback_url = "https://user:pass@hooks.example.com/x"`, `(?s)callback_url.*credentials`},
		{"image_url_space", `reference_images = ["https://cdn.example.com/a b.png"]`,
			`(?s)reference_images.*canonical\s+form.*"https://cdn\.example\.com/a%20b\.png"`},
		{"video_url_host_case", `reference_videos = ["https://CDN.example.com/v.mp4"]`,
			`(?s)reference_videos.*canonical\s+form.*"https://cdn\.example\.com/v\.mp4"`},
		{"callback_url_scheme_hint", `callback_url = "hooks.example.com/x"`, `(?s)callback_url.*add\s+https://\s+in\s+front`},
		{"image_citation_overflow", `prompt_override = "@image99999999999999999999 at dawn"`,
			`(?s)cites\s+@image9+.*reference_images\s+has\s+0`},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		model, prompt, extra := "videogen-1", "a valid prompt", c.body
		if v, ok := strings.CutPrefix(extra, "prompt_override = "); ok {
			prompt, extra = strings.Trim(v, `"`), ""
		}
		if rest, v, ok := strings.Cut(extra, "\nprompt_override = "); ok {
			prompt, extra = strings.Trim(v, `"`), rest
		}
		if v, ok := strings.CutPrefix(extra, "model_override = "); ok {
			model, extra = strings.Trim(v, `"`), ""
		}
		steps = append(steps, resource.TestStep{
			Config:      videoConfig(mock, fmt.Sprintf("  model = %q\n  prompt = %q\n  %s", model, prompt, extra)),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(c.want),
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
	if n := mock.Submissions(); n != 0 {
		t.Errorf("invalid configurations submitted %d task(s); want none", n)
	}
}

func TestAccVideoResource_unknownValuesPassValidation(t *testing.T) {
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		// terraform_data arrived in Terraform 1.4.
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_4_0)},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			// Every value below comes from terraform_data and is unknown at plan time.
			Config: mock.ProviderBlock() + `
resource "terraform_data" "inputs" {
  input = {
    model   = "videogen-2"
    seconds = "6"
    images  = ["https://cdn.example.com/a.png", "https://cdn.example.com/b.png"]
  }
}
resource "videogen_video" "test" {
  model            = terraform_data.inputs.output.model
  prompt           = "@image1 turns into @image2"
  seconds          = terraform_data.inputs.output.seconds
  reference_images = terraform_data.inputs.output.images
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
			},
			Check: mock.ExpectSubmissions(1),
		}},
	})
}

func TestAccVideoResource_referenceMediaOrderAndMetadata(t *testing.T) {
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: videoConfig(mock, `
  model            = "videogen-2"
  prompt           = "@image1 walks past @image2"
  reference_audios = ["https://cdn.example.com/theme.mp3"]
  reference_videos = ["https://cdn.example.com/motion.mp4"]
  reference_images = ["https://cdn.example.com/first.png", "https://cdn.example.com/second.png"]
  callback_url     = "https://hooks.example.com/done"
`),
			Check: resource.ComposeTestCheckFunc(mock.ExpectSubmissions(1), func(*terraform.State) error {
				var body struct {
					CallbackURL string           `json:"callback_url"`
					Content     []map[string]any `json:"content"`
				}
				task := ledgerTask(t, mock, 0)
				if err := json.Unmarshal(task.Metadata, &body); err != nil {
					return err
				}
				if body.CallbackURL != "https://hooks.example.com/done" {
					return fmt.Errorf("metadata.callback_url = %q", body.CallbackURL)
				}
				want := []struct{ typ, url, role string }{
					{"image_url", "https://cdn.example.com/first.png", "reference_image"},
					{"image_url", "https://cdn.example.com/second.png", "reference_image"},
					{"video_url", "https://cdn.example.com/motion.mp4", "reference_video"},
					{"audio_url", "https://cdn.example.com/theme.mp3", "reference_audio"},
				}
				if len(body.Content) != len(want) {
					return fmt.Errorf("content has %d entries, want %d: %s", len(body.Content), len(want), task.Metadata)
				}
				for i, w := range want {
					e := body.Content[i]
					payload, _ := e[w.typ].(map[string]any)
					if e["type"] != w.typ || e["role"] != w.role || payload["url"] != w.url {
						return fmt.Errorf("content[%d] = %v, want type %s role %s url %s", i, e, w.typ, w.role, w.url)
					}
				}
				return nil
			}),
		}},
	})
}

// ledgerTask returns the i-th task the mock accepted. Fewer tasks fail the test:
// indexing the ledger would panic and kill every test of the binary.
func ledgerTask(t testing.TB, mock *acctest.Mock, i int) mockapi.LedgerTask {
	t.Helper()
	tasks := mock.Ledger().Tasks
	if len(tasks) <= i {
		t.Fatalf("the mock's ledger holds %d task(s); the test needs task %d", len(tasks), i+1)
	}
	return tasks[i]
}

// submitDirectly makes a task outside Terraform, as a script or another workspace would.
func submitDirectly(t *testing.T, mock *acctest.Mock, req client.VideoRequest) string {
	t.Helper()
	v, err := mock.Client(t).SubmitVideo(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return v.TaskID
}

// An import block adopts in place what the task's answer does not echo, on the
// API as described and through Google's APIs, whose operations echo nothing
// (the operation name is the ID imported).
func TestAccVideoResource_importAdoptsUnechoedValues(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{mockapi.DialectOpenAI, mockapi.DialectGemini, mockapi.DialectVertex} {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			taskID := submitDirectly(t, mock, client.VideoRequest{
				Model: "videogen-1", Prompt: "an existing clip", Seconds: "5",
				Metadata: &client.Metadata{Ratio: "9:16", Resolution: "480p"},
			})
			body := `
  model      = "videogen-1"
  prompt     = "an existing clip"
  seconds    = "5"
  ratio      = "9:16"
  resolution = "480p"
`
			importBlock := fmt.Sprintf("\nimport {\n  to = %s\n  id = %q\n}\n", videoAddr, taskID)
			steps := []resource.TestStep{
				{
					Config: videoConfig(mock, body) + importBlock,
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionUpdate)},
					},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), knownvalue.StringExact(taskID)),
						statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("model"), knownvalue.StringExact("videogen-1")),
						statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("ratio"), knownvalue.StringExact("9:16")),
					},
					Check: mock.ExpectSubmissions(1),
				},
				mock.NothingNewStep(videoConfig(mock, body), 1),
			}
			if dialect != mockapi.DialectOpenAI {
				// Where nothing is echoed, everything was adopted: what the
				// configuration asks next is still compared (the API as
				// described shows it in TestAccVideoResource_importAdoptsAnEchoedArgumentLeftUnset).
				steps = append(steps, resource.TestStep{
					Config: videoConfig(mock, strings.Replace(body, `"480p"`, `"720p"`, 1)),
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionReplace)},
					},
					Check: mock.ExpectSubmissions(2),
				})
			}
			resource.ParallelTest(t, resource.TestCase{
				// import blocks arrived in Terraform 1.5.
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_5_0)},
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps:                    steps,
			})
		})
	}
}

func TestAccVideoResource_importWithRealDifferenceReplaces(t *testing.T) {
	mock := acctest.NewMock(t)
	taskID := submitDirectly(t, mock, client.VideoRequest{
		Model: "videogen-1", Prompt: "square clip", Metadata: &client.Metadata{Ratio: "1:1"},
	})
	resource.ParallelTest(t, resource.TestCase{
		// import blocks arrived in Terraform 1.5.
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_5_0)},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: videoConfig(mock, `
  model  = "videogen-1"
  prompt = "square clip"
  ratio  = "16:9"
`) + fmt.Sprintf("\nimport {\n  to = %s\n  id = %q\n}\n", videoAddr, taskID),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionReplace)},
			},
			Check: mock.ExpectSubmissions(2),
		}},
	})
}

// TestAccVideoResource_resumeAfterTimeoutWithoutPayingTwice keeps the untaint
// route working for users who follow it: the untainted clip is updated in place
// by waiting for the same task.
func TestAccVideoResource_resumeAfterTimeoutWithoutPayingTwice(t *testing.T) {
	mock := acctest.NewMock(t)
	workDirs := t.TempDir()
	t.Setenv("TF_ACC_TEMP_DIR", workDirs)
	config := heldClip(mock, "a slow sunrise", "10m")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: cutFirstWaitShort(mock),
		Steps: []resource.TestStep{
			{
				// The task is held, so this wait is cut short (cutFirstWaitShort) whatever the machine's load.
				Config:      config,
				ExpectError: regexp.MustCompile(`(?is)Video Not Ready.*Apply\s+again\s+to\s+keep\s+waiting\s+for\s+the\s+same\s+task`),
			},
			{
				PreConfig: func() {
					untaint(t, workDirs, videoAddr)
					finishAfterNextGet(t, mock, ledgerTask(t, mock, 0))
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), knownvalue.StringFunc(func(id string) error {
						if first := ledgerTask(t, mock, 0).TaskID; id != first {
							return fmt.Errorf("task_id %s, want the first task %s", id, first)
						}
						return nil
					})),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
					// Not "wait cut short": Delete would hand the finished task to a later -replace.
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("billing"), knownvalue.StringExact(clip.BillingBilled)),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("url"), knownvalue.StringRegexp(regexp.MustCompile(`\.mp4`))),
				},
				Check: mock.ExpectSubmissions(1),
			},
		},
	})
}

// finishAfterNextGet finishes a held task once it has been read once more: by
// the refresh of the next plan, which therefore still sees it running, so the
// apply that follows has to wait for it.
func finishAfterNextGet(t *testing.T, mock *acctest.Mock, task mockapi.LedgerTask) {
	t.Helper()
	go func() {
		if mock.AwaitGets(t.Context(), task.TaskID, task.GetCount+1) == nil {
			mock.FinishTask(task.TaskID)
		}
	}()
}

// TestAccVideoResource_untaintedClipFinishedMeanwhile: an untainted clip whose task
// finished after the wait gave up is updated in place to what it bills, so that its
// task is no longer handed to a replacement (a later -replace makes a new clip).
func TestAccVideoResource_untaintedClipFinishedMeanwhile(t *testing.T) {
	mock := acctest.NewMock(t)
	workDirs := t.TempDir()
	t.Setenv("TF_ACC_TEMP_DIR", workDirs)
	config := heldClip(mock, "a slow sunset", "10m")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: cutFirstWaitShort(mock),
		Steps: []resource.TestStep{
			{
				Config:      config,
				ExpectError: regexp.MustCompile(`Video Not Ready`),
			},
			{
				PreConfig: func() {
					untaint(t, workDirs, videoAddr)
					if !mock.FinishTask(ledgerTask(t, mock, 0).TaskID) {
						t.Fatal("the mock had no held task to finish")
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionUpdate),
					expectPrior{videoAddr, "billing", clip.BillingCutShort},
					plancheck.ExpectKnownValue(videoAddr, tfjsonpath.New("billing"), knownvalue.StringExact(clip.BillingBilled)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), taskIDOf(mock, 0)),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("billing"), knownvalue.StringExact(clip.BillingBilled)),
				},
				Check: mock.ExpectSubmissions(1),
			},
			mock.NothingNewStep(config, 1),
		},
	})
}

// untaint runs the real `terraform untaint` in the test's working directory, which
// terraform-plugin-testing creates under TF_ACC_TEMP_DIR.
func untaint(t *testing.T, root, addr string) {
	t.Helper()
	states, _ := filepath.Glob(filepath.Join(root, "plugintest*", "work*", "terraform.tfstate"))
	if len(states) != 1 {
		t.Fatalf("want one working directory with state under %s, found %v", root, states)
	}
	cmd := exec.CommandContext(t.Context(), os.Getenv("TF_ACC_TERRAFORM_PATH"), "untaint", addr) // set by TestMain
	cmd.Dir = filepath.Dir(states[0])
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("terraform untaint: %v\n%s", err, out)
	}
}

func TestAccVideoResource_noWaitThenRefreshFillsURL(t *testing.T) {
	mock := acctest.NewMock(t)
	config := videoConfig(mock, `
  model               = "videogen-1"
  prompt              = "fire and forget [mock:hold]"
  wait_for_completion = false
`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("submitted")),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("url"), knownvalue.Null()),
				},
				Check: mock.ExpectSubmissions(1),
			},
			{
				// The refresh before this plan finds the task finished and records it; nothing is planned.
				PreConfig: func() { finishAll(t, mock) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("url"), knownvalue.StringRegexp(regexp.MustCompile(`\.mp4`))),
				},
				Check: mock.ExpectSubmissions(1),
			},
		},
	})
}

// finishAll finishes every task the mock holds.
func finishAll(t *testing.T, mock *acctest.Mock) {
	t.Helper()
	for _, task := range mock.Ledger().Tasks {
		if task.Held && !mock.FinishTask(task.TaskID) {
			t.Fatalf("the mock could not finish held task %s", task.TaskID)
		}
	}
}

// finishResubmission finishes the second task the mock is sent, if the apply
// that follows submits the clip again: that clip is held like the first, and the
// test must fail on the ledger's count instead of waiting for it.
func finishResubmission(ctx context.Context, mock *acctest.Mock) {
	go func() {
		if mock.AwaitTasks(ctx, 2) == nil {
			mock.FinishTask(mock.Ledger().Tasks[1].TaskID)
		}
	}()
}

func TestAccVideoResource_triggersReplace(t *testing.T) {
	mock := acctest.NewMock(t)
	config := func(rev string) string {
		return videoConfig(mock, fmt.Sprintf(`
  model            = "videogen-1"
  prompt           = "brand sting"
  triggers_replace = { revision = %q }
`, rev))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("1"), Check: mock.ExpectSubmissions(1)},
			{
				Config: config("2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionReplace)},
				},
				Check: mock.ExpectSubmissions(2),
			},
		},
	})
}

// TestAccVideoResource_rotatedURLKeepsRecordedURL: a service that signs its URLs
// hands out a new one on every read; the resource keeps the URL it recorded, so a
// refresh changes nothing, and the data source gives the fresh one.
func TestAccVideoResource_rotatedURLKeepsRecordedURL(t *testing.T) {
	mock := acctest.NewMock(t)
	config := videoConfig(mock, `
  model  = "videogen-1"
  prompt = "a signed clip"
`)
	withDataSource := config + `
data "videogen_video" "fresh" {
  task_id = videogen_video.test.task_id
}
`
	urlKept := statecheck.CompareValue(compare.ValuesSame())
	urlsDiffer := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					urlKept.AddStateValue(videoAddr, tfjsonpath.New("url")),
					urlsDiffer.AddStateValue(videoAddr, tfjsonpath.New("url")),
				},
			},
			{
				PreConfig: mock.ExpireURLs,
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{urlKept.AddStateValue(videoAddr, tfjsonpath.New("url"))},
			},
			{
				Config: withDataSource,
				ConfigStateChecks: []statecheck.StateCheck{
					urlKept.AddStateValue(videoAddr, tfjsonpath.New("url")),
					urlsDiffer.AddStateValue("data.videogen_video.fresh", tfjsonpath.New("url")),
				},
				Check: mock.ExpectSubmissions(1),
			},
		},
	})
}

func TestAccVideoResource_actionableErrorsAtApply(t *testing.T) {
	zero := int64(0)
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) {
		cfg.Keys = append(cfg.Keys,
			mockapi.Key{Key: "revoked-key", Revoked: true},
			mockapi.Key{Key: "broke-key", Balance: &zero},
		)
	})
	withKey := func(key, body string) string {
		return mock.ProviderBlock(fmt.Sprintf("api_key = %q", key)) + fmt.Sprintf(`
resource "videogen_video" "test" {
%s
}
`, body)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Per-model limits are the service's to know: a 400 at apply, pinned to the argument.
				Config:      videoConfig(mock, "  model = \"videogen-1-fast\"\n  prompt = \"too long\"\n  seconds = \"9\""),
				ExpectError: regexp.MustCompile(`(?s)Unable to Create Video.*seconds.*maximum.*"seconds"\s+argument`),
			},
			{
				Config:      videoConfig(mock, "  model = \"videogen-1\"\n  prompt = \"too sharp\"\n  resolution = \"1080p\""),
				ExpectError: regexp.MustCompile(`(?s)Unable to Create Video.*"resolution"\s+argument`),
			},
			{
				Config:      withKey("revoked-key", "  model = \"videogen-1\"\n  prompt = \"x\""),
				ExpectError: regexp.MustCompile(`(?s)rejected\s+the\s+API\s+key.*api_key.*VIDEOGEN_API_KEY.*revoked`),
			},
			{
				Config:      withKey("broke-key", "  model = \"videogen-1\"\n  prompt = \"x\""),
				ExpectError: regexp.MustCompile(`(?s)balance\s+is\s+too\s+low.*Top\s+up`),
			},
		},
	})
	if n := mock.Submissions(); n != 0 {
		t.Errorf("rejected requests created %d task(s)", n)
	}
}

func TestAccVideoResource_serverErrorsReportAttempts(t *testing.T) {
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.FaultRate = 1 })
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock("max_retries = 2") + `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "never gets through"
}
`,
			ExpectError: regexp.MustCompile(`(?s)Unable to Create Video.*server\s+error\s+after\s+3\s+attempts\s+over`),
		}},
	})
	if n := mock.Submissions(); n != 0 {
		t.Errorf("faulted requests created %d task(s)", n)
	}
}

// TestAccVideoResource_exactlyOncePerClipUnderFaults is the pipeline case: many clips
// in parallel against a rate-limited, failing service must come out as exactly one
// task each.
func TestAccVideoResource_exactlyOncePerClipUnderFaults(t *testing.T) {
	const clips = 20
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) {
		cfg.Seed = 42
		cfg.FaultRate = 0.3
		cfg.RateLimit = mockapi.RateLimit{RequestsPerSecond: 15, Burst: 5}
		cfg.TaskDuration = mockapi.Duration(time.Second)
	})
	// Realistic polling: 100 ms polls from 20 waits would mostly measure the rate limiter.
	config := mock.ProviderBlock(`poll_interval = "1s"`) + fmt.Sprintf(`
data "videogen_models" "all" {}

resource "videogen_video" "clip" {
  count  = %d
  model  = data.videogen_models.all.ids[0]
  prompt = "clip number ${count.index}"
}
`, clips)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(*terraform.State) error {
					ledger := mock.Ledger()
					seen := map[string]int{}
					for _, task := range ledger.Tasks {
						seen[task.Prompt]++
					}
					if len(ledger.Tasks) != clips || len(seen) != clips {
						return fmt.Errorf("ledger shows %d tasks for %d distinct prompts, want exactly %d of each: %v",
							len(ledger.Tasks), len(seen), clips, seen)
					}
					if ledger.Responses["429"] == 0 || ledger.Responses["500"]+ledger.Responses["502"]+ledger.Responses["503"] == 0 {
						return fmt.Errorf("the test did not exercise both rate limits and faults: %v", ledger.Responses)
					}
					return nil
				},
			},
			mock.NothingNewStep(config, clips),
		},
	})
}

func TestAccVideoResource_webhookDelivery(t *testing.T) {
	received := make(chan []byte, 4)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		received <- body
	}))
	t.Cleanup(receiver.Close)
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: videoConfig(mock, fmt.Sprintf(`
  model        = "videogen-1"
  prompt       = "tell me when you are done"
  callback_url = %q
`, receiver.URL+"/hooks/videogen")),
			Check: resource.ComposeTestCheckFunc(mock.ExpectSubmissions(1), func(*terraform.State) error {
				task := ledgerTask(t, mock, 0)
				// The mock records an attempt once the receiver has answered, so the
				// body is in the channel by the time the ledger shows it.
				ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a liveness bound, not a timing assertion
				defer cancel()
				if err := mock.AwaitWebhooks(ctx, task.TaskID, 1); err != nil {
					return err
				}
				var hook []byte
				select {
				case hook = <-received:
				default:
					return errors.New("the ledger records a webhook attempt, but the receiver got nothing")
				}
				if err := sameAsTask(hook, mock.Task(t, task.TaskID)); err != nil {
					return fmt.Errorf("webhook body differs from GET: %w\nwebhook %s", err, hook)
				}
				for _, attempt := range mock.Ledger().Webhooks {
					if attempt.TaskID == task.TaskID && attempt.StatusCode == http.StatusOK {
						return nil
					}
				}
				return fmt.Errorf("the ledger records no successful delivery: %+v", mock.Ledger().Webhooks)
			}),
		}},
	})
}

// sameAsTask checks that a webhook body is the task object, member for member,
// that a GET of the task returns.
func sameAsTask(body []byte, want *client.Video) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return err
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if wantKeys := []string{"format", "metadata", "status", "task_id", "url"}; !slices.Equal(keys, wantKeys) {
		return fmt.Errorf("members %v, want %v", keys, wantKeys)
	}
	var got struct {
		TaskID   string           `json:"task_id"`
		Status   string           `json:"status"`
		URL      string           `json:"url"`
		Format   string           `json:"format"`
		Metadata *client.Metadata `json:"metadata"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		return err
	}
	if got.TaskID != want.TaskID || got.Status != string(want.Status) || got.URL != want.URL || got.Format != want.Format {
		return fmt.Errorf("task_id %q status %q url %q format %q; GET says %q %q %q %q",
			got.TaskID, got.Status, got.URL, got.Format, want.TaskID, want.Status, want.URL, want.Format)
	}
	if !reflect.DeepEqual(got.Metadata, want.Metadata) {
		return fmt.Errorf("metadata %+v; GET says %+v", got.Metadata, want.Metadata)
	}
	return nil
}

func TestAccVideoResource_modelListFetchedOncePerProvider(t *testing.T) {
	const clips = 8
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "clip" {
  count  = %d
  model  = "videogen-1"
  prompt = "clip ${count.index}"
}
`, clips),
			Check: resource.ComposeTestCheckFunc(mock.ExpectSubmissions(clips), func(*terraform.State) error {
				// One fetch per provider instance that plans new clips: the plan's and the
				// apply's (Terraform plans each resource again as it applies). The follow-up
				// plans create nothing and need no list.
				if n := mock.Ledger().Requests["GET /v1/models"]; n != 2 {
					return fmt.Errorf("GET /v1/models was called %d times for %d clips, want 2 (once per provider)", n, clips)
				}
				return nil
			}),
		}},
	})
}

func TestAccVideoResource_noWaitFailureIsReplacedByNextPlan(t *testing.T) {
	mock := acctest.NewMock(t)
	config := videoConfig(mock, `
  model               = "videogen-1"
  prompt              = "fails later [mock:hold]"
  wait_for_completion = false
`)
	taskChanged := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Held, the task is still running at the refresh that follows this step.
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("submitted")),
					taskChanged.AddStateValue(videoAddr, tfjsonpath.New("task_id")),
				},
				Check: mock.ExpectSubmissions(1),
			},
			{
				PreConfig: func() {
					if !mock.FailTask(ledgerTask(t, mock, 0).TaskID, "") {
						t.Fatal("the mock could not fail the held task")
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionReplace)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("submitted")),
					taskChanged.AddStateValue(videoAddr, tfjsonpath.New("task_id")),
				},
				Check: resource.ComposeTestCheckFunc(
					mock.ExpectSubmissions(2),
					func(*terraform.State) error {
						if first := ledgerTask(t, mock, 0); first.Status != "failed" || first.Billed {
							return fmt.Errorf("the replaced task is %s (billed %t), want failed and not billed", first.Status, first.Billed)
						}
						return nil
					},
				),
			},
		},
	})
}

func TestReplacesClip(t *testing.T) {
	t.Parallel()
	clip := clipState("task_1", "a sunset", "16:9")
	clip.ReferenceMediaWOVersion = types.Int64Null()
	same := clip
	recut := clip
	recut.Prompt = types.StringValue("a sunrise")
	otherRatio := clip
	otherRatio.Ratio = types.StringValue("9:16")
	ratioFromElsewhere := clip
	ratioFromElsewhere.Ratio = types.StringUnknown()
	imported := clip
	imported.Model, imported.Prompt, imported.Ratio = types.StringNull(), types.StringNull(), types.StringNull()
	adopting := clip
	adopting.Ratio = types.StringValue("16:9")
	for name, c := range map[string]struct {
		plan, state videoResourceModel
		want        bool
	}{
		"unchanged":                     {same, clip, false},
		"prompt changed":                {recut, clip, true},
		"echoed argument changed":       {otherRatio, clip, true},
		"echoed argument not known yet": {ratioFromElsewhere, clip, false},
		"import adopts configuration":   {adopting, imported, false},
	} {
		if got := replacesClip(c.plan, c.state); got != c.want {
			t.Errorf("%s: replacesClip = %v, want %v", name, got, c.want)
		}
	}
}

// TestAccVideoResource_vendorForgot: a finished clip whose task the service
// no longer holds (the task forgotten, or its clip's storage expired while the
// task answers) stays in state: the plain apply submits nothing and the plan
// says so in billing and a warning, without offering the task for adoption;
// only -replace bills a new clip, which its plan says.
func TestAccVideoResource_vendorForgot(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	for _, tc := range []struct {
		name   string
		forget func(*acctest.Mock, string) bool
	}{
		{"task_forgotten", func(m *acctest.Mock, id string) bool { return m.DeleteTask(id) }},
		{"clip_storage_expired", func(m *acctest.Mock, id string) bool { return m.ExpireClip(id) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t)
			wd := cliWorkdir(t, mock, cliVideo("a clip the vendor forgets"))
			applyOutput(t, wd)
			taskID := ledgerTask(t, mock, 0).TaskID
			if !tc.forget(mock, taskID) {
				t.Fatalf("the mock could not forget task %s", taskID)
			}

			billing, out := planned(t, wd, "forgot.tfplan")
			if billing != clip.BillingGone {
				t.Errorf("the plan's billing is %q, want %q:\n%s", billing, clip.BillingGone, out)
			}
			if !wrapped("Clip No Longer Held by the Service", taskID, "-replace").MatchString(out) {
				t.Errorf("the plan does not warn that the service no longer holds task %s:\n%s", taskID, out)
			}
			if strings.Contains(out, "Clip May Adopt") || strings.Contains(out, "Video Task Not Found") {
				t.Errorf("the plan contradicts itself about task %s:\n%s", taskID, out)
			}
			applied := applyOutput(t, wd)
			if n := mock.Submissions(); n != 1 {
				t.Fatalf("the plain apply after the service forgot the clip made the ledger %d, want 1:\n%s", n, applied)
			}
			if got := stateTasks(t, wd)["videogen_video.clip"]; got != taskID {
				t.Fatalf("the state holds task %q, want the forgotten clip's %s", got, taskID)
			}

			replace := tfexec.Replace("videogen_video.clip")
			billing, out = planned(t, wd, "replace.tfplan", replace)
			if billing != clip.BillingNewClip {
				t.Errorf("the -replace plan's billing is %q, want %q:\n%s", billing, clip.BillingNewClip, out)
			}
			if strings.Contains(out, "Clip May Adopt") {
				t.Errorf("the -replace plan offers a task for adoption:\n%s", out)
			}
			applyOutput(t, wd, tfexec.Replace("videogen_video.clip"))
			if n := mock.Submissions(); n != 2 {
				t.Fatalf("-replace made the ledger %d, want 2 (exactly one new clip)", n)
			}
		})
	}
}

// planned runs a plan to planFile and returns the clip's planned billing and
// what the plan printed.
func planned(t *testing.T, wd *acctest.Workdir, planFile string, opts ...tfexec.PlanOption) (billing, out string) {
	t.Helper()
	var b strings.Builder
	wd.TF.SetStdout(&b)
	wd.TF.SetStderr(&b)
	_, err := wd.Plan(t.Context(), append(opts, tfexec.Out(planFile))...)
	wd.TF.SetStdout(nil)
	wd.TF.SetStderr(nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	plan, err := wd.TF.ShowPlanFile(t.Context(), planFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range plan.ResourceChanges {
		if rc.Address == "videogen_video.clip" && rc.Change != nil {
			after, _ := rc.Change.After.(map[string]any)
			billing, _ = after["billing"].(string)
		}
	}
	return billing, b.String()
}
