package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
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

// The tests in this file hold the provider to its promise that no clip is
// generated (and billed) twice: the mock's ledger is the bill, and every test
// asserts its exact count.

// cutFirstWaitShort serves the provider with the context of the first apply of
// a videogen_video cancelled once the mock has its task and has been asked for it
// once, as a timeout or an interrupt of the CLI ends a wait: the wait is cut short
// when the mock says the task is being waited for, not by a timer that a loaded
// machine could let run out before the submission went out (which would create
// nothing and test something else). Later applies are served as they are.
// Tests that run the real CLI interrupt it instead (startHeldApply).
func cutFirstWaitShort(mock *acctest.Mock) map[string]func() (tfprotov6.ProviderServer, error) {
	cut := &atomic.Bool{}
	return map[string]func() (tfprotov6.ProviderServer, error){
		"videogen": func() (tfprotov6.ProviderServer, error) {
			inner, err := testAccProtoV6ProviderFactories["videogen"]()
			return cutShortServer{ProviderServer: inner, mock: mock, cut: cut}, err
		},
	}
}

// cutShortServer is the provider server of cutFirstWaitShort.
type cutShortServer struct {
	tfprotov6.ProviderServer
	mock *acctest.Mock
	cut  *atomic.Bool
}

func (s cutShortServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest,
) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if req.TypeName != "videogen_video" || !s.cut.CompareAndSwap(false, true) {
		return s.ProviderServer.ApplyResourceChange(ctx, req)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := s.mock.Submissions()
	go func() {
		if s.mock.AwaitTasks(ctx, n+1) == nil && s.mock.AwaitGets(ctx, s.mock.Ledger().Tasks[n].TaskID, 1) == nil {
			cancel()
		}
	}()
	return s.ProviderServer.ApplyResourceChange(ctx, req)
}

// heldClip is a clip whose task the mock keeps running until the test finishes it.
func heldClip(mock *acctest.Mock, prompt, timeout string) string {
	return mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = %q
  timeouts {
    create = %q
  }
}
`, prompt+" [mock:hold]", timeout)
}

// finishAllAfterNextGet finishes every task once each has been read again: the
// resumed wait is then seen waiting for the task, not merely finding it done.
func finishAllAfterNextGet(t *testing.T, mock *acctest.Mock) {
	t.Helper()
	for _, task := range mock.Ledger().Tasks {
		go func(id string, gets int) {
			if err := mock.AwaitGets(t.Context(), id, gets+1); err == nil {
				mock.FinishTask(id)
			}
		}(task.TaskID, task.GetCount)
	}
}

// TestAccVideoResource_resumeAfterTimeoutByPlainApply: a wait cut short leaves
// the clip tainted, and a plain apply hands its task to the replacement, which
// waits for it: 1 submission, on the API as described and through each of
// Google's APIs.
func TestAccVideoResource_resumeAfterTimeoutByPlainApply(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{mockapi.DialectOpenAI, mockapi.DialectGemini, mockapi.DialectVertex} {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			config := heldClip(mock, "a slow sunrise", "10m")
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: cutFirstWaitShort(mock),
				Steps: []resource.TestStep{
					{
						Config:      config,
						ExpectError: wrapped("Video Not Ready", "Apply again to keep waiting for the same task"),
					},
					{
						// No untaint: the plan replaces the tainted clip, and the apply hands its
						// task to the replacement, which waits for it.
						PreConfig: func() { finishAllAfterNextGet(t, mock) },
						Config:    config,
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), taskIDOf(mock, 0)),
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("url"), clipURL(dialect)),
						},
						Check: mock.ExpectSubmissions(1),
					},
					{
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), taskIDOf(mock, 0)),
						},
						Check: mock.ExpectSubmissions(1),
					},
				},
			})
		})
	}
}

// taskIDOf checks a value against the ID of the ledger's nth task, read when the
// check runs.
func taskIDOf(mock *acctest.Mock, n int) knownvalue.Check {
	return knownvalue.StringFunc(func(v string) error {
		if tasks := mock.Ledger().Tasks; len(tasks) <= n || tasks[n].TaskID != v {
			return fmt.Errorf("task_id %s is not the ledger's task #%d", v, n+1)
		}
		return nil
	})
}

func TestAccVideoResource_identicalClipsResumeTheirOwnTasks(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	mock := acctest.NewMock(t)
	wd := cliWorkdir(t, mock, `
