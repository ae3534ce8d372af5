package acctest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// VideoFileAddr is the address of the file resource of VideoFileConfig.
const VideoFileAddr = "videogen_video_file.test"

// VideoFileConfig is a clip and its file against the mock; extra goes into the
// file resource.
func (m *Mock) VideoFileConfig(prompt, filePath, extra string) string {
	return m.ProviderBlock() + fmt.Sprintf(`
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

// SHA256File is the lowercase hex SHA-256 of the file at p.
func SHA256File(t *testing.T, p string) string {
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

// ReferenceClip is the clip the mock serves for a task, with its SHA-256 and
// size. It is read from the mock, not downloaded, so that the ledger counts
// only the provider's requests and the reference is apart from the code
// under test. Every task's clip has its own bytes.
type ReferenceClip struct {
	Data   []byte
	SHA256 string
	Size   int64
}

// ReferenceClip is the clip the mock serves for the task taskID.
func (m *Mock) ReferenceClip(taskID string) (ReferenceClip, error) {
	data, ok := m.Clip(taskID)
	if !ok {
		return ReferenceClip{}, fmt.Errorf("the mock has no task %q", taskID)
	}
	sum := sha256.Sum256(data)
	return ReferenceClip{Data: data, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}, nil
}

// ExpectFileMatchesClip checks the file at p on disk and the state of
// VideoFileAddr against the clip of the task that resource names.
func (m *Mock) ExpectFileMatchesClip(t *testing.T, p string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		res, ok := s.RootModule().Resources[VideoFileAddr]
		if !ok || res.Primary == nil {
			return fmt.Errorf("the state holds no %s to check the file %s against", VideoFileAddr, p)
		}
		attrs := res.Primary.Attributes
		want, err := m.ReferenceClip(attrs["task_id"])
		if err != nil {
			return err
		}
		if got := SHA256File(t, p); got != want.SHA256 {
			return fmt.Errorf("the file's sha256 is %s, the clip's is %s", got, want.SHA256)
		}
		if attrs["sha256"] != want.SHA256 {
			return fmt.Errorf("state says sha256 %s, the clip's is %s", attrs["sha256"], want.SHA256)
		}
		if attrs["size_bytes"] != fmt.Sprint(want.Size) {
			return fmt.Errorf("state says size_bytes %s, the clip has %d bytes", attrs["size_bytes"], want.Size)
		}
		return nil
	}
}

// ClipDownloads counts the requests for a whole clip the mock received, at
// signed URLs or behind the key. A GET of a byte range is not one: the client
// asks whether a clip still serves with HEAD, and where the host refuses HEAD
// (the Gemini API's file route, in the mock) with a GET of the first byte,
// which downloads nothing.
func (m *Mock) ClipDownloads() int {
	l := m.Ledger()
	n := 0
	for _, route := range []string{"GET /_mock/clips", "GET /v1/videos/{task_id}/content", "GET /v1beta/files/{file}:download"} {
		n += l.Requests[route] - l.RangeRequests[route]
	}
	return n
}

// DownloadsPerFile is what writing the clip of one task to a file once costs
// in ClipDownloads: one, and none on Vertex AI, whose clip comes inline in
// its operation.
func (m *Mock) DownloadsPerFile() int {
	if m.api == client.APIVertex {
		return 0
	}
	return 1
}

// ExpectClipDownloads checks that the mock served want clip downloads.
func (m *Mock) ExpectClipDownloads(want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := m.ClipDownloads(); got != want {
			return fmt.Errorf("the mock served %d clip download(s), want %d", got, want)
		}
		return nil
	}
}
