package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

const (
	fileAddr      = "videogen_video_file.test"
	testClipBytes = 3<<20 + 17 // several copy buffers, and not a round number
)

// videoFileConfig is a clip and its file; extra goes into the file resource.
func videoFileConfig(mock *testMock, prompt, filePath, extra string) string {
	return mock.providerBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = %[1]q
}

resource "videogen_video_file" "test" {
  task_id = videogen_video.test.task_id
  path    = %[2]q
%[3]s
}
`, prompt, filePath, extra)
}

func sha256File(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatalf("opening %s: %v", p, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatalf("reading %s: %v", p, err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// referenceClip is the SHA-256 and size of the clip a mock configured like this
// serves, fetched by the test itself from a separate mock instance (so that the
// ledger of the mock under test counts only the provider's requests).
type referenceClip struct {
	sha256 string
	size   int64
}

func fetchReferenceClip(t *testing.T, configure ...func(*mockapi.Config)) referenceClip {
	t.Helper()
	ref := newTestMock(t, configure...)
	var task struct {
		TaskID string `json:"task_id"`
		URL    string `json:"url"`
	}
	// call sends one request; with decode it reads the task JSON, otherwise it hashes the body.
	h := sha256.New()
	var n int64
	call := func(method, url, body string, decode bool) {
		req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+mockapi.DefaultAPIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: HTTP %d", method, url, resp.StatusCode)
		}
		if decode {
			err = json.NewDecoder(resp.Body).Decode(&task)
		} else {
			n, err = io.Copy(h, resp.Body)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	call(http.MethodPost, ref.URL+"/v1/video/generations", `{"model":"videogen-1","prompt":"reference"}`, true)
	call(http.MethodGet, ref.URL+"/v1/video/generations/"+task.TaskID, "", true)
	call(http.MethodGet, task.URL, "", false)
	return referenceClip{sha256: hex.EncodeToString(h.Sum(nil)), size: n}
}

// expectFileMatchesClip checks the file on disk and the state against the
// reference clip.
func expectFileMatchesClip(t *testing.T, p string, want referenceClip) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		attrs := s.RootModule().Resources[fileAddr].Primary.Attributes
		if got := sha256File(t, p); got != want.sha256 {
			return fmt.Errorf("the file's sha256 is %s, the clip's is %s", got, want.sha256)
		}
		if attrs["sha256"] != want.sha256 {
			return fmt.Errorf("state says sha256 %s, the clip's is %s", attrs["sha256"], want.sha256)
		}
		if attrs["size_bytes"] != fmt.Sprint(want.size) {
			return fmt.Errorf("state says size_bytes %s, the clip has %d bytes", attrs["size_bytes"], want.size)
		}
		return nil
	}
}

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

func expectClipDownloads(mock *testMock, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := mock.Ledger().Requests["GET /_mock/clips"]; got != want {
			return fmt.Errorf("the mock served %d clip download(s), want %d", got, want)
		}
		return nil
	}
}

func withClipBytes(cfg *mockapi.Config) { cfg.ClipBytes = testClipBytes }

func TestAccVideoFileResource_downloadPermissionsAndDestroy(t *testing.T) {
	mock := newTestMock(t, withClipBytes)
	want := fetchReferenceClip(t, withClipBytes)
	root := t.TempDir()
	if err := os.Chmod(root, 0o711); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "out", "clips")
	clip := filepath.Join(dir, "teaser.mp4")
	config := func(filePerm string) string {
		return videoFileConfig(mock, "a lighthouse at dusk", clip, fmt.Sprintf(`
  file_permission      = %q
  directory_permission = "0750"`, filePerm))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("0640"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("id"), knownvalue.StringExact(clip)),
					statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("size_bytes"), knownvalue.Int64Exact(testClipBytes)),
					statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("sha256"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
					statecheck.ExpectKnownValue(fileAddr, tfjsonpath.New("source_url"),
						knownvalue.StringRegexp(regexp.MustCompile(`^http://127\.0\.0\.1:\d+/.+\.mp4\?`))),
					statecheck.CompareValuePairs(fileAddr, tfjsonpath.New("task_id"), videoAddr, tfjsonpath.New("task_id"), compare.ValuesSame()),
				},
				Check: resource.ComposeTestCheckFunc(
					expectFileMatchesClip(t, clip, want),
					expectOnly(dir, "teaser.mp4"),
					expectMode(clip, 0o640),
					expectMode(dir, 0o750),
					expectMode(filepath.Dir(dir), 0o750),
					expectMode(root, 0o711), // existing directories are left alone
					mock.expectSubmissions(1),
				),
			},
			{
				Config: config("0640"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// A new file_permission is applied in place, without a download.
				Config: config("0600"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionNoop),
					},
				},
				Check: resource.ComposeTestCheckFunc(expectMode(clip, 0o600), expectClipDownloads(mock, 1)),
			},
			{
				// A chmod outside Terraform shows as drift and is put back in place.
				PreConfig: func() {
					if err := os.Chmod(clip, 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("0600"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(expectMode(clip, 0o600), expectClipDownloads(mock, 1)),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if _, err := os.Stat(clip); err == nil {
				return fmt.Errorf("destroy left %s behind", clip)
			} else if !os.IsNotExist(err) {
				return err
			}
			return nil
		},
	})
}

