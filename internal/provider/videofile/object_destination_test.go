package videofile_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // the store's own client reads the objects back

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
)

const (
	storedAddr = "videogen_video_file.stored"
	localAddr  = "videogen_video_file.local"
)

// fileStore is a directory served as a bucket through file:// URLs, read back
// with gocloud's own fileblob client, not through the provider's code.
type fileStore struct{ dir string }

func newFileStore(t *testing.T) fileStore { return fileStore{dir: t.TempDir()} }

func (s fileStore) url(key string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(s.dir, key))}).String()
}

func (s fileStore) bucket(t *testing.T) *blob.Bucket {
	t.Helper()
	b, err := blob.OpenBucket(context.Background(), (&url.URL{Scheme: "file", Path: filepath.ToSlash(s.dir)}).String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// expectObjectIsClip checks the object at key, read back with the store's own
// client, against the mock's clip of the task videogen_video_file.stored names and
// against its state: bytes, SHA-256, size, Content-Type and metadata.
func (s fileStore) expectObjectIsClip(t *testing.T, mock *acctest.Mock, key string) resource.TestCheckFunc {
	return func(st *terraform.State) error {
		res, ok := st.RootModule().Resources[storedAddr]
		if !ok {
			return fmt.Errorf("no %s in state", storedAddr)
		}
		attrs := res.Primary.Attributes
		want, err := mock.ReferenceClip(attrs["task_id"])
		if err != nil {
			return err
		}
		b := s.bucket(t)
		data, err := b.ReadAll(context.Background(), key)
		if err != nil {
			return fmt.Errorf("reading %s back: %w", key, err)
		}
		sum := sha256.Sum256(data)
		got := hex.EncodeToString(sum[:])
		a, err := b.Attributes(context.Background(), key)
		switch {
		case err != nil:
			return err
		case got != want.SHA256 || attrs["sha256"] != got || attrs["size_bytes"] != fmt.Sprint(len(data)):
			return fmt.Errorf("object sha256 %s (%d bytes), state %s (%s bytes), the clip's %s", got, len(data),
				attrs["sha256"], attrs["size_bytes"], want.SHA256)
		case a.ContentType != "video/mp4" || a.Metadata["sha256"] != got || a.Metadata["task"] != attrs["task_id"]:
			return fmt.Errorf("object's Content-Type %q and metadata %v: want video/mp4, sha256 %s, task %s",
				a.ContentType, a.Metadata, got, attrs["task_id"])
		}
		return nil
	}
}

func objectConfig(mock *acctest.Mock, prompt, objectURL, extra string) string {
	return mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = %q
}

resource "videogen_video_file" "stored" {
  task_id = videogen_video.test.task_id
  path    = %q
%s
}
`, prompt, objectURL, extra)
}

// A clip stored as an object: written once with its SHA-256, Content-Type and
// metadata; a second apply reads only its metadata (0 downloads, 0 uploads);
// deleted outside Terraform, the plan restores it from the same task; changed
// outside Terraform, it is left alone until overwrite = true. One clip billed.
func TestAccVideoFileObject_storedRestoredNeverBilledAgain(t *testing.T) {
	mock := acctest.NewMock(t, withClipBytes)
	store := newFileStore(t)
	key := "cdn/teaser.mp4"
	cfg := objectConfig(mock, "a stored lighthouse", store.url(key), "")
	objectPath := filepath.Join(store.dir, filepath.FromSlash(key))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(storedAddr, tfjsonpath.New("size_bytes"), knownvalue.Int64Exact(testClipBytes)),
				},
				Check: resource.ComposeTestCheckFunc(
					store.expectObjectIsClip(t, mock, key),
					mock.ExpectSubmissions(1),
					mock.ExpectClipDownloads(1),
				),
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            resource.ComposeTestCheckFunc(mock.ExpectSubmissions(1), mock.ExpectClipDownloads(1)),
			},
			{
				PreConfig: func() {
					if err := store.bucket(t).Delete(context.Background(), key); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(storedAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(storedAddr, tfjsonpath.New("sha256")),
					plancheck.ExpectResourceAction("videogen_video.test", plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeTestCheckFunc(
					store.expectObjectIsClip(t, mock, key),
					mock.ExpectSubmissions(1),
					mock.ExpectClipDownloads(2),
				),
			},
			{
				// Someone else's bytes at the key: left alone, no change planned.
				PreConfig: func() {
					if err := store.bucket(t).WriteAll(context.Background(), key, []byte("someone else's clip"), nil); err != nil {
						t.Fatal(err)
					}
				},
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: resource.ComposeTestCheckFunc(
					expectFileContent(objectPath, "someone else's clip"),
					mock.ExpectSubmissions(1),
					mock.ExpectClipDownloads(2),
				),
			},
			{
				Config: objectConfig(mock, "a stored lighthouse", store.url(key), "  overwrite = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(storedAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(storedAddr, tfjsonpath.New("sha256")),
				}},
				Check: resource.ComposeTestCheckFunc(
					store.expectObjectIsClip(t, mock, key),
					mock.ExpectSubmissions(1),
					mock.ExpectClipDownloads(3),
				),
			},
		},
	})
}

func expectFileContent(p, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if string(got) != want {
			return fmt.Errorf("%s holds %q, want %q", p, got, want)
		}
		return nil
	}
}

// An object with other content at the key fails the plan, before anything is
// submitted, downloaded or uploaded, and is left as it is.
func TestAccVideoFileObject_keyTakenFailsPlan(t *testing.T) {
	mock := acctest.NewMock(t)
	store := newFileStore(t)
	key := "taken.mp4"
	if err := store.bucket(t).WriteAll(context.Background(), key, []byte("not ours"), nil); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      objectConfig(mock, "a taken key", store.url(key), ""),
			ExpectError: regexp.MustCompile(`Video Object Key Already Taken`),
		}},
	})
	checkAfter(t, expectFileContent(filepath.Join(store.dir, key), "not ours"), mock.ExpectSubmissions(0), mock.ExpectClipDownloads(0))
}

// A URL the stores do not take fails the plan naming path, with nothing sent.
func TestAccVideoFileObject_badURLFailsPlan(t *testing.T) {
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      objectConfig(mock, "a bad URL", "ftp://bucket/clip.mp4", ""),
				ExpectError: regexp.MustCompile(`Invalid Video Object URL`),
			},
			{
				Config:      objectConfig(mock, "a presigned URL", "s3://bucket/clip.mp4?X-Amz-Signature=abc&region=us-east-1", ""),
				ExpectError: regexp.MustCompile(`Invalid Video Object URL`),
			},
		},
	})
	checkAfter(t, mock.ExpectSubmissions(0))
}

// submitFinished submits one clip through the client, as another
// configuration would have, and returns its task ID once it has succeeded.
func submitFinished(t *testing.T, mock *acctest.Mock, prompt string) string {
	t.Helper()
	c := mock.Client(t)
	v, err := c.SubmitVideo(t.Context(), client.VideoRequest{Model: "videogen-1", Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	if got := mock.Task(t, v.TaskID); got.Status != client.StatusSucceeded {
		t.Fatalf("task %s is %s, want succeeded", v.TaskID, got.Status)
	}
	return v.TaskID
}

func storedAndLocalConfig(mock *acctest.Mock, taskID, objectURL, localPath string) string {
	return mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video_file" "stored" {
  task_id = %q
  path    = %q
}

resource "videogen_video_file" "local" {
  task_id = videogen_video_file.stored.task_id
  path    = %q
  copies  = [videogen_video_file.stored.path]
}
`, taskID, objectURL, localPath)
}

