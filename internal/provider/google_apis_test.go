package provider

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cloud.google.com/go/storage"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
	"github.com/videogen/terraform-provider-videogen/internal/storetest"
)

// The tests in this file run videogen_video through Google's Veo: api =
// "gemini" (an API key) and api = "vertex" (Application Default Credentials,
// project and location), against the mock's gemini and vertex dialects, with
// the exact ledger counts of the other APIs' tests.

// veoClipURL is what a Veo clip's url holds: the Gemini API's file on the
// service's own origin; nothing on Vertex AI, whose clip is in its operation.
func veoClipURL(dialect string) knownvalue.Check {
	if dialect == mockapi.DialectVertex {
		return knownvalue.Null()
	}
	return knownvalue.StringRegexp(regexp.MustCompile(`^http://127\.0\.0\.1:\d+/v1beta/files/[0-9a-f]+:download\?alt=media$`))
}

// veoTaskID matches an operation name of the dialect.
func veoTaskID(dialect string) knownvalue.Check {
	if dialect == mockapi.DialectVertex {
		return knownvalue.StringRegexp(regexp.MustCompile(`^projects/` + acctest.VertexProject + `/locations/` + acctest.VertexLocation +
			`/publishers/google/models/videogen-1/operations/[0-9a-f-]{36}$`))
	}
	return knownvalue.StringRegexp(regexp.MustCompile(`^models/videogen-1/operations/[0-9a-f]{12}$`))
}

// TestAccVeo_lifecycle: through each of Google's APIs, a clip with ratio,
// resolution and seconds is created and waited for, its file is the mock's
// clip, the next plan is empty, the data source reads it, and an import by
// operation name matches the state: one submission, carrying the parameters
// in Veo's names.
func TestAccVeo_lifecycle(t *testing.T) {
	t.Parallel()
	for _, dialect := range mockapi.GoogleDialects {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			clip := filepath.Join(t.TempDir(), "heron.mp4")
			config := mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
  model      = "videogen-1"
  prompt     = "a heron lands on a pier"
  seconds    = 8
  ratio      = "16:9"
  resolution = "720p"
}

resource "videogen_video_file" "test" {
  task_id = videogen_video.test.task_id
  path    = %q
}

data "videogen_video" "test" {
  task_id = videogen_video.test.task_id
}
`, clip)
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						Config: config,
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("task_id"), veoTaskID(dialect)),
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
							statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("url"), veoClipURL(dialect)),
							statecheck.ExpectKnownValue(videoDataAddr, tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
						},
						Check: resource.ComposeTestCheckFunc(
							mock.ExpectFileMatchesClip(t, clip),
							mock.ExpectSubmissions(1),
							func(*terraform.State) error {
								got := string(ledgerTask(t, mock, 0).Metadata)
								if want := `{"aspectRatio":"16:9","durationSeconds":8,"resolution":"720p"}`; got != want {
									return fmt.Errorf("the mock received parameters %s, want %s", got, want)
								}
								return nil
							},
						),
					},
					mock.NothingNewStep(config, 1),
					{
						// By operation name; Veo echoes none of the arguments, which
						// an import adopts from the configuration.
						ResourceName:      videoAddr,
						ImportState:       true,
						ImportStateVerify: true,
						ImportStateVerifyIgnore: []string{"model", "prompt", "seconds", "ratio", "resolution",
							"wait_for_completion", "timeouts"},
						Check: mock.ExpectSubmissions(1),
					},
				},
			})
		})
	}
}

// TestAccVeo_argumentVeoCannotCarryFailsThePlan: an argument Veo has no way to
// send fails the plan, attached to it, and nothing is submitted: a callback URL
// on either API, audio on the Gemini API (whose models decide it), a Cloud
// Storage destination on the Gemini API (only Vertex AI writes to a bucket).
func TestAccVeo_argumentVeoCannotCarryFailsThePlan(t *testing.T) {
	t.Parallel()
	cases := []struct{ dialect, line string }{
		{mockapi.DialectGemini, `generate_audio = true`},
		{mockapi.DialectGemini, `storage_uri = "gs://clips/veo/"`},
		{mockapi.DialectVertex, `callback_url = "https://hooks.example.com/veo"`},
	}
	for _, c := range cases {
		dialect, line := c.dialect, c.line
		t.Run(dialect+"/"+strings.Fields(line)[0], func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			name := strings.Fields(line)[0]
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "a heron"
  %s
}
`, line),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`(?s)` + regexp.QuoteMeta(name) + `.*` + dialect),
				}},
				CheckDestroy: mock.ExpectSubmissions(0),
			})
		})
	}
}

