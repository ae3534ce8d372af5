package videofile_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
	"github.com/videogen/terraform-provider-videogen/internal/provider"
)

const (
	fileAddr      = acctest.VideoFileAddr
	videoAddr     = "videogen_video.test"
	testClipBytes = 3<<20 + 17 // several copy buffers, and not a round number
)

var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"videogen": providerserver.NewProtocol6WithError(provider.New("test")()),
}

// TestMain: see acctest.Main.
func TestMain(m *testing.M) { acctest.Main(m) }

// expectOnly checks that dir holds exactly the named entries: no temporary file is left.
func expectOnly(dir string, names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		if strings.Join(got, ",") != strings.Join(names, ",") {
			return fmt.Errorf("%s holds %q, want %q", dir, got, names)
		}
		return nil
	}
}

func expectMode(p string, want os.FileMode) resource.TestCheckFunc {
	return func(*terraform.State) error {
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		if info.Mode().Perm() != want {
			return fmt.Errorf("%s has mode %04o, want %04o", p, info.Mode().Perm(), want)
		}
		return nil
	}
}

func expectNoFile(p string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		switch _, err := os.Stat(p); {
		case err == nil:
			return fmt.Errorf("%s exists, want no file", p)
		case !os.IsNotExist(err):
			return fmt.Errorf("checking that %s does not exist: %w", p, err)
		}
		return nil
	}
}

// checkAfter runs checks after a test case, which an ExpectError step cannot.
func checkAfter(t *testing.T, checks ...resource.TestCheckFunc) {
	t.Helper()
	if err := resource.ComposeTestCheckFunc(checks...)(nil); err != nil {
		t.Error(err)
	}
}

func withClipBytes(cfg *mockapi.Config) { cfg.ClipBytes = testClipBytes }

// throughEachAPI are the dialects of the tests whose clip reaches the file by
// a way of its API's own: a signed URL of the service's storage, the Gemini
// API's file downloaded with the key on the service's origin, Vertex AI's clip
// inline in its operation (read again with the token; no download).
var throughEachAPI = []string{mockapi.DialectOpenAI, mockapi.DialectGemini, mockapi.DialectVertex}

func TestAccVideoFileResource_downloadPermissionsAndDestroy(t *testing.T) {
	mock := acctest.NewMock(t, withClipBytes)
	root := t.TempDir()
	if err := os.Chmod(root, 0o711); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "out", "clips")
	clip := filepath.Join(dir, "teaser.mp4")
	config := func(filePerm, extra string) string {
		return mock.VideoFileConfig("a lighthouse at dusk", clip, fmt.Sprintf(`
  file_permission      = %q
  directory_permission = "0750"
  %s`, filePerm, extra))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("0640", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("id"), knownvalue.StringExact(clip)),
					statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("size_bytes"), knownvalue.Int64Exact(testClipBytes)),
					statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("sha256"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
					statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("source_url"),
						knownvalue.StringRegexp(regexp.MustCompile(`^http://127\.0\.0\.1:\d+/[^?]+\.mp4$`))), // no signature in state
					statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("max_size_bytes"), knownvalue.Null()),
					statecheck.CompareValuePairs(fileAddr, tfjsonpath.New("task_id"), videoAddr, tfjsonpath.New("task_id"), compare.ValuesSame()),
				},
				Check: resource.ComposeTestCheckFunc(
					mock.ExpectFileMatchesClip(t, clip),
					expectOnly(dir, "teaser.mp4"),
					expectMode(clip, 0o640),
					expectMode(dir, 0o750),
					expectMode(filepath.Dir(dir), 0o750),
					expectMode(root, 0o711), // existing directories are left alone
					mock.ExpectSubmissions(1),
				),
			},
			{
				Config: config("0640", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// A new file_permission is applied in place, without a download.
				Config: config("0600", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionNoop),
					},
				},
				Check: resource.ComposeTestCheckFunc(expectMode(clip, 0o600), mock.ExpectClipDownloads(1)),
			},
			{
				// A chmod outside Terraform shows as drift and is put back in place.
				PreConfig: func() {
					if err := os.Chmod(clip, 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("0600", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(expectMode(clip, 0o600), mock.ExpectClipDownloads(1)),
			},
			{
				// A new max_size_bytes only concerns later downloads: state changes, the file does not.
				Config: config("0600", "max_size_bytes = 1048576"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("max_size_bytes"), knownvalue.Int64Exact(1<<20)),
				},
				Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), mock.ExpectClipDownloads(1)),
			},
		},
		CheckDestroy: expectNoFile(clip),
	})
}