// Deleting or editing the file makes the plan download it again: only the file
// resource is planned, and the ledger shows no new submission.
func TestAccVideoFileResource_deletedOrModifiedFileIsDownloadedAgain(t *testing.T) {
	mock := newTestMock(t, withClipBytes)
	want := fetchReferenceClip(t, withClipBytes)
	dir := t.TempDir()
	clip := filepath.Join(dir, "clip.mp4")
	config := videoFileConfig(mock, "a red kite over the sea", clip, "")
	redownload := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(fileAddr, plancheck.ResourceActionCreate),
			plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionNoop),
		},
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  resource.ComposeTestCheckFunc(expectFileMatchesClip(t, clip, want), mock.expectSubmissions(1), expectClipDownloads(mock, 1)),
			},
			{
				PreConfig: func() {
					if err := os.Remove(clip); err != nil {
						t.Fatal(err)
					}
				},
				Config:           config,
				ConfigPlanChecks: redownload,
				Check: resource.ComposeTestCheckFunc(expectFileMatchesClip(t, clip, want), mock.expectSubmissions(1),
					expectClipDownloads(mock, 2), expectOnly(dir, "clip.mp4")),
			},
			{
				// Same size, different bytes: only the checksum can tell.
				PreConfig: func() {
					f, err := os.OpenFile(clip, os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					if _, err := f.WriteAt([]byte("tampered"), 1<<20); err != nil {
						t.Fatal(err)
					}
				},
				Config:           config,
				ConfigPlanChecks: redownload,
				Check: resource.ComposeTestCheckFunc(expectFileMatchesClip(t, clip, want), mock.expectSubmissions(1),
					expectClipDownloads(mock, 3)),
			},
			{
				// A truncated file is caught by its size alone.
				PreConfig: func() {
					if err := os.Truncate(clip, 1000); err != nil {
						t.Fatal(err)
					}
				},
				Config:           config,
				ConfigPlanChecks: redownload,
				Check:            resource.ComposeTestCheckFunc(expectFileMatchesClip(t, clip, want), mock.expectSubmissions(1)),
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
	mock := newTestMock(t)
	want := fetchReferenceClip(t)
	workspace := filepath.Join(t.TempDir(), "workspace")
	clip := filepath.Join(workspace, "build", "assets", "clip.mp4")
	config := videoFileConfig(mock, "a paper boat", clip, "")
	var firstSHA string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(
					expectFileMatchesClip(t, clip, want),
					mock.expectSubmissions(1),
					func(s *terraform.State) error {
						firstSHA = s.RootModule().Resources[fileAddr].Primary.Attributes["sha256"]
						return nil
					},
				),
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
				Check: resource.ComposeTestCheckFunc(
					expectFileMatchesClip(t, clip, want),
					mock.expectSubmissions(1),
					expectClipDownloads(mock, 2),
					func(s *terraform.State) error {
						if got := s.RootModule().Resources[fileAddr].Primary.Attributes["sha256"]; got != firstSHA {
							return fmt.Errorf("the re-downloaded file's sha256 %s differs from the first %s", got, firstSHA)
						}
						return nil
					},
				),
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

func TestAccVideoFileResource_htmlInsteadOfMP4(t *testing.T) {
	mock := newTestMock(t)
	dir := filepath.Join(t.TempDir(), "out")
	clip := filepath.Join(dir, "clip.mp4")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      videoFileConfig(mock, "a CDN that answers with a login page [mock:html]", clip, ""),
			ExpectError: regexp.MustCompile(`(?s)Downloaded File Is Not an MP4 Video.*nothing was written.*text/html`),
		}},
	})
	if err := expectOnly(dir)(nil); err != nil {
		t.Error(err)
	}
	if n := mock.submissions(); n != 1 {
		t.Errorf("%d submissions, want 1", n)
	}
}