resource "videogen_video" "clip" {
  count  = 2
  model  = "videogen-1"
  prompt = "the same clip twice [mock:hold]"
}
`)
	// Interrupted once both tasks are waited for: both clips are saved tainted,
	// each with its task.
	run, taskIDs := startHeldApply(t, mock, wd, 2)
	if err := run.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if out, err := run.Wait(); err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	for _, id := range taskIDs {
		if !mock.FinishTask(id) {
			t.Fatalf("task %s was not pending any more", id)
		}
	}
	if err := wd.Apply(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, err := wd.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{}
	for _, r := range st.Values.RootModule.Resources {
		if r.AttributeValues["status"] != "succeeded" {
			t.Fatalf("%s after a plain apply: %v; want it succeeded", r.Address, r.AttributeValues)
		}
		recorded[fmt.Sprint(r.AttributeValues["task_id"])] = true
	}
	if len(recorded) != 2 || !recorded[taskIDs[0]] || !recorded[taskIDs[1]] {
		t.Fatalf("state records tasks %v; want each clip with one of %v: a task of the first apply was orphaned",
			recorded, taskIDs)
	}
	if n := mock.Submissions(); n != 2 {
		t.Fatalf("the ledger shows %d submissions, want 2 (one per clip)", n)
	}
	if changes, err := wd.Plan(t.Context()); err != nil || changes {
		t.Fatalf("the plan after: changes %v, error %v; want an empty plan", changes, err)
	}
}

func TestAccVideoResource_changedArgumentAfterTimeoutSubmitsANewTask(t *testing.T) {
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: cutFirstWaitShort(mock),
		Steps: []resource.TestStep{
			{
				Config:      heldClip(mock, "a first draft", "10m"),
				ExpectError: regexp.MustCompile(`Video Not Ready`),
			},
			{
				PreConfig: func() {
					mock.FinishTask(ledgerTask(t, mock, 0).TaskID)
					go func() {
						if mock.AwaitTasks(t.Context(), 2) == nil {
							mock.FinishTask(mock.Ledger().Tasks[1].TaskID)
						}
					}()
				},
				// A changed prompt is a new clip on purpose; the new task is held too,
				// and finished once it is submitted.
				Config: heldClip(mock, "a second draft", "10m"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), taskIDOf(mock, 1)),
				},
				Check: mock.ExpectSubmissions(2),
			},
		},
	})
}

func TestAccVideoResource_wrongBaseURLPathKeepsEveryClip(t *testing.T) {
	mock := acctest.NewMock(t)
	config := func(baseURL string) string {
		return mock.ProviderBlock("base_url = "+strconv.Quote(baseURL)) + `