// Deleting the file makes the plan download it again: only the file resource is
// planned, and the ledger shows no new submission. An edited file is left as it
// is (the plan warns and plans nothing, so that neither apply nor destroy is
// blocked); with overwrite the plan downloads the clip over it in place.
func TestAccVideoFileResource_deletedOrModifiedFileIsDownloadedAgain(t *testing.T) {
	mock := acctest.NewMock(t, withClipBytes)
	dir := t.TempDir()
	clip := filepath.Join(dir, "clip.mp4")
	config := mock.VideoFileConfig("a red kite over the sea", clip, "")
	overwrite := mock.VideoFileConfig("a red kite over the sea", clip, "  overwrite = true")
	redownload := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionCreate),
			plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionNoop),
		},
	}
	replaceInPlace := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionUpdate),
			plancheck.ExpectUnknownValue(fileAddr, tfjsonpath.New("sha256")),
			plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionNoop),
		},
	}
	tamper := func() {
		f, err := os.OpenFile(clip, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte("tampered"), 1<<20); err != nil {
			t.Fatal(err)
		}
	}
	var tampered string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), mock.ExpectSubmissions(1), mock.ExpectClipDownloads(1)),
			},
			{
				PreConfig: func() {
					if err := os.Remove(clip); err != nil {
						t.Fatal(err)
					}
				},
				Config:           config,
				ConfigPlanChecks: redownload,
				Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), mock.ExpectSubmissions(1),
					mock.ExpectClipDownloads(2), expectOnly(dir, "clip.mp4")),
			},
			{
				// Same size, different bytes: only the checksum can tell, and the
				// edit is not the provider's to undo.
				PreConfig: func() {
					tamper()
					tampered = acctest.SHA256File(t, clip)
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					if got := acctest.SHA256File(t, clip); got != tampered {
						return fmt.Errorf("the edited file was changed by the apply")
					}
					return mock.ExpectClipDownloads(2)(nil)
				},
			},
			{
				Config:           overwrite,
				ConfigPlanChecks: replaceInPlace,
				Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), mock.ExpectSubmissions(1),
					mock.ExpectClipDownloads(3), expectOnly(dir, "clip.mp4")),
			},
			{
				// A truncated file is caught by its size alone.
				PreConfig: func() {
					if err := os.Truncate(clip, 1000); err != nil {
						t.Fatal(err)
					}
				},
				Config:           overwrite,
				ConfigPlanChecks: replaceInPlace,
				Check:            resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), mock.ExpectSubmissions(1)),
			},
			{
				// Edited again, with overwrite set back to false: only that
				// changes, and the edit stays, here and on destroy (below).
				PreConfig: func() {
					tamper()
					tampered = acctest.SHA256File(t, clip)
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(fileAddr, tfjsonpath.New("sha256"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
					},
				},
				Check: resource.ComposeTestCheckFunc(mock.ExpectClipDownloads(4), func(*terraform.State) error {
					if got := acctest.SHA256File(t, clip); got != tampered {
						return fmt.Errorf("the apply changed the edited file")
					}
					return nil
				}),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if err := expectFileExists(clip); err != nil {
				return err
			}
			if got := acctest.SHA256File(t, clip); got != tampered {
				return fmt.Errorf("destroy changed the edited file")
			}
			return nil
		},
	})
}

func expectFileExists(p string) error {
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is %v, want a regular file", p, info.Mode())
	}
	return nil
}

