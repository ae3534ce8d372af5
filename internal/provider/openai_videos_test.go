package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// The tests in this file cover what is particular to api = "openai-videos": how
// the clip arguments map onto OpenAI's request, the arguments it cannot carry,
// and what destroy does there. The lifecycle every API shares runs in
// dialect_test.go.

// TestAccOpenAIVideos_requestMapping: seconds as seconds, ratio and resolution as
// one size, the reference image as input_reference; the service's size is read
// back as ratio and resolution, so the next plan is empty.
func TestAccOpenAIVideos_requestMapping(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos))
	config := videoConfig(mock, `
  model            = "videogen-1"
  prompt           = "@image1 lands on a pier"
  seconds          = 8
  ratio            = "16:9"
  resolution       = "720p"
  reference_images = ["https://img.example/heron.png"]
`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("ratio"), knownvalue.StringExact("16:9")),
					statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("resolution"), knownvalue.StringExact("720p")),
				},
				Check: resource.ComposeTestCheckFunc(
					mock.ExpectSubmissions(1),
					func(*terraform.State) error {
						task := mock.Ledger().Tasks[0]
						if task.Seconds != "8" || string(task.Metadata) !=
							`{"input_reference[image_url]":"https://img.example/heron.png","size":"1280x720"}` {
							return fmt.Errorf("the server received seconds %q and %s", task.Seconds, task.Metadata)
						}
						return nil
					},
				),
			},
			mock.NothingNewStep(config, 1),
		},
	})
}

// TestAccOpenAIVideos_unsupportedArguments: an argument OpenAI's video API
// cannot carry fails the plan, attached to it, and nothing is sent: no
// argument is dropped on the way.
func TestAccOpenAIVideos_unsupportedArguments(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos))
	var steps []resource.TestStep
	for _, tc := range []struct{ args, want string }{
		{`callback_url = "https://hooks.example/videogen"`, `callback_url cannot be sent`},
		{`generate_audio = true`, `generate_audio cannot be sent`},
		{`reference_videos = ["https://v.example/a.mp4"]`, `reference_videos cannot be sent`},
		{`reference_audios = ["https://a.example/a.mp3"]`, `reference_audios cannot be sent`},
		{`extra_metadata = jsonencode({ watermark = false })`, `extra_metadata cannot be sent`},
		{`reference_images = ["https://img.example/a.png", "https://img.example/b.png"]`, `reference_images has 2 images`},
		{`ratio = "16:9"`, `No Size for This Ratio and Resolution.*ratio "16:9" with resolution ""`},
		{`resolution = "720p"`, `No Size for This Ratio and Resolution.*set both ratio and resolution`},
		{"ratio = \"16:9\"\nresolution = \"480p\"", `No Size for This Ratio and Resolution.*853.33`},
	} {
		steps = append(steps, resource.TestStep{
			Config:      videoConfig(mock, "model = \"videogen-1\"\nprompt = \"a heron\"\n"+tc.args),
			PlanOnly:    true,
			ExpectError: wrapped(strings.Split(tc.want, ".*")...),
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    steps,
		CheckDestroy: func(*terraform.State) error {
			if n := mock.Ledger().Requests["POST /v1/videos"]; n != 0 {
				return fmt.Errorf("%d submissions reached the server, want none", n)
			}
			return nil
		},
	})
}