resource "videogen_video" "clip" {
  count  = 3
  model  = "videogen-1"
  prompt = "clip ${count.index}"
}
`
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(mock.URL), Check: mock.ExpectSubmissions(3)},
			{
				// Every task read answers 404 there; nothing may leave state on that guess.
				Config:      config(mock.URL + "/api"),
				ExpectError: wrapped("Unable to Read Video", "base_url", "VIDEOGEN_BASE_URL", "Nothing was removed from state"),
			},
			mock.NothingNewStep(config(mock.URL), 3),
		},
	})
}

func TestAccVideoResource_planTellsTheTruthAboutProviderSettings(t *testing.T) {
	mock := acctest.NewMock(t)
	clip := `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "a plan that must not go green"
}
`
	withSettings := func(baseURL, key string) string {
		return mock.ProviderBlock("base_url = "+strconv.Quote(baseURL), "api_key = "+strconv.Quote(key)) + clip
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      withSettings(mock.URL, "revoked-or-wrong"),
				PlanOnly:    true,
				ExpectError: wrapped("Invalid API Key", "api_key", "VIDEOGEN_API_KEY", "Nothing has been submitted"),
			},
			{
				Config:      withSettings(mock.URL+"/api", mockapi.DefaultAPIKey),
				PlanOnly:    true,
				ExpectError: wrapped("Wrong Base URL", "base_url", "VIDEOGEN_BASE_URL", "Nothing has been submitted"),
			},
		},
	})
	if n := mock.Submissions(); n != 0 {
		t.Errorf("plans with a bad key or address submitted %d task(s)", n)
	}
	if n := mock.Ledger().Requests["POST /v1/video/generations"]; n != 0 {
		t.Errorf("plans sent %d submissions", n)
	}
}

func TestAccVideoResource_importAdoptsAnEchoedArgumentLeftUnset(t *testing.T) {
	mock := acctest.NewMock(t)
	existing, err := mock.Client(t).SubmitVideo(t.Context(), client.VideoRequest{
		Model: "videogen-1", Prompt: "an existing clip", Metadata: &client.Metadata{Resolution: "720p", Ratio: "9:16"},
	})
	if err != nil {
		t.Fatal(err)
	}
	config := mock.ProviderBlock() + `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "an existing clip"
}
`
	importBlock := fmt.Sprintf("\nimport {\n  to = %s\n  id = %q\n}\n", videoAddr, existing.TaskID)
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_5_0)}, // import blocks
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config + importBlock,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					// model and prompt are adopted from configuration in place; nothing is replaced.
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), knownvalue.StringExact(existing.TaskID)),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("resolution"), knownvalue.StringExact("720p")),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("ratio"), knownvalue.StringExact("9:16")),
				},
				Check: mock.ExpectSubmissions(1),
			},
			mock.NothingNewStep(config, 1),
			{
				// A real difference still makes a new clip.
				Config: strings.Replace(config, `prompt = "an existing clip"`, "prompt = \"an existing clip\"\n  resolution = \"480p\"", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionReplace)},
				},
				Check: mock.ExpectSubmissions(2),
			},
		},
	})
}

func TestAccVideoResource_gatewayFailureAfterSubmission(t *testing.T) {
	t.Parallel()
	clip := `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "behind a flaky gateway"
}
`
	t.Run("every time", func(t *testing.T) {
		mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.GatewayFailuresAfterSubmit = -1; cfg.IgnoreIdempotencyKeys = true })
		resource.ParallelTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: mock.ProviderBlock() + clip,
				// The provider is never told the resource's address: the hint points at
				// the one Terraform prints after "with".
				ExpectError: wrapped("Unable to Create Video", "with videogen_video.test,", "A task may exist",
					"attempt 1 was answered HTTP 504", "attempt 2 was answered HTTP 504",
					`import it into this resource, at the address Terraform shows after "with" above (terraform import`),
			}},
		})
		// One declared clip, one retry after a doubtful answer: at most two billed tasks.
		if n := mock.Submissions(); n != 2 {
			t.Errorf("the ledger shows %d tasks for one clip behind a gateway that always fails, want 2", n)
		}
	})
	t.Run("once", func(t *testing.T) {
		mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.GatewayFailuresAfterSubmit = 1; cfg.IgnoreIdempotencyKeys = true })
		resource.ParallelTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: mock.ProviderBlock() + clip,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), taskIDOf(mock, 1)),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
				},
				Check: mock.ExpectSubmissions(2),
			}},
		})
	})
	t.Run("strict", func(t *testing.T) {
		mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.GatewayFailuresAfterSubmit = -1; cfg.IgnoreIdempotencyKeys = true })
		resource.ParallelTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config:      mock.ProviderBlock("submit_gateway_retries = 0") + clip,
				ExpectError: wrapped("A task may exist", "attempt 1 was answered HTTP 504"),
			}},
		})
		if n := mock.Submissions(); n != 1 {
			t.Errorf("strict submissions left %d tasks, want 1", n)
		}
	})
}

func TestAccVideoResource_nonPositiveTimeoutFailsAtPlan(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t)
	for _, timeout := range []string{"0s", "-5m"} {
		t.Run(timeout, func(t *testing.T) {
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      heldClip(mock, "never waited for", timeout),
					ExpectError: wrapped("Invalid Timeout", "timeouts.create", "positive duration"),
				}},
			})
		})
	}
	if n := mock.Submissions(); n != 0 {
		t.Errorf("a configuration that cannot succeed submitted %d task(s)", n)
	}
}

// echoRewriter is a gateway in front of the mock that passes everything through
// but rewrites the task objects the service returns, as a service that normalises
// what it echoes would.
func echoRewriter(t *testing.T, mock *acctest.Mock, rewrite func([]byte) []byte) string {
	t.Helper()
	target, err := url.Parse(mock.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodGet || !strings.Contains(resp.Request.URL.Path, "/video/generations/") {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		body = rewrite(body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestAccVideoResource_echoesThatMeanTheSameChangeNothing(t *testing.T) {
	mock := acctest.NewMock(t)
	gateway := echoRewriter(t, mock, func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte("%7E"), []byte("~"))
		return bytes.ReplaceAll(b, []byte(`"720p"`), []byte(`"720P"`))
	})
	config := mock.ProviderBlock("base_url = "+strconv.Quote(gateway)) + `
resource "videogen_video" "test" {
  model            = "videogen-1"
  prompt           = "@image1 at dusk"
  resolution       = "720p"
  reference_images = ["https://cdn.example.com/ref%7Eone.png"]
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("reference_images").AtSliceIndex(0),
						knownvalue.StringExact("https://cdn.example.com/ref%7Eone.png")),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("resolution"), knownvalue.StringExact("720p")),
				},
				Check: mock.ExpectSubmissions(1),
			},
			mock.NothingNewStep(config, 1),
		},
	})
}

func TestAccVideoResource_maxNewClips(t *testing.T) {
	mock := acctest.NewMock(t)
	config := func(clips int) string {
		return mock.ProviderBlock("max_new_clips = 2") + fmt.Sprintf(`
resource "videogen_video" "clip" {
  count  = %d
  model  = "videogen-1"
  prompt = "variant ${count.index}"
}
`, clips)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config(3),
				ExpectError: wrapped("Too Many New Clips", "at least 3 new clips", "max_new_clips allows 2"),
			},
			{Config: config(2), Check: mock.ExpectSubmissions(2)},
		},
	})
}