// TestAccVeo_killedRunIsAdopted: a run killed outright while it waits, after
// its first clip finished and before any state holds it, leaves the operation
// in the journal; the re-apply adopts it: 2 billed for 2 clips, through each of
// Google's APIs.
func TestAccVeo_killedRunIsAdopted(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	for _, dialect := range mockapi.GoogleDialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			backend := acctest.NewHTTPBackend(t)
			wd := cliWorkdir(t, mock, backend.Block()+clipThenHeld(true))
			run := wd.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color")
			nextTask := awaitHeld(t, mock, run, 1)
			clipTask := ledgerTask(t, mock, 0).TaskID
			killGroup(t, run)
			if err := wd.TF.ForceUnlock(t.Context(), backend.LockID()); err != nil {
				t.Fatal(err)
			}
			if !mock.FinishTask(nextTask) {
				t.Fatalf("task %s was not pending", nextTask)
			}
			out := applyOutput(t, wd)
			if n := mock.Submissions(); n != 2 {
				t.Fatalf("the ledger shows %d submissions for 2 clips after the re-apply, want 2:\n%s", n, out)
			}
			if got := stateTasks(t, wd); got["videogen_video.clip"] != clipTask || got["videogen_video.next"] != nextTask {
				t.Fatalf("the state holds %v, want the clip's operation %s and the next one's %s", got, clipTask, nextTask)
			}
		})
	}
}

// TestAccVeo_lostAnswerIsSaidAtPlan: a submission whose answer was lost after
// Veo created the operation is said at the next plan ("may bill a second
// clip"), and max_new_clips = 0 stops the apply before a second charge: 1
// submission.
func TestAccVeo_lostAnswerIsSaidAtPlan(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	for _, dialect := range mockapi.GoogleDialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect), func(cfg *mockapi.Config) { cfg.GatewayFailuresAfterSubmit = -1 })
			body := cliVideo("an operation whose name was lost")
			wd := cliWorkdir(t, mock, body, "submit_gateway_retries = 0")
			if err := wd.Apply(ctx); err == nil {
				t.Fatal("the apply whose answer was lost succeeded")
			}
			mock.SetGatewayFailuresAfterSubmit(0)
			after, err := wd.PlanOut(ctx, "tfplan", "videogen_video.clip")
			if err != nil {
				t.Fatal(err)
			}
			if billing := after["billing"]; billing != clip.BillingMayBillTwice {
				t.Fatalf("the plan's billing is %v, want %q", billing, clip.BillingMayBillTwice)
			}
			expectDoubtStopsAnUnattendedApply(t, wd, mock, body)
		})
	}
}