// A file the provider did not write survives an apply: the plan fails naming the
// path before anything is submitted or downloaded. overwrite = true replaces it.
func TestAccVideoFileResource_neverOverwritesUnmanagedFile(t *testing.T) {
	mock := acctest.NewMock(t)
	dir := t.TempDir()
	clip := filepath.Join(dir, "teaser.mp4")
	const master = "designer's hand-edited master\n"
	if err := os.WriteFile(clip, []byte(master), 0o600); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: mock.VideoFileConfig("a teaser", clip, ""),
				ExpectError: acctest.Wrapped("Video File Path Already Taken", "There is already a file at", clip,
					"did not write", "import", "overwrite = true"),
			},
			{
				PreConfig: func() {
					if data, err := os.ReadFile(clip); err != nil || string(data) != master {
						t.Fatalf("the master now holds %q (%v)", data, err)
					}
					if n, d := mock.Submissions(), mock.ClipDownloads(); n != 0 || d != 0 {
						t.Fatalf("the refused plan made %d submission(s) and %d download(s)", n, d)
					}
				},
				Config: mock.VideoFileConfig("a teaser", clip, "  overwrite = true"),
				Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), mock.ExpectSubmissions(1),
					mock.ExpectClipDownloads(1), expectOnly(dir, "teaser.mp4")),
			},
		},
	})
}

// A path known only at apply is checked there: a file in the way is refused
// before the download, and survives.
func TestAccVideoFileResource_fileInTheWayAtApply(t *testing.T) {
	mock := acctest.NewMock(t)
	clip := filepath.Join(t.TempDir(), "teaser.mp4")
	if err := os.WriteFile(clip, []byte("a master"), 0o600); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		// terraform_data arrived in Terraform 1.4.
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_4_0)},
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock() + fmt.Sprintf(`
resource "terraform_data" "path" {
  input = %q
}

resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "a path known only after apply"
}

resource "videogen_video_file" "test" {
  task_id = videogen_video.test.task_id
  path    = terraform_data.path.output
}
`, clip),
			ExpectError: acctest.Wrapped("Video File Path Already Taken", "There is already a file at", clip, "overwrite = true"),
		}},
	})
	checkAfter(t, mock.ExpectSubmissions(1), mock.ExpectClipDownloads(0), func(*terraform.State) error {
		if data, err := os.ReadFile(clip); err != nil || string(data) != "a master" {
			return fmt.Errorf("the file in the way now holds %q (%w)", data, err)
		}
		return nil
	})
}

// A symbolic link in the way is refused like a file; with overwrite the link
// itself is replaced and what it points at is left as it is.
func TestAccVideoFileResource_symlinkInTheWay(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	mock := acctest.NewMock(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "master.mp4")
	if err := os.WriteFile(target, []byte("the master"), 0o600); err != nil {
		t.Fatal(err)
	}
	clip := filepath.Join(dir, "teaser.mp4")
	if err := os.Symlink(target, clip); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      mock.VideoFileConfig("a linked teaser", clip, ""),
				ExpectError: acctest.Wrapped("Video File Path Already Taken", "a symbolic link at", clip, "overwrite = true"),
			},
			{
				Config: mock.VideoFileConfig("a linked teaser", clip, "  overwrite = true"),
				Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), mock.ExpectClipDownloads(1),
					mock.ExpectSubmissions(1),
					func(*terraform.State) error {
						if data, err := os.ReadFile(target); err != nil || string(data) != "the master" {
							return fmt.Errorf("the link's target now holds %q (%w)", data, err)
						}
						return expectFileExists(clip)
					}),
			},
		},
	})
}