// The vendor forgets the task (its reads answer 404), and the runner's disk is
// new: the local file is written from the stored copy, nothing is submitted or
// downloaded from the vendor. Separately, the clip's storage expires while the
// task stays: the same.
func TestAccVideoFileObject_localFileFromStoredCopy(t *testing.T) {
	t.Parallel()
	for name, forget := range map[string]func(*acctest.Mock, string){
		"task forgotten": func(m *acctest.Mock, id string) { m.DeleteTask(id) },
		"clip expired":   func(m *acctest.Mock, id string) { m.ExpireClip(id) },
	} {
		t.Run(name, func(t *testing.T) {
			mock := acctest.NewMock(t, withClipBytes)
			id := submitFinished(t, mock, "a clip the vendor forgets")
			store := newFileStore(t)
			local := filepath.Join(t.TempDir(), "out", "teaser.mp4")
			cfg := storedAndLocalConfig(mock, id, store.url("teaser.mp4"), local)
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						Config: cfg,
						Check: resource.ComposeTestCheckFunc(
							store.expectObjectIsClip(t, mock, "teaser.mp4"),
							mock.ExpectSubmissions(1),
							mock.ExpectClipDownloads(2),
						),
					},
					{
						PreConfig: func() {
							forget(mock, id)
							if err := os.RemoveAll(filepath.Dir(local)); err != nil {
								t.Fatal(err)
							}
						},
						Config: cfg,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(localAddr, plancheck.ResourceActionCreate),
							plancheck.ExpectResourceAction(storedAddr, plancheck.ResourceActionNoop),
						}},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(localAddr, tfjsonpath.New("source_url"), knownvalue.StringExact(store.url("teaser.mp4"))),
						},
						Check: resource.ComposeTestCheckFunc(
							expectLocalIsClip(t, mock, id, local),
							mock.ExpectSubmissions(1),
						),
					},
				},
			})
		})
	}
}

func expectLocalIsClip(t *testing.T, mock *acctest.Mock, id, p string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		want, err := mock.ReferenceClip(id)
		if err != nil {
			return err
		}
		if got := acctest.SHA256File(t, p); got != want.SHA256 {
			return fmt.Errorf("%s has sha256 %s, the clip's is %s", p, got, want.SHA256)
		}
		return nil
	}
}