func TestAccVideoResource_extraMetadata(t *testing.T) {
	mock := acctest.NewMock(t)
	clip := func(extra string) string {
		return mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
  model          = "videogen-1"
  prompt         = "from the first frame to the last"
  extra_metadata = %s
}
`, extra)
	}
	frames := `jsonencode({ first_frame_image = "https://cdn.example.com/first.png", motion_strength = 3 })`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      clip(`jsonencode({ ratio = "16:9" })`),
				ExpectError: wrapped("Invalid Extra Metadata", `"ratio" (use the ratio argument)`),
			},
			{
				Config:      clip(`jsonencode(["not", "an", "object"])`),
				ExpectError: wrapped("Invalid Extra Metadata", "must be a JSON object"),
			},
			{
				Config:      strings.Replace(clip(frames), `prompt`, "reference_images = [\"https://cdn.example.com/a.png\"]\n  prompt", 1),
				ExpectError: wrapped("Conflicting Reference Media", "first_frame_image", "reference_images"),
			},
			{
				PreConfig: func() {
					if n := mock.Submissions(); n != 0 {
						t.Fatalf("configurations rejected at plan submitted %d task(s)", n)
					}
				},
				Config: clip(frames),
				Check: resource.ComposeTestCheckFunc(mock.ExpectSubmissions(1), func(*terraform.State) error {
					var md map[string]any
					if err := json.Unmarshal(ledgerTask(t, mock, 0).Metadata, &md); err != nil {
						return err
					}
					if md["first_frame_image"] != "https://cdn.example.com/first.png" || md["motion_strength"] != float64(3) {
						return fmt.Errorf("metadata sent = %v, want the vendor parameters inside it", md)
					}
					return nil
				}),
			},
			mock.NothingNewStep(clip(frames), 1),
		},
	})
}

// cliClip is a configuration for the real CLI, which installs the provider itself.
func cliClip(mock *acctest.Mock, body string, providerLines ...string) string {
	return `terraform {
  required_providers {
    videogen = {
      source = "videogen/videogen"
    }
  }
}
` + mock.ProviderBlock(providerLines...) + body
}

// cliWorkdir is a working directory for the real CLI holding cliClip's
// configuration, initialised.
func cliWorkdir(t *testing.T, mock *acctest.Mock, body string, providerLines ...string) *acctest.Workdir {
	t.Helper()
	wd := acctest.NewWorkdir(t)
	if err := wd.Write(cliClip(mock, body, providerLines...)); err != nil {
		t.Fatal(err)
	}
	if err := wd.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	return wd
}

func cliVideo(prompt string) string {
	return fmt.Sprintf(`
resource "videogen_video" "clip" {
  model  = "videogen-1"
  prompt = %q
}
`, prompt)
}

// startHeldApply starts `apply` of held clips and returns their task IDs once
// the provider is waiting for each of the first clips: an interrupt from then on
// cuts every wait short, however slowly the machine submitted them.
func startHeldApply(t *testing.T, mock *acctest.Mock, wd *acctest.Workdir, clips int) (*acctest.Run, []string) {
	t.Helper()
	ctx := t.Context()
	run := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_, _ = run.Wait() // an apply that ends early must not leave the test waiting
		cancel()
	}()
	if err := mock.AwaitTasks(waitCtx, clips); err != nil {
		out, _ := run.Wait()
		t.Fatalf("%v\n%s", err, out)
	}
	taskIDs := make([]string, clips)
	for i := range taskIDs {
		taskIDs[i] = ledgerTask(t, mock, i).TaskID
		if err := mock.AwaitGets(waitCtx, taskIDs[i], 1); err != nil {
			out, _ := run.Wait()
			t.Fatalf("%v\n%s", err, out)
		}
	}
	return run, taskIDs
}

func applyAndReadClip(t *testing.T, wd *acctest.Workdir) map[string]any {
	t.Helper()
	if err := wd.Apply(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, err := wd.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Values.RootModule.Resources {
		if r.Address == "videogen_video.clip" {
			return r.AttributeValues
		}
	}
	t.Fatal("videogen_video.clip is not in state")
	return nil
}

// TestAccBilling_interruptedApplyResumesByPlainApply delivers the signals a user
// or a CI runner sends to the real CLI while the provider waits, then runs a plain
// apply: it waits for the same task, records its clip, and the plan after is empty.
// After SIGKILL, Terraform saves no state at all, and the local journal is what
// keeps the next apply from submitting again. A killed wait is also resumed
// through Google's Veo: the operation the journal holds is adopted, 1 billed
// for 1.
func TestAccBilling_interruptedApplyResumesByPlainApply(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	cases := []struct {
		dialect string
		sig     syscall.Signal
	}{
		{mockapi.DialectOpenAI, syscall.SIGINT},
		{mockapi.DialectOpenAI, syscall.SIGTERM},
		{mockapi.DialectOpenAI, syscall.SIGKILL},
		{mockapi.DialectGemini, syscall.SIGKILL},
		{mockapi.DialectVertex, syscall.SIGKILL},
	}
	for _, c := range cases {
		sig, dialect := c.sig, c.dialect
		name := sig.String()
		if dialect != mockapi.DialectOpenAI {
			name = dialect + "/" + name
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			wd := cliWorkdir(t, mock, cliVideo("an interrupted sunrise [mock:hold]"))
			run, taskIDs := startHeldApply(t, mock, wd, 1)
			taskID := taskIDs[0]
			if err := run.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if out, err := run.Wait(); err == nil {
				t.Fatalf("the interrupted apply succeeded:\n%s", out)
			}
			if !mock.FinishTask(taskID) {
				t.Fatalf("task %s was not pending any more", taskID)
			}
			clip := applyAndReadClip(t, wd)
			if clip["task_id"] != taskID || clip["status"] != "succeeded" || clipURL(dialect).CheckValue(clip["url"]) != nil {
				t.Fatalf("after a plain apply: %v; want task %s succeeded with its url", clip, taskID)
			}
			if n := mock.Submissions(); n != 1 {
				t.Fatalf("the ledger shows %d submissions after %v and a plain apply, want 1", n, sig)
			}
			if changes, err := wd.Plan(t.Context()); err != nil || changes {
				t.Fatalf("the plan after: changes %v, error %v; want an empty plan", changes, err)
			}
		})
	}
}

// TestAccBilling_warningsTheUserCanActOn runs the real CLI to read the warnings
// that terraform-plugin-testing does not show.
func TestAccBilling_warningsTheUserCanActOn(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	t.Run("abandoned task", func(t *testing.T) {
		t.Parallel()
		mock := acctest.NewMock(t)
		wd := cliWorkdir(t, mock, cliVideo("a first draft [mock:hold]"))
		run, taskIDs := startHeldApply(t, mock, wd, 1)
		first := taskIDs[0]
		if err := run.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		_, _ = run.Wait()
		if err := wd.Write(cliClip(mock, cliVideo("a second draft"))); err != nil {
			t.Fatal(err)
		}
		out := applyOutput(t, wd)
		if !wrapped("Unfinished Task Abandoned", first, "billed if it succeeds").MatchString(out) {
			t.Fatalf("the apply does not name the abandoned task %s:\n%s", first, out)
		}
		if n := mock.Submissions(); n != 2 {
			t.Fatalf("the ledger shows %d submissions, want 2 (the abandoned task and the new clip)", n)
		}
	})
	t.Run("untracked task after a gateway failure", func(t *testing.T) {
		t.Parallel()
		mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.GatewayFailuresAfterSubmit = 1; cfg.IgnoreIdempotencyKeys = true })
		wd := cliWorkdir(t, mock, cliVideo("behind a gateway"))
		out := applyOutput(t, wd)
		if !wrapped("Submission May Have Created an Untracked Task", "attempt 1 was answered HTTP 504").MatchString(out) {
			t.Fatalf("the apply does not warn about the doubtful attempt:\n%s", out)
		}
		if n := mock.Submissions(); n != 2 {
			t.Fatalf("the ledger shows %d submissions, want 2", n)
		}
	})
	t.Run("destroy", func(t *testing.T) {
		t.Parallel()
		mock := acctest.NewMock(t)
		clips := `
resource "videogen_video" "clip" {
  count  = 2
  model  = "videogen-1"
  prompt = "kept by the service ${count.index}"
}
`
		wd := cliWorkdir(t, mock, clips)
		if err := wd.Apply(t.Context()); err != nil {
			t.Fatal(err)
		}
		// A changed prompt replaces one clip; the plan names the task that stays billed.
		recut := strings.Replace(clips, `"kept by the service ${count.index}"`,
			`count.index == 0 ? "kept by the service, recut" : "kept by the service 1"`, 1)
		if err := wd.Write(cliClip(mock, recut)); err != nil {
			t.Fatal(err)
		}
		var recutOut strings.Builder
		wd.TF.SetStdout(&recutOut)
		_, err := wd.Plan(t.Context())
		wd.TF.SetStdout(nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := wd.State(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var replaced string
		for _, r := range st.Values.RootModule.Resources {
			if r.Address == "videogen_video.clip[0]" {
				replaced = fmt.Sprint(r.AttributeValues["task_id"])
			}
		}
		if n := strings.Count(recutOut.String(), "Warning: Replaced Clip Stays Billed"); n != 1 || replaced == "" ||
			!wrapped("Replacing this clip submits a new one", "removes task "+replaced, "from Terraform state only",
				"stays billed").MatchString(recutOut.String()) || strings.Contains(recutOut.String(), "similar warning") {
			t.Fatalf("the plan that replaces one clip shows %d replacement warnings, want one naming the task that stays "+
				"billed:\n%s", n, recutOut.String())
		}
		v, _, err := wd.TF.Version(t.Context(), true)
		if err != nil {
			t.Fatal(err)
		}
		// Terraform before 1.3 does not ask providers to plan a destroy: the apply
		// says it then, once per run.
		plansDestroy := !v.LessThan(version.Must(version.NewVersion("1.3.0")))
		// One warning per clip, said by the plan and not again by the apply, in words
		// that hold after `apply -auto-approve` applied it.
		saysOnce := func(what, out, summary string) {
			t.Helper()
			said, again := strings.Count(out, "Warning: "+summary), strings.Count(out, "Warning: Video Removed From State Only")
			if said != 1 || again != 0 || strings.Contains(out, "do not apply") || strings.Contains(out, "If this plan is applied") {
				t.Fatalf("%s shows %q %d times and the apply's removal warning %d times, want the plan's once, in words "+
					"true after the apply:\n%s", what, summary, said, again, out)
			}
		}
		saysOnce("apply -auto-approve of the recut", applyOutput(t, wd), "Replaced Clip Stays Billed")
		if err := wd.Write(cliClip(mock, clips)); err != nil {
			t.Fatal(err)
		}
		// The destroy plan says, before anything is applied, which clips stay billed:
		// one warning per clip, which Terraform shows as one with the number of others.
		var planOut strings.Builder
		wd.TF.SetStdout(&planOut)
		_, err = wd.TF.Plan(t.Context(), tfexec.Destroy(true), tfexec.Out("destroy.tfplan"))
		wd.TF.SetStdout(nil)
		if err != nil {
			t.Fatal(err)
		}
		if plansDestroy {
			saysOnce("plan -destroy -out", planOut.String(), "Destroyed Clip Stays Billed")
			if !wrapped("Warning: Destroyed Clip Stays Billed", "Destroying this clip removes task",
				"from Terraform state only (the service has no delete), and its clip stays on the service and stays billed",
				"and one more similar warning elsewhere").MatchString(planOut.String()) {
				t.Fatalf("the destroy plan does not say that the clips stay billed:\n%s", planOut.String())
			}
		}
		saved, err := wd.TF.ShowPlanFile(t.Context(), "destroy.tfplan")
		if err != nil {
			t.Fatal(err)
		}
		for _, rc := range saved.ResourceChanges {
			before, _ := rc.Change.Before.(map[string]any)
			if !rc.Change.Actions.Delete() || before["billing"] != clip.BillingBilled {
				t.Fatalf("%s: actions %v, billing before %v; want a delete of a billed clip", rc.Address, rc.Change.Actions,
					before["billing"])
			}
		}
		// Applying the saved plan says nothing again; before 1.3 it says it once.
		appliedOut := applyOutput(t, wd, tfexec.DirOrPlan("destroy.tfplan"))
		if got := strings.Count(appliedOut, "Warning: Video Removed From State Only"); plansDestroy && got != 0 ||
			!plansDestroy && (got != 1 || !wrapped("stays on the service and stays billed").MatchString(appliedOut)) {
			t.Fatalf("applying the saved destroy plan shows %d removal warnings:\n%s", got, appliedOut)
		}
		// A destroy planned and applied at once shows the plan's warning, once.
		if err := wd.Apply(t.Context()); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		wd.TF.SetStdout(&out)
		err = wd.TF.Destroy(t.Context())
		wd.TF.SetStdout(nil)
		if err != nil {
			t.Fatal(err)
		}
		if plansDestroy {
			saysOnce("destroy -auto-approve", out.String(), "Destroyed Clip Stays Billed")
		} else if got := strings.Count(out.String(), "Warning: Video Removed From State Only"); got != 1 {
			t.Fatalf("destroy shows %d removal warnings, want one per run:\n%s", got, out.String())
		}
		// Two clips, the recut's replacement, and two again after the saved destroy.
		if n := mock.Submissions(); n != 5 {
			t.Fatalf("the ledger shows %d submissions, want 5", n)
		}
	})
}

// requireAcc skips a test that drives the real CLI unless acceptance tests run, as
// terraform-plugin-testing does for its own.
func requireAcc(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
}

func applyOutput(t *testing.T, wd *acctest.Workdir, opts ...tfexec.ApplyOption) string {
	t.Helper()
	var out strings.Builder
	wd.TF.SetStdout(&out)
	wd.TF.SetStderr(&out)
	defer func() {
		wd.TF.SetStdout(nil)
		wd.TF.SetStderr(nil)
	}()
	if err := wd.Apply(t.Context(), opts...); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return out.String()
}

// TestAccVideoResource_oddStatesArePlannedNotFatal: a state outside the service's
// contract never makes a plan fail. An unknown state is waited for in place; a
// finished clip later reported expired stays, billed once and said so, and
// nothing is submitted (only an explicit replace generates another).
func TestAccVideoResource_oddStatesArePlannedNotFatal(t *testing.T) {
	mock := acctest.NewMock(t)
	var rewrite atomic.Value // func([]byte) []byte
	rewrite.Store(func(b []byte) []byte { return b })
	gateway := echoRewriter(t, mock, func(b []byte) []byte { return rewrite.Load().(func([]byte) []byte)(b) }) //nolint:forcetypeassert // only funcs are stored
	reportAs := func(n int, status string, times int64) func() {
		return func() {
			id := ledgerTask(t, mock, n).TaskID
			var left atomic.Int64
			left.Store(times)
			rewrite.Store(func(b []byte) []byte {
				if !bytes.Contains(b, []byte(id)) || left.Add(-1) < 0 {
					return b
				}
				return bytes.Replace(b, []byte(`"status":"succeeded"`), []byte(`"status":"`+status+`"`), 1)
			})
		}
	}
	config := mock.ProviderBlock("base_url = "+strconv.Quote(gateway)) + `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "a clip the service may lose"
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config, Check: mock.ExpectSubmissions(1)},
			{
				// Read once as a state nobody knows: the refresh records it, and the plan
				// waits for the same task in place instead of failing or regenerating.
				PreConfig: reportAs(0, "frobnicating", 1),
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), taskIDOf(mock, 0)),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
				},
				Check: mock.ExpectSubmissions(1),
			},
			{
				PreConfig: reportAs(0, "expired", 1000),
				Config:    config,
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
}