// Two resources given one file, in two spellings, fail the plan: nothing is
// submitted or downloaded. Before, the second one failed at apply, after both
// clips were generated.
func TestAccVideoFileResource_onePathTwiceFailsThePlan(t *testing.T) {
	mock := acctest.NewMock(t)
	dir := t.TempDir()
	one, again := filepath.Join(dir, "out", "clip.mp4"), dir+"/out/../out//clip.mp4"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "one" {
  model  = "videogen-1"
  prompt = "one"
}
resource "videogen_video" "two" {
  model  = "videogen-1"
  prompt = "two"
}
resource "videogen_video_file" "one" {
  task_id = videogen_video.one.task_id
  path    = %q
}
resource "videogen_video_file" "two" {
  task_id = videogen_video.two.task_id
  path    = %q
}
`, one, again),
			ExpectError: acctest.Wrapped("Video File Path Used Twice", "Another videogen_video_file", one, "Give each resource its own path"),
		}},
	})
	checkAfter(t, mock.ExpectSubmissions(0), mock.ExpectClipDownloads(0))
}

// A new resource adopts nothing: a byte-identical copy of its clip already at its
// path is in the way like any file, as the resource page says (adoption is for a
// replacement that moves the clip, and for import).
func TestAccVideoFileResource_newResourceDoesNotAdoptACopy(t *testing.T) {
	mock := acctest.NewMock(t)
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	videoOnly := mock.ProviderBlock() + `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "copied before its file resource"
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: videoOnly, Check: mock.ExpectSubmissions(1)},
			{
				PreConfig: func() {
					want, err := mock.ReferenceClip(mock.Ledger().Tasks[0].TaskID)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(clip, want.Data, 0o600); err != nil {
						t.Fatal(err)
					}
				},
				Config: mock.VideoFileConfig("copied before its file resource", clip, ""),
				// The hint names the clip's task and the path, in the ID an import takes,
				// and points at the address Terraform prints with the error.
				ExpectError: regexp.MustCompile(`(?s)Video File Path Already Taken.*with videogen_video_file\.test,.*` +
					acctest.Wrapped("There is already a file at", clip, "import this resource, at the address shown after "+
						`"with" above, with ID "`).String()[len("(?s)"):] + `task_[0-9a-f]{32},` + regexp.QuoteMeta(clip) + `"`),
			},
			{
				// The hint's ID imports the file as it is.
				Config:            mock.VideoFileConfig("copied before its file resource", clip, ""),
				ResourceName:      "videogen_video_file.test",
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return mock.Ledger().Tasks[0].TaskID + "," + clip, nil },
			},
		},
	})
	checkAfter(t, mock.ExpectSubmissions(1), mock.ExpectClipDownloads(0))
}

// A file that already holds the clip is adopted without downloading: here the
// clip moves to a new path where a copy of it already is.
func TestAccVideoFileResource_fileHoldingClipIsAdopted(t *testing.T) {
	mock := acctest.NewMock(t)
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.mp4"), filepath.Join(dir, "second.mp4")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: mock.VideoFileConfig("copied by hand", first, ""),
				Check:  resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, first), mock.ExpectClipDownloads(1)),
			},
			{
				// The clip's bytes, put at the new path by hand.
				PreConfig: func() {
					taskID := mock.Ledger().Tasks[0].TaskID
					want, err := mock.ReferenceClip(taskID)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(second, want.Data, 0o600); err != nil {
						t.Fatal(err)
					}
				},
				Config: mock.VideoFileConfig("copied by hand", second, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionReplace),
						plancheck.ExpectKnownValue(fileAddr, tfjsonpath.New("sha256"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
					},
				},
				Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, second), mock.ExpectClipDownloads(1),
					mock.ExpectSubmissions(1), expectNoFile(first), expectMode(second, 0o644)),
			},
			{
				// A tainted file is its own: deleted, then downloaded again.
				Taint:  []string{fileAddr},
				Config: mock.VideoFileConfig("copied by hand", second, ""),
				Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, second), mock.ExpectClipDownloads(2),
					mock.ExpectSubmissions(1)),
			},
			{
				// A new clip at the same path replaces the old one, which was the
				// replaced resource's own file.
				Config: mock.VideoFileConfig("a new clip at the same path", second, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionReplace)},
				},
				Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, second), mock.ExpectClipDownloads(3),
					mock.ExpectSubmissions(2), expectOnly(dir, "second.mp4")),
			},
		},
	})
}