// newExpiringMock serves the mock through a hook that revokes every clip URL
// just before the next expireNext clip downloads: the URL the provider just
// read from the task is then refused with 403, as an expired signed URL is.
func newExpiringMock(t *testing.T) (*testMock, *atomic.Int32) {
	t.Helper()
	cfg := mockapi.DefaultConfig()
	cfg.TaskDuration = mockapi.Duration(0)
	srv, err := mockapi.New(cfg)
	if err != nil {
		t.Fatalf("starting mock: %v", err)
	}
	var expireNext atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/v1/") && expireNext.Add(-1) >= 0 {
			srv.ExpireURLs()
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	return &testMock{Server: srv, URL: ts.URL}, &expireNext
}

func TestAccVideoFileResource_expiredURLIsRefreshed(t *testing.T) {
	mock, expireNext := newExpiringMock(t)
	want := fetchReferenceClip(t)
	dir := t.TempDir()
	clip := filepath.Join(dir, "clip.mp4")
	config := videoFileConfig(mock, "a clip behind a short-lived URL", clip, "")
	forbidden := func(want int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if got := mock.Ledger().Responses["403"]; got != want {
				return fmt.Errorf("the mock answered 403 %d time(s), want %d", got, want)
			}
			return nil
		}
	}
	sourceURLs := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// The URL expires between the provider's GET of the task and its download.
				PreConfig: func() { expireNext.Store(1) },
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{
					sourceURLs.AddStateValue(fileAddr, tfjsonpath.New("source_url")),
				},
				Check: resource.ComposeTestCheckFunc(expectFileMatchesClip(t, clip, want), forbidden(1),
					expectClipDownloads(mock, 2), mock.expectSubmissions(1)),
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
				ConfigStateChecks: []statecheck.StateCheck{
					sourceURLs.AddStateValue(fileAddr, tfjsonpath.New("source_url")),
				},
				Check: resource.ComposeTestCheckFunc(expectFileMatchesClip(t, clip, want), forbidden(1), mock.expectSubmissions(1)),
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
	if err := expectOnly(dir)(nil); err != nil {
		t.Error(err)
	}
	if n := mock.submissions(); n != 1 {
		t.Errorf("%d submissions, want 1", n)
	}
}

func TestAccVideoFileResource_taskNotSucceeded(t *testing.T) {
	mock := newTestMock(t)
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: mock.providerBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
  model               = "videogen-1"
  prompt              = "a slow one [mock:duration=10m]"
  wait_for_completion = false
}

resource "videogen_video_file" "test" {
  task_id = videogen_video.test.task_id
  path    = %q
}
`, clip),
			ExpectError: regexp.MustCompile(`(?s)Video Not Downloadable.*status "(submitted|running)".*wait_for_completion`),
		}},
	})
	if _, err := os.Stat(clip); !os.IsNotExist(err) {
		t.Errorf("a file was written for an unfinished task (stat: %v)", err)
	}
}

func TestAccVideoFileResource_invalidPermissions(t *testing.T) {
	mock := newTestMock(t)
	for name, tc := range map[string]struct{ extra, want string }{
		"not_octal":            {`file_permission = "rw-r--r--"`, `(?s)Invalid Permission.*file_permission.*octal`},
		"setuid":               {`file_permission = "4755"`, `(?s)Invalid Permission.*file_permission.*octal`},
		"unreadable_file":      {`file_permission = "0200"`, `(?s)Invalid Permission.*file_permission.*0400`},
		"unwritable_directory": {`directory_permission = "0555"`, `(?s)Invalid Permission.*directory_permission.*0700`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      videoFileConfig(mock, "never submitted", filepath.Join(t.TempDir(), "clip.mp4"), tc.extra),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
	t.Cleanup(func() {
		if n := mock.submissions(); n != 0 {
			t.Errorf("%d submissions for invalid configurations, want 0", n)
		}
	})
}

// Import adopts a file that is already on disk: nothing is downloaded or submitted,
// and the imported state matches what a download recorded.
func TestAccVideoFileResource_importAdoptsExistingFile(t *testing.T) {
	mock := newTestMock(t)
	dir := t.TempDir()
	clip := filepath.Join(dir, "teaser.mp4")
	config := videoFileConfig(mock, "import me", clip, "")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config, Check: expectClipDownloads(mock, 1)},
			{
				ResourceName: fileAddr,
				ImportState:  true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return s.RootModule().Resources[videoAddr].Primary.ID + "," + clip, nil
				},
				ImportStateVerify: true,
				ImportStateCheck: func([]*terraform.InstanceState) error {
					if err := expectClipDownloads(mock, 1)(nil); err != nil {
						return fmt.Errorf("import downloaded the clip again: %w", err)
					}
					return mock.expectSubmissions(1)(nil)
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
}