// TestAccBilling_rotatingURLsKeepDriftDetectionQuiet: `plan -detailed-exitcode`
// (exit 2 on changes) stays at 0 while the service signs a new URL on every read.
func TestAccBilling_rotatingURLsKeepDriftDetectionQuiet(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	mock := acctest.NewMock(t)
	wd := cliWorkdir(t, mock, cliVideo("a signed clip")+`
output "teaser_url" {
  value = videogen_video.clip.url
}
`)
	first := applyAndReadClip(t, wd)["url"]
	for range 2 {
		mock.ExpireURLs()
		if changes, err := wd.Plan(t.Context()); err != nil || changes {
			t.Fatalf("plan -detailed-exitcode after the URL rotated: changes %v, error %v; want exit 0", changes, err)
		}
	}
	if fresh := mock.Task(t, ledgerTask(t, mock, 0).TaskID).URL; fresh == first {
		t.Fatalf("the mock did not rotate the URL (%s), so the test proves nothing", fresh)
	}
	if got := applyAndReadClip(t, wd)["url"]; got != first {
		t.Fatalf("url changed from %v to %v although the clip did not", first, got)
	}
	if n := mock.Submissions(); n != 1 {
		t.Fatalf("the ledger shows %d submissions, want 1", n)
	}
}

// expectPrior checks a value of the object a plan replaces or destroys, as
// `terraform show -json` gives it (change.before): what a reviewer reads beside
// the planned value.
type expectPrior struct {
	addr, attr, want string
}