// A fresh CI runner has the state (from its remote backend) and nothing else.
// Within one test case the working directory and its state persist across
// steps, so the runner is simulated by deleting the whole output tree, parent
// directories included, before the next plan: the provider sees exactly what
// it would see on a new machine. Every Terraform command starts a new provider
// instance, so nothing survives in memory either.
func TestAccVideoFileResource_freshRunnerDownloadsWithoutSubmitting(t *testing.T) {
	t.Parallel()
	for _, dialect := range throughEachAPI {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			workspace := filepath.Join(t.TempDir(), "workspace")
			clip := filepath.Join(workspace, "build", "assets", "clip.mp4")
			config := mock.VideoFileConfig("a paper boat", clip, "")
			sha := statecheck.CompareValue(compare.ValuesSame())
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						Config:            config,
						ConfigStateChecks: []statecheck.StateCheck{sha.AddStateValue(fileAddr, tfjsonpath.New("sha256"))},
						Check:             resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), mock.ExpectSubmissions(1)),
					},
					{
						PreConfig: func() {
							if err := os.RemoveAll(workspace); err != nil {
								t.Fatal(err)
							}
						},
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{
								plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionCreate),
								plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionNoop),
							},
						},
						ConfigStateChecks: []statecheck.StateCheck{sha.AddStateValue(fileAddr, tfjsonpath.New("sha256"))},
						Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), mock.ExpectSubmissions(1),
							mock.ExpectClipDownloads(2*mock.DownloadsPerFile())),
					},
					{
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
					},
				},
			})
		})
	}
}

func TestAccVideoFileResource_htmlInsteadOfMP4(t *testing.T) {
	mock := acctest.NewMock(t)
	dir := filepath.Join(t.TempDir(), "out")
	clip := filepath.Join(dir, "clip.mp4")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      mock.VideoFileConfig("a CDN that answers with a login page [mock:html]", clip, ""),
			ExpectError: regexp.MustCompile(`(?s)Downloaded File Is Not an MP4 Video.*nothing was written.*text/html`),
		}},
	})
	checkAfter(t, expectOnly(dir), mock.ExpectSubmissions(1))
}

// A clip larger than max_size_bytes is refused (the mock announces its size, so
// before anything is written) and leaves no file.
func TestAccVideoFileResource_tooLarge(t *testing.T) {
	t.Parallel()
	for _, dialect := range throughEachAPI {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, withClipBytes, mockapi.WithDialect(dialect))
			dir := t.TempDir()
			clip := filepath.Join(dir, "clip.mp4")
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      mock.VideoFileConfig("a long, long clip", clip, fmt.Sprintf("  max_size_bytes = %d", testClipBytes-1)),
					ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)Video File Too Large.*max_size_bytes\s+\(%d\s+bytes\).*nothing\s+was\s+written`, testClipBytes-1)),
				}},
			})
			checkAfter(t, expectOnly(dir), mock.ExpectSubmissions(1), mock.ExpectClipDownloads(mock.DownloadsPerFile()))
		})
	}
}

// newExpiringMock serves the mock through a hook that revokes every clip URL
// just before the next expireNext clip downloads: the URL the provider just
// read from the task is then refused with 403, as an expired signed URL is.
func newExpiringMock(t *testing.T) (*acctest.Mock, *atomic.Int32) {
	t.Helper()
	inner := acctest.NewMock(t)
	var expireNext atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only whole downloads count: a refresh's probe of whether the clip
		// still serves (a HEAD, or a GET of one byte) must not use them up.
		download := r.Method == http.MethodGet && r.Header.Get("Range") == ""
		if !strings.HasPrefix(r.URL.Path, "/v1/") && download && expireNext.Add(-1) >= 0 {
			inner.ExpireURLs()
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	// A copy of the mock, so that its provider block keeps the test's journal.
	front := *inner
	front.URL = ts.URL
	return &front, &expireNext
}

func TestAccVideoFileResource_expiredURLIsRefreshed(t *testing.T) {
	mock, expireNext := newExpiringMock(t)
	dir := t.TempDir()
	clip := filepath.Join(dir, "clip.mp4")
	config := mock.VideoFileConfig("a clip behind a short-lived URL", clip, "")
	forbidden := func(want int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if got := mock.Ledger().Responses["403"]; got != want {
				return fmt.Errorf("the mock answered 403 %d time(s), want %d", got, want)
			}
			return nil
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// The URL expires between the provider's GET of the task and its download.
				PreConfig: func() { expireNext.Store(1) },
				Config:    config,
				Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), forbidden(1),
					mock.ExpectClipDownloads(2), mock.ExpectSubmissions(1)),
			},
			{
				// URLs revoked between runs, file gone: the re-download reads a fresh URL.
				PreConfig: func() {
					mock.ExpireURLs()
					if err := os.Remove(clip); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				// Only a fresh URL avoids another 403.
				Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, clip), forbidden(1), mock.ExpectSubmissions(1)),
			},
			{
				// A URL refused again after the refresh is an error, and leaves no file.
				PreConfig: func() {
					expireNext.Store(2)
					if err := os.Remove(clip); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)Clip Download Refused.*fresh URL.*SignatureDoesNotMatch`),
			},
		},
	})
	checkAfter(t, expectOnly(dir), mock.ExpectSubmissions(1))
}