// TestAccVeo_cloudStorageDestination: on api = "vertex" with storage_uri,
// Vertex AI (the mock) writes the clip into the bucket itself, on
// fake-gcs-server; videogen_video's url is that object, and a
// videogen_video_file whose path is the url records it where it is: the
// object holds the clip, its SHA-256 and size are in state and in the
// object's metadata, and the provider never had the clip's bytes from the
// API (the ledger served it 0 times), over a create and a refresh with an
// empty plan: 1 submission per clip, 2 in all.
func TestAccVeo_cloudStorageDestination(t *testing.T) {
	gcs := storetest.StartGCS(t)
	gcs.Setenv(t) // the in-process provider's clipstore reads the bucket through the emulator
	mock := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectVertex), func(c *mockapi.Config) {
		c.CloudStorage = gcs.Endpoint
	})
	video := func(name string) string {
		return fmt.Sprintf(`
resource "videogen_video" %q {
  model       = "videogen-1"
  prompt      = "a heron lands on a pier (%s)"
  storage_uri = "gs://%s/veo/"
}
`, name, name, gcs.Bucket)
	}
	file := func(name string) string {
		return fmt.Sprintf(`
resource "videogen_video_file" %[1]q {
  task_id = videogen_video.%[1]s.task_id
  path    = videogen_video.%[1]s.url
}
`, name)
	}
	// The first clip and its file are created together (the path is known
	// only at apply); the second file is added once its clip exists (the
	// plan sees the object Vertex AI wrote, and takes it for the clip).
	config := mock.ProviderBlock() + video("first") + file("first")
	later := config + video("second")
	both := later + file("second")
	objectURL := regexp.MustCompile(`^gs://` + gcs.Bucket + `/veo/[0-9a-f-]{36}/sample_0\.mp4$`)
	servedNothing := func(*terraform.State) error {
		if n := mock.ClipDownloads(); n != 0 {
			return fmt.Errorf("the mock served %d clip downloads, want 0", n)
		}
		for _, lt := range mock.Ledger().Tasks {
			if lt.ClipServed != 0 {
				return fmt.Errorf("the mock served the clip of %s %d times, want 0: it is in the bucket", lt.TaskID, lt.ClipServed)
			}
		}
		return nil
	}
	objects := map[string]string{} // the key of each clip's object
	objectIsClip := func(name string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			key, err := objectHoldsClip(t, gcs, mock, s, name)
			objects[name] = key
			return err
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  resource.ComposeAggregateTestCheckFunc(objectIsClip("first"), servedNothing, mock.ExpectSubmissions(1)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("videogen_video.first", tfjsonpath.New("url"), knownvalue.StringRegexp(objectURL)),
					statecheck.ExpectKnownValue("videogen_video.first", tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
				},
			},
			{
				Config: later,
				Check:  resource.ComposeAggregateTestCheckFunc(objectIsClip("first"), servedNothing, mock.ExpectSubmissions(2)),
			},
			{
				Config: both,
				Check:  resource.ComposeAggregateTestCheckFunc(objectIsClip("second"), servedNothing, mock.ExpectSubmissions(2)),
			},
			// A refresh reads the operations (their names of the objects, no
			// bytes) and the objects' attributes: nothing to do, nothing served.
			mock.NothingNewStep(both, 2),
		},
		// Destroying the file removes the object it recorded, as it removes
		// any object it holds; the clip stays billed.
		CheckDestroy: func(s *terraform.State) error {
			errs := []error{servedNothing(s), mock.ExpectSubmissions(2)(s)}
			for _, key := range objects {
				if _, err := gcs.GCSClient(t).Bucket(gcs.Bucket).Object(key).Attrs(t.Context()); !errors.Is(err, storage.ErrObjectNotExist) {
					errs = append(errs, fmt.Errorf("after destroy, gs://%s/%s: %w; want it removed", gcs.Bucket, key, err))
				}
			}
			return errors.Join(errs...)
		},
	})
}

// objectHoldsClip checks that videogen_video_file.<name> records, at the url
// of videogen_video.<name>, the object Vertex AI wrote: the clip's bytes,
// with its SHA-256 and task in the object's metadata. It returns the
// object's key in the bucket.
func objectHoldsClip(t *testing.T, gcs *storetest.Server, mock *acctest.Mock, s *terraform.State, name string) (key string, err error) {
	video := s.RootModule().Resources["videogen_video."+name].Primary.Attributes
	file := s.RootModule().Resources["videogen_video_file."+name].Primary.Attributes
	key = strings.TrimPrefix(video["url"], "gs://"+gcs.Bucket+"/")
	want, err := mock.ReferenceClip(video["task_id"])
	if err != nil {
		return key, err
	}
	if file["sha256"] != want.SHA256 || file["size_bytes"] != fmt.Sprint(want.Size) || file["path"] != video["url"] {
		return key, fmt.Errorf("videogen_video_file records %s (%s bytes) at %s; want the clip's %s (%d bytes) at %s",
			file["sha256"], file["size_bytes"], file["path"], want.SHA256, want.Size, video["url"])
	}
	attrs, err := gcs.GCSClient(t).Bucket(gcs.Bucket).Object(key).Attrs(t.Context())
	if err != nil {
		return key, fmt.Errorf("the object Vertex AI wrote: %w", err)
	}
	if attrs.Size != want.Size || attrs.Metadata["sha256"] != want.SHA256 || attrs.Metadata["task"] != video["task_id"] {
		return key, fmt.Errorf("the object holds %d bytes with metadata %v; want %d bytes, sha256 %s, task %s",
			attrs.Size, attrs.Metadata, want.Size, want.SHA256, video["task_id"])
	}
	return key, nil
}