func (e expectPrior) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.addr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		if got := fmt.Sprint(before[e.attr]); got != e.want {
			resp.Error = fmt.Errorf("%s: %s before the change is %q, want %q", e.addr, e.attr, got, e.want)
		}
		return
	}
	resp.Error = fmt.Errorf("the plan has no change for %s", e.addr)
}

// TestAccBilling_planSaysWhichClipsAreBilled: a prompt change plans a new clip for
// the resource it changes and nothing for the others, and says so in billing, with
// the replaced clip's own billing beside it; unset arguments that a replacement does
// not change plan as null, not as values known after apply.
func TestAccBilling_planSaysWhichClipsAreBilled(t *testing.T) {
	mock := acctest.NewMock(t)
	config := func(promptA string) string {
		return mock.ProviderBlock() + fmt.Sprintf(`
locals {
  prompts = [%q, "a teaser in German"]
}
resource "videogen_video" "clip" {
  count  = 2
  model  = "videogen-1"
  prompt = local.prompts[count.index]
}
`, promptA)
	}
	a, b := "videogen_video.clip[0]", "videogen_video.clip[1]"
	newClip := knownvalue.StringExact(clip.BillingNewClip)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("a teaser in English"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(a, tfjsonpath.New("billing"), newClip),
					plancheck.ExpectKnownValue(b, tfjsonpath.New("billing"), newClip),
				}},
				Check: mock.ExpectSubmissions(2),
			},
			{
				Config: config("a teaser in French"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(a, plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectKnownValue(a, tfjsonpath.New("billing"), newClip),
					expectPrior{a, "billing", clip.BillingBilled},
					plancheck.ExpectResourceAction(b, plancheck.ResourceActionNoop),
					// Unset, and a new request has nothing of them to echo.
					plancheck.ExpectKnownValue(a, tfjsonpath.New("reference_images"), knownvalue.Null()),
					plancheck.ExpectKnownValue(a, tfjsonpath.New("reference_videos"), knownvalue.Null()),
					plancheck.ExpectKnownValue(a, tfjsonpath.New("reference_audios"), knownvalue.Null()),
					plancheck.ExpectKnownValue(a, tfjsonpath.New("callback_url"), knownvalue.Null()),
					// The service chooses these when they are unset.
					plancheck.ExpectUnknownValue(a, tfjsonpath.New("ratio")),
				}},
				Check: mock.ExpectSubmissions(3),
			},
			mock.NothingNewStep(config("a teaser in French"), 3),
		},
	})
}