// unfinishedConfig is a clip that Terraform does not wait for, held by the mock
// until the test releases it, and its file.
func unfinishedConfig(mock *acctest.Mock, clip, extra string) string {
	return mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
  model               = "videogen-1"
  prompt              = "a clip that takes its time [mock:hold]"
  wait_for_completion = false
}

resource "videogen_video_file" "test" {
  task_id = videogen_video.test.task_id
  path    = %q
%s
}
`, clip, extra)
}

// releaseWhileWaiting waits, in the background, until the file resource has read
// the held task twice (once to find it unfinished, once polling), then releases
// it with release. The returned check reports what happened.
func releaseWhileWaiting(t *testing.T, mock *acctest.Mock, release func(id string) bool) resource.TestCheckFunc {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		ctx := t.Context()
		if err := mock.AwaitTasks(ctx, 1); err != nil {
			done <- err
			return
		}
		id := mock.Ledger().Tasks[0].TaskID
		if err := mock.AwaitGets(ctx, id, 2); err != nil {
			done <- err
			return
		}
		if !release(id) {
			done <- fmt.Errorf("task %s was not pending when the test released it", id)
			return
		}
		done <- nil
	}()
	return func(*terraform.State) error {
		// The apply that this check follows needed the release, but the
		// goroutine may not have reported it yet: wait for its word, within a
		// liveness bound, not a timing assertion.
		select {
		case err := <-done:
			return err
		case <-time.After(2 * time.Minute):
			return fmt.Errorf("the held task was never released")
		}
	}
}

// A file of a clip made with wait_for_completion = false waits for the clip
// with its own timeout instead of failing, and downloads it once it is done.
func TestAccVideoFileResource_waitsForUnfinishedTask(t *testing.T) {
	t.Parallel()
	for _, dialect := range throughEachAPI {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			clip := filepath.Join(t.TempDir(), "clip.mp4")
			var released resource.TestCheckFunc
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					PreConfig: func() { released = releaseWhileWaiting(t, mock, mock.FinishTask) },
					Config:    unfinishedConfig(mock, clip, ""),
					Check: resource.ComposeTestCheckFunc(
						func(s *terraform.State) error { return released(s) },
						mock.ExpectFileMatchesClip(t, clip),
						mock.ExpectSubmissions(1),
						mock.ExpectClipDownloads(mock.DownloadsPerFile()),
					),
				}},
			})
		})
	}
}

func TestAccVideoFileResource_unfinishedTaskFailsWhileWaiting(t *testing.T) {
	mock := acctest.NewMock(t)
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				releaseWhileWaiting(t, mock, func(id string) bool { return mock.FailTask(id, "content policy") })
			},
			Config:      unfinishedConfig(mock, clip, ""),
			ExpectError: regexp.MustCompile(`(?s)Video Not Downloadable.*status\s+"failed"\s+\(content\s+policy`),
		}},
	})
	checkAfter(t, expectNoFile(clip), mock.ExpectSubmissions(1), mock.ExpectClipDownloads(0))
}

// A task that never finishes ends the wait at timeouts.create, with nothing
// downloaded and nothing resubmitted. The held task cannot finish, so the
// outcome does not depend on timing.
func TestAccVideoFileResource_unfinishedTaskTimesOut(t *testing.T) {
	mock := acctest.NewMock(t)
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: unfinishedConfig(mock, clip, `
  timeouts {
    create = "1s"
  }`),
			ExpectError: regexp.MustCompile(`(?s)Video Not Ready.*still\s+"(submitted|running)".*timeouts.create.*is\s+1s.*apply\s+again\s+to\s+keep\s+waiting`),
		}},
	})
	checkAfter(t, expectNoFile(clip), mock.ExpectSubmissions(1), mock.ExpectClipDownloads(0))
}

// A path that cannot receive the file fails at plan, before any clip is
// generated, when the path is known at plan.
func TestAccVideoFileResource_unusablePathFailsAtPlan(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t)
	dir := t.TempDir()
	blocker := filepath.Join(dir, "a-file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ path, want string }{
		"existing_directory": {dir, `existing\s+directory`},
		"file_in_the_way":    {filepath.Join(blocker, "clip.mp4"), `not\s+a\s+directory`},
	}
	if runtime.GOOS == "linux" {
		// /proc refuses new files even to root, who may write into any 0555 directory.
		cases["unwritable_directory"] = struct{ path, want string }{"/proc/self/clip.mp4", `can\s+be\s+created\s+in\s+/proc/self`}
	}
	if os.Geteuid() != 0 && runtime.GOOS != "windows" {
		readOnly := filepath.Join(dir, "read-only")
		if err := os.Mkdir(readOnly, 0o555); err != nil {
			t.Fatal(err)
		}
		cases["read_only_directory"] = struct{ path, want string }{filepath.Join(readOnly, "out", "clip.mp4"), `permission\s+denied`}
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      mock.VideoFileConfig("never submitted", tc.path, ""),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`(?s)Unusable Video File Path.*with\s+videogen_video_file.test.*` + tc.want),
				}},
			})
		})
	}
	t.Cleanup(func() { checkAfter(t, mock.ExpectSubmissions(0)) })
}

// A path that is only known at apply is checked there, before the download: the
// clip is generated (its path depends on it), but nothing is downloaded.
func TestAccVideoFileResource_unusablePathFailsBeforeDownload(t *testing.T) {
	mock := acctest.NewMock(t)
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "a path known only after apply"
}

resource "videogen_video_file" "test" {
  task_id = videogen_video.test.task_id
  path    = "%s/${videogen_video.test.task_id}.mp4"
}
`, blocker),
			ExpectError: regexp.MustCompile(`(?s)Unusable Video File Path.*nothing\s+was\s+downloaded.*not\s+a\s+directory`),
		}},
	})
	checkAfter(t, mock.ExpectSubmissions(1), mock.ExpectClipDownloads(0))
}