// TestAccVeo_ephemeralURLOfAnInlineClip: a Vertex AI clip held in its
// operation has no URL: videogen_video_url says so and what to do instead,
// and the clip that would have used it is not submitted: 1 submission.
func TestAccVeo_ephemeralURLOfAnInlineClip(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectVertex))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock() + `
resource "videogen_video" "first" {
  model  = "videogen-1"
  prompt = "a heron"
}

ephemeral "videogen_video_url" "first" {
  task_id = videogen_video.first.task_id
}

resource "videogen_video" "sequel" {
  model                      = "videogen-1"
  prompt                     = "the heron again"
  reference_images_wo        = [ephemeral.videogen_video_url.first.url]
  reference_media_wo_version = 1
}
`,
			ExpectError: regexp.MustCompile(`(?s)Video Not Available as a URL.*holds its clip in the operation.*storage_uri`),
		}},
		CheckDestroy: mock.ExpectSubmissions(1),
	})
}

// TestAccVeo_inlineClipCostPerRefresh measures what a refresh of a finished
// Vertex AI clip transfers: held in its operation, the whole clip comes with
// every read of it, one per plan; written to Cloud Storage (storage_uri), none.
func TestAccVeo_inlineClipCostPerRefresh(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	mock := acctest.NewMock(t, mockapi.WithDialect(mockapi.DialectVertex))
	wd := cliWorkdir(t, mock, cliVideo("a heron"))
	applyOutput(t, wd)
	served := func() int {
		n := 0
		for _, lt := range mock.Ledger().Tasks {
			n += lt.ClipServed
		}
		return n
	}
	before := served()
	for range 3 {
		if changes, err := wd.Plan(t.Context()); err != nil || changes {
			t.Fatalf("plan: changes %v, %v; want none", changes, err)
		}
	}
	if got := served() - before; got != 3 || mock.Submissions() != 1 {
		t.Errorf("3 plans transferred the clip %d times (%d submissions), want 3: one whole clip per refresh (1 submission)",
			got, mock.Submissions())
	}
}

// TestAPITableIsTheClipArgumentTable: videogen_video's page tables what each
// API carries as the plan decides it: the committed docs hold the table the
// clip-argument table renders (make generate writes it), and each cell says
// "—" exactly where the API has no entry for the argument, which fails the
// plan.
func TestAPITableIsTheClipArgumentTable(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "resources", "video.md"))
	if err != nil {
		t.Fatal(err)
	}
	table := apiTable()
	if !strings.Contains(string(page), table) {
		t.Fatalf("docs/resources/video.md does not hold the table of what each API carries; run make generate. Want:\n%s", table)
	}
	rows := strings.Split(strings.TrimSpace(table), "\n")
	header := strings.Split(strings.Trim(rows[0], "| "), " | ")
	seen := 0
	for _, a := range clipArguments {
		if len(a.request) == 0 {
			continue
		}
		seen++
		if seen+1 >= len(rows) {
			t.Fatalf("the table ends before %s", a.name)
		}
		cells := strings.Split(strings.Trim(rows[seen+1], "| "), " | ")
		if cells[0] != "`"+a.name+"`" || len(cells) != len(header) {
			t.Fatalf("row %d is %q, want %s's", seen, rows[seen+1], a.name)
		}
		for i, api := range header[1:] {
			_, carried := a.request[apiShape(strings.Trim(api, "`"))]
			if (cells[i+1] == "—") == carried {
				t.Errorf("%s on %s: the table says %q, the clip-argument table carried = %v", a.name, api, cells[i+1], carried)
			}
		}
	}
	if len(rows) != seen+2 || len(header) != len(client.APINames())+1 {
		t.Errorf("the table has %d rows and %d API columns; want %d and %d", len(rows)-2, len(header)-1, seen, len(client.APINames()))
	}
}