// TestAccBilling_resumePlanSaysNoNewCharge: after a timed-out apply, the plan that
// replaces the tainted clip says it resumes the task without a new charge, shows
// the status the service really has, and does not count against max_new_clips.
func TestAccBilling_resumePlanSaysNoNewCharge(t *testing.T) {
	mock := acctest.NewMock(t)
	const prompt = "a slow sunrise [mock:hold]"
	config := func(providerLines ...string) string {
		return mock.ProviderBlock(providerLines...) + fmt.Sprintf(`
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = %q
}
`, prompt)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: cutFirstWaitShort(mock),
		Steps: []resource.TestStep{
			{
				Config:      config(),
				ExpectError: wrapped("Video Not Ready", "Apply again to keep waiting for the same task"),
			},
			{
				// The task finished after the wait gave up; the plan must say so.
				PreConfig: func() {
					if !mock.FinishTask(ledgerTask(t, mock, 0).TaskID) {
						t.Fatal("the mock had no held task to finish")
					}
				},
				Config: config("max_new_clips = 0"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectKnownValue(videoAddr, tfjsonpath.New("billing"), knownvalue.StringExact(clip.BillingResumes)),
					expectPrior{videoAddr, "status", "succeeded"},
					expectPrior{videoAddr, "billing", clip.BillingCutShort},
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), taskIDOf(mock, 0)),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
				},
				Check: mock.ExpectSubmissions(1),
			},
			mock.NothingNewStep(config("max_new_clips = 0"), 1),
		},
	})
}