func TestAccVideoFileResource_invalidPermissions(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t)
	for name, tc := range map[string]struct{ extra, want string }{
		"not_octal":            {`file_permission = "rw-r--r--"`, `(?s)Invalid Permission.*file_permission.*octal`},
		"setuid":               {`file_permission = "4755"`, `(?s)Invalid Permission.*file_permission.*octal`},
		"unreadable_file":      {`file_permission = "0200"`, `(?s)Invalid Permission.*file_permission.*0400`},
		"unwritable_directory": {`directory_permission = "0555"`, `(?s)Invalid Permission.*directory_permission.*0700`},
		"zero_max_size":        {`max_size_bytes = 0`, `(?s)max_size_bytes.*at least 1`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      mock.VideoFileConfig("never submitted", filepath.Join(t.TempDir(), "clip.mp4"), tc.extra),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
	t.Cleanup(func() { checkAfter(t, mock.ExpectSubmissions(0)) })
}

// Import adopts a file that is already on disk: nothing is downloaded or submitted,
// and the imported state matches what a download recorded.
func TestAccVideoFileResource_importAdoptsExistingFile(t *testing.T) {
	t.Parallel()
	for _, dialect := range throughEachAPI {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			dir := t.TempDir()
			clip := filepath.Join(dir, "teaser.mp4")
			config := mock.VideoFileConfig("import me", clip, "")
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{Config: config, Check: mock.ExpectClipDownloads(mock.DownloadsPerFile())},
					{
						ResourceName: fileAddr,
						ImportState:  true,
						ImportStateIdFunc: func(s *terraform.State) (string, error) {
							return s.RootModule().Resources[videoAddr].Primary.ID + "," + clip, nil
						},
						ImportStateVerify: true,
						// An import reads no videogen_video, and a local file
						// does not name its model.
						ImportStateVerifyIgnore: []string{"model"},
						ImportStateCheck: func([]*terraform.InstanceState) error {
							if err := mock.ExpectClipDownloads(mock.DownloadsPerFile())(nil); err != nil {
								return fmt.Errorf("import downloaded the clip again: %w", err)
							}
							return mock.ExpectSubmissions(1)(nil)
						},
					},
					{
						PreConfig: func() {
							if err := os.WriteFile(filepath.Join(dir, "page.mp4"), []byte("<html>expired</html>"), 0o600); err != nil {
								t.Fatal(err)
							}
						},
						ResourceName: fileAddr,
						ImportState:  true,
						ImportStateIdFunc: func(s *terraform.State) (string, error) {
							return s.RootModule().Resources[videoAddr].Primary.ID + "," + filepath.Join(dir, "page.mp4"), nil
						},
						ExpectError: regexp.MustCompile(`(?s)Unable to Import Video File.*is\s+not\s+an\s+MP4\s+video\s+clip`),
					},
					{
						ResourceName:  fileAddr,
						ImportState:   true,
						ImportStateId: "task_without_path",
						ExpectError:   regexp.MustCompile(`(?s)Invalid Import ID.*<task_id>,<path>`),
					},
				},
			})
		})
	}
}

