package provider

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
	"github.com/videogen/terraform-provider-videogen/internal/provider/providerconfig"
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
	t.Parallel()
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
			plan: []string{"Warning: Destroyed Clip Stays Billed", "Destroying this clip deletes task", "and its clip from the server",
				"refunds nothing"}},
		{name: "kept", provider: []string{"delete_on_destroy = false"},
			plan: []string{"Warning: Destroyed Clip Stays Billed", "Destroying this clip removes task",
				"from Terraform state only (delete_on_destroy is false)", "stays billed"}},
		{name: "server without delete", mockOpts: []func(*mockapi.Config){mockapi.WithoutVideoDelete()},
			plan:    []string{"Destroying this clip deletes task"},
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
			// What the plan said is not said again by the apply: one warning, whose
			// words hold after it was applied.
			said := strings.Count(out, "Warning: Destroyed Clip Stays Billed") + strings.Count(out, "Warning: Video Removed From State Only")
			if plansDestroy && (said != 1 || !wrapped(tc.plan...).MatchString(out)) || strings.Contains(out, "do not apply") {
				t.Fatalf("destroy -auto-approve shows %d removal warnings, want the plan's one, in words true after "+
					"the apply:\n%s", said, out)
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

// TestAccOpenAIVideos_taintedClipReplaced: a finished clip that the user taints
// is replaced, and its video deleted as any destroyed one. Terraform hands the
// Delete of a tainted clip its replacement's planned private state, which
// records no API: that says nothing of the API that made the clip, and must not
// read as the other one ("made through api = video-generations").
func TestAccOpenAIVideos_taintedClipReplaced(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	mock := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectOpenAIVideos))
	wd := cliWorkdir(t, mock, cliVideo("a heron lands on a pier"))
	if err := wd.Apply(t.Context()); err != nil {
		t.Fatal(err)
	}
	first := mock.Ledger().Tasks[0].TaskID
	if err := wd.TF.Taint(t.Context(), "videogen_video.clip"); err != nil {
		t.Fatal(err)
	}
	out, err := wd.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color").Wait()
	if err != nil || strings.Contains(out, "made through api") {
		t.Fatalf("the replacing apply (error %v) says the clip was made through another API:\n%s", err, out)
	}
	l := mock.Ledger()
	deleted, _ := l.Task(first)
	if len(l.Tasks) != 2 || !deleted.Deleted || !deleted.Billed {
		t.Fatalf("ledger = %+v, want 2 billed tasks, the tainted clip's %s deleted", l.Tasks, first)
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
	t.Setenv(providerconfig.EnvAPI, "openai")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      fromEnv,
				ExpectError: wrapped("Invalid API", "The VIDEOGEN_API environment variable", `"video-generations", "openai-videos"`),
			},
			{
				PreConfig: func() { t.Setenv(providerconfig.EnvAPI, "openai-videos") },
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

// TestAccOpenAIVideos_apiChangedBeforeAResume: a clip whose wait was cut short
// is replaced by a plain apply, which takes its task over. If api changed
// meanwhile and the plan skipped the refresh (-refresh=false, so Read never
// refused the clip), the task is one the new API does not know: handed over,
// the replacement would hear 404 on the other API's paths, drop it and submit
// again, and let go of, it would be in no state and no journal. So Delete
// fails and state keeps the clip, both for a clip whose plan let its task go
// (planned as a new clip: no refresh told it of the task) and for one whose
// plan could not tell (a prompt known only at apply). Set back, the next apply
// takes both tasks over: 2 billed for 2 clips.
func TestAccOpenAIVideos_apiChangedBeforeAResume(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	body := func(rev string) string {
		return fmt.Sprintf(`
resource "terraform_data" "prompt" {
  input            = "a heron at dusk"
  triggers_replace = [%q]
}

resource "videogen_video" "clip" {
  model  = "videogen-1"
  prompt = "a heron at dawn [mock:hold]"
}

resource "videogen_video" "later" {
  model  = "videogen-1"
  prompt = "${terraform_data.prompt.output} [mock:hold]"
}
`, rev)
	}
	for _, tc := range []struct{ dialect, madeThrough, then string }{
		{mockapi.DialectOpenAIVideos, "openai-videos", "video-generations"},
		{mockapi.DialectOpenAI, "video-generations", "openai-videos"},
	} {
		t.Run(tc.madeThrough+" to "+tc.then, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			mock := acctest.NewMock(t, mockapi.WithDialect(tc.dialect))
			wd := cliWorkdir(t, mock, body("1"))
			if v, _, err := wd.TF.Version(ctx, true); err != nil || v.LessThan(version.Must(version.NewVersion("1.4.0"))) {
				t.Skipf("terraform_data needs Terraform 1.4 or later (CLI %v, %v)", v, err)
			}
			run, _ := startHeldApply(t, mock, wd, 2)
			if err := run.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			if out, err := run.Wait(); err == nil {
				t.Fatalf("the interrupted apply succeeded:\n%s", out)
			}
			kept := stateTasks(t, wd)
			if len(kept) != 2 {
				t.Fatalf("the state holds %v after the interrupt, want both clips", kept)
			}
			go func() {
				// A clip submitted again is held too: finish it, so that the test fails
				// on the count instead of waiting.
				for n := 3; mock.AwaitTasks(ctx, n) == nil; n++ {
					mock.FinishTask(mock.Ledger().Tasks[n-1].TaskID)
				}
			}()
			// The other API, and a prompt known only at apply for the second clip.
			if err := wd.Write(cliClip(mock, body("2"), "api = "+strconv.Quote(tc.then))); err != nil {
				t.Fatal(err)
			}
			out, err := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color", "-refresh=false").Wait()
			if got := stateTasks(t, wd); !maps.Equal(got, kept) {
				t.Fatalf("the state holds %v after the apply through the other API, want the clips kept as %v:\n%s", got, kept, out)
			}
			if err == nil || strings.Count(out, "Error: Unfinished Task Unknown to This API") != 2 ||
				!wrapped(`through the "`+tc.then+`" API`, `another API ("`+tc.madeThrough+`")`, "set it back",
					"State was left as it was").MatchString(out) {
				t.Fatalf("want both clips' Delete to fail naming the APIs (error %v):\n%s", err, out)
			}
			if n := mock.Submissions(); n != 2 {
				t.Fatalf("the ledger shows %d submissions, want 2:\n%s", n, out)
			}
			finishAll(t, mock)
			if err := wd.Write(cliClip(mock, body("2"))); err != nil {
				t.Fatal(err)
			}
			out = applyOutput(t, wd)
			if n := mock.Submissions(); n != 2 {
				t.Fatalf("the ledger shows %d submissions for 2 clips, want 2:\n%s", n, out)
			}
			if got := stateTasks(t, wd); !maps.Equal(got, kept) {
				t.Fatalf("the state holds %v, want the first tasks %v", got, kept)
			}
		})
	}
}