// TestAccBilling_plannedResumeNotPossible: a clip planned to resume a task that
// fails after the plan's refresh is submitted as a new clip at apply, and a
// warning says so, since the plan's "no new charge" cannot be taken back.
func TestAccBilling_plannedResumeNotPossible(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	mock := acctest.NewMock(t)
	wd := cliWorkdir(t, mock, cliVideo("a sunrise that fails late [mock:hold]"))
	run, taskIDs := startHeldApply(t, mock, wd, 1)
	if err := run.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if out, err := run.Wait(); err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	// The refresh sees the task running, so the plan resumes it; the task fails
	// right after that read, before the apply can take it over. The new task the
	// apply submits instead is finished once it exists.
	first := ledgerTask(t, mock, 0)
	go func() {
		if mock.AwaitGets(t.Context(), first.TaskID, first.GetCount+1) == nil {
			mock.FailTask(first.TaskID, "failed after the plan")
		}
		if mock.AwaitTasks(t.Context(), 2) == nil {
			mock.FinishTask(mock.Ledger().Tasks[1].TaskID)
		}
	}()
	out := applyOutput(t, wd)
	if !wrapped(`billing`, clip.BillingResumes).MatchString(out) ||
		!wrapped("Planned Resume Not Possible", "A new task is submitted instead").MatchString(out) {
		t.Fatalf("want a plan that resumes task %s and a warning that the apply could not:\n%s", taskIDs[0], out)
	}
	if n := mock.Submissions(); n != 2 {
		t.Fatalf("the ledger shows %d submissions, want 2 (the failed task and the new one)", n)
	}
}

// TestAccBilling_resumeWithoutRefresh: a clip whose wait was cut short is
// replaced by an apply with -refresh=false. That plan read no task, so it plans
// the replacement as a new clip without knowing the task; that is no reason to
// let the task go. Delete hands it over, and the replacement takes it over if it
// asks for the same clip: 1 billed for 1 clip. With a changed prompt it is a new
// clip, and the task left running is named.
func TestAccBilling_resumeWithoutRefresh(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	for _, tc := range []struct {
		name, prompt string
		submissions  int
	}{
		{"same clip", "a dawn resumed without a refresh", 1},
		{"changed prompt", "another dawn", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t)
			wd := cliWorkdir(t, mock, cliVideo("a dawn resumed without a refresh [mock:hold]"))
			run, taskIDs := startHeldApply(t, mock, wd, 1)
			if err := run.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			if out, err := run.Wait(); err == nil {
				t.Fatalf("the interrupted apply succeeded:\n%s", out)
			}
			finishAll(t, mock)
			finishResubmission(t.Context(), mock)
			if err := wd.Write(cliClip(mock, cliVideo(tc.prompt+" [mock:hold]"))); err != nil {
				t.Fatal(err)
			}
			out := applyOutput(t, wd, tfexec.Refresh(false))
			if n := mock.Submissions(); n != tc.submissions {
				t.Fatalf("the ledger shows %d submissions, want %d:\n%s", n, tc.submissions, out)
			}
			abandoned := wrapped("Unfinished Task Abandoned", "Task "+taskIDs[0]).MatchString(out)
			want := ledgerTask(t, mock, tc.submissions-1).TaskID
			if got := stateTasks(t, wd)["videogen_video.clip"]; got != want || abandoned != (tc.submissions == 2) {
				t.Fatalf("the state holds task %q, want %s; task %s said abandoned: %v:\n%s", got, want, taskIDs[0], abandoned, out)
			}
		})
	}
}