// Paths compare as paths: a file imported under one spelling of its path and
// configured under another plans nothing, and is not downloaded. Relative paths
// are relative to the provider's working directory, which in these tests is the
// package directory, so the relative spellings climb out of it to the test's
// temporary directory.
func TestAccVideoFileResource_pathSpellingsNameOneFile(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	spell := func(abs string) (rel, dotRel string) {
		rel, err := filepath.Rel(wd, abs)
		if err != nil {
			t.Fatal(err)
		}
		return rel, "./" + filepath.ToSlash(rel)
	}
	for name, pick := range map[string]func(abs, rel, dotRel string) (imported, configured string){
		"imported_relative_configured_dot_relative": func(_, rel, dotRel string) (string, string) { return rel, dotRel },
		"imported_absolute_configured_relative":     func(abs, rel, _ string) (string, string) { return abs, rel },
		"imported_dot_relative_configured_absolute": func(abs, _, dotRel string) (string, string) { return dotRel, abs },
	} {
		t.Run(name, func(t *testing.T) {
			mock := acctest.NewMock(t)
			abs := filepath.Join(t.TempDir(), "out", "teaser.mp4")
			rel, dotRel := spell(abs)
			imported, configured := pick(abs, rel, dotRel)
			videoOnly := mock.ProviderBlock() + `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "one file, three spellings"
}
`
			config := mock.VideoFileConfig("one file, three spellings", configured, `  file_permission = "0600"`)
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						// The clip, downloaded earlier by other means.
						Config: videoOnly,
						Check: func(s *terraform.State) error {
							want, err := mock.ReferenceClip(s.RootModule().Resources[videoAddr].Primary.ID)
							if err != nil {
								return err
							}
							if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
								return err
							}
							return os.WriteFile(abs, want.Data, 0o600)
						},
					},
					{
						Config:             config,
						ResourceName:       fileAddr,
						ImportState:        true,
						ImportStatePersist: true,
						ImportStateIdFunc: func(s *terraform.State) (string, error) {
							return s.RootModule().Resources[videoAddr].Primary.ID + "," + imported, nil
						},
					},
					{
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						ConfigStateChecks: []statecheck.StateCheck{
							// The spelling in state stays the imported one: nothing was replaced.
							statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("path"), knownvalue.StringExact(imported)),
						},
						Check: resource.ComposeTestCheckFunc(mock.ExpectFileMatchesClip(t, abs),
							mock.ExpectClipDownloads(0), mock.ExpectSubmissions(1)),
					},
				},
			})
		})
	}
}