// TestAccOpenAIVideos_destroy: on OpenAI's video API, destroy deletes a finished
// clip by default and the plan says so; with delete_on_destroy = false it only
// forgets it; a server without the delete (new-api v0.10.0) makes it a warning,
// never an error, and the clip leaves state. Nothing is submitted again.
func TestAccOpenAIVideos_destroy(t *testing.T) {
	requireAcc(t)
	for _, tc := range []struct {
		name     string
		mockOpts []func(*mockapi.Config)
		provider []string
		deleted  bool
		plan     []string // what the destroy plan says
		destroy  string   // what the destroy says
	}{
		{name: "deletes by default", deleted: true,
			plan: []string{"Warning: Destroyed Clip Stays Billed", "is deleted from the server with its clip", "deleting refunds nothing"}},
		{name: "kept", provider: []string{"delete_on_destroy = false"},
			plan:    []string{"Warning: Destroyed Clip Stays Billed", "delete_on_destroy is false", "only leaves Terraform state"},
			destroy: "Warning: Video Removed From State Only"},
		{name: "server without delete", mockOpts: []func(*mockapi.Config){mockapi.WithoutVideoDelete()},
			plan:    []string{"is deleted from the server with its clip"},
			destroy: "Warning: Video Not Deleted From the Server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, append([]func(*mockapi.Config){mockapi.WithDialect(mockapi.DialectOpenAIVideos)},
				tc.mockOpts...)...)
			wd := cliWorkdir(t, mock, cliVideo("a heron lands on a pier"), tc.provider...)
			if err := wd.Apply(t.Context()); err != nil {
				t.Fatal(err)
			}
			plan, err := wd.Start(t.Context(), "plan", "-destroy", "-input=false", "-no-color").Wait()
			v, _, verr := wd.TF.Version(t.Context(), true)
			if verr != nil {
				t.Fatal(verr)
			}
			// Terraform before 1.3 does not ask providers to plan a destroy.
			plansDestroy := !v.LessThan(version.Must(version.NewVersion("1.3.0")))
			if err != nil || plansDestroy && !wrapped(tc.plan...).MatchString(plan) {
				t.Fatalf("the destroy plan (error %v) does not say %q:\n%s", err, tc.plan, plan)
			}
			out, err := wd.Start(t.Context(), "destroy", "-auto-approve", "-input=false", "-no-color").Wait()
			if err != nil || tc.destroy != "" && !strings.Contains(out, tc.destroy) {
				t.Fatalf("destroy (error %v) does not say %q:\n%s", err, tc.destroy, out)
			}
			st, err := wd.State(t.Context())
			if err != nil || st.Values != nil && len(st.Values.RootModule.Resources) != 0 {
				t.Fatalf("state after destroy: %+v, %v; want empty", st.Values, err)
			}
			l := mock.Ledger()
			if len(l.Tasks) != 1 || l.Tasks[0].Deleted != tc.deleted || !l.Tasks[0].Billed {
				t.Fatalf("ledger = %+v, want one billed task, deleted %v", l.Tasks, tc.deleted)
			}
		})
	}
}

// TestAccOpenAIVideos_apiFromEnvironment: VIDEOGEN_API selects the API when the
// block does not; a name it does not know is an error naming the variable, before
// any call; the block's api wins.
func TestAccOpenAIVideos_apiFromEnvironment(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos))
	clip := `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "a heron"
}
`
	fromEnv := mock.ProviderBlock("api = null") + clip
	t.Setenv(envAPI, "openai")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      fromEnv,
				ExpectError: wrapped("Invalid API", "The VIDEOGEN_API environment variable", `"video-generations", "openai-videos"`),
			},
			{
				PreConfig: func() { t.Setenv(envAPI, "openai-videos") },
				Config:    fromEnv,
				Check:     mock.ExpectSubmissions(1),
			},
			{
				// The block wins: the clip was made through the API the environment named.
				Config:      mock.ProviderBlock(`api = "video-generations"`) + clip,
				ExpectError: wrapped("Clip Made Through Another API", `the provider's api is now "video-generations"`),
			},
		},
	})
	if n := mock.Submissions(); n != 1 {
		t.Errorf("the ledger shows %d submissions, want 1", n)
	}
}

// TestAccOpenAIVideos_apiChanged: a clip made through one API is not read
// through the other after api changes, where its task is unknown: the plan fails
// naming api and state keeps the clip, instead of forgetting a billed clip and
// generating it again. Set back, nothing has changed.
func TestAccOpenAIVideos_apiChanged(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos))
	clip := `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "a heron"
}
`
	config := mock.ProviderBlock() + clip
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config, Check: mock.ExpectSubmissions(1)},
			{
				Config:      mock.ProviderBlock(`api = "video-generations"`) + clip,
				PlanOnly:    true,
				ExpectError: wrapped("Clip Made Through Another API", `through the "openai-videos" API`, "State was left as it was"),
			},
			mock.NothingNewStep(config, 1),
		},
	})
}
