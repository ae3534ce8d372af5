package provider

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
)

// Presigned URLs as the three stores write them, signed on two different runs.
const (
	awsMug     = "https://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png?versionId=v1&"
	awsSigned  = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260101%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=aaaa"
	awsRotated = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIAEXAMPLE%2F20260102%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260102T101500Z&X-Amz-Expires=3600&X-Amz-Security-Token=FwoGZX&X-Amz-SignedHeaders=host&X-Amz-Signature=bbbb"
	gcsCup     = "https://storage.googleapis.com/bucket/refs/cup.png?"
	gcsSigned  = "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa%40p.iam.gserviceaccount.com%2F20260101%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20260101T000000Z&X-Goog-Expires=600&X-Goog-SignedHeaders=host&X-Goog-Signature=0a1b"
	gcsRotated = "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa%40p.iam.gserviceaccount.com%2F20260102%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20260102T000000Z&X-Goog-Expires=600&X-Goog-SignedHeaders=host&X-Goog-Signature=2c3d"
	azBowl     = "https://acct.blob.core.windows.net/refs/bowl.mp4?"
	azSigned   = "sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T01:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig=abc%2Bdef%3D"
	azRotated  = "sp=r&st=2026-02-01T00:00:00Z&se=2026-02-01T01:00:00Z&spr=https&sv=2022-11-02&sr=b&sig=xyz%3D"
)

func signedReferencesConfig(mock *acctest.Mock, aws, gcs, az string) string {
	return mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "aws" {
  model            = "videogen-1"
  prompt           = "@image1 on a table"
  reference_images = [%q]
}
resource "videogen_video" "gcs" {
  model            = "videogen-1"
  prompt           = "@image1 on a shelf"
  reference_images = [%q]
}
resource "videogen_video" "azure" {
  model            = "videogen-1"
  prompt           = "a bowl turning"
  reference_videos = [%q]
}
`, aws, gcs, az)
}

// A presigned reference URL signed again on every run names the same media: the
// plan is empty and nothing is billed, and state keeps the URL first applied. A
// different object or version is other media.
func TestAccVideoResource_signedReferenceURLs(t *testing.T) {
	mock := acctest.NewMock(t)
	first := signedReferencesConfig(mock, awsMug+awsSigned, gcsCup+gcsSigned, azBowl+azSigned)
	rotated := signedReferencesConfig(mock, awsMug+awsRotated, gcsCup+gcsRotated, azBowl+azRotated)
	keepsFirst := []statecheck.StateCheck{
		statecheck.ExpectKnownValue("videogen_video.aws", tfjsonpath.New("reference_images"),
			knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(awsMug + awsSigned)})),
		statecheck.ExpectKnownValue("videogen_video.gcs", tfjsonpath.New("reference_images"),
			knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(gcsCup + gcsSigned)})),
		statecheck.ExpectKnownValue("videogen_video.azure", tfjsonpath.New("reference_videos"),
			knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(azBowl + azSigned)})),
	}
	rotatedStep := mock.NothingNewStep(rotated, 3)
	rotatedStep.ConfigStateChecks = keepsFirst
	otherMedia := signedReferencesConfig(mock,
		"https://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png?versionId=v2&"+awsRotated,
		"https://storage.googleapis.com/bucket/refs/saucer.png?"+gcsRotated,
		azBowl+azRotated)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: first, Check: mock.ExpectSubmissions(3), ConfigStateChecks: keepsFirst},
			rotatedStep,
			{
				Config: otherMedia,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("videogen_video.aws", plancheck.ResourceActionReplace),
					plancheck.ExpectResourceAction("videogen_video.gcs", plancheck.ResourceActionReplace),
					plancheck.ExpectResourceAction("videogen_video.azure", plancheck.ResourceActionNoop),
				}},
				Check: mock.ExpectSubmissions(5),
			},
			mock.NothingNewStep(otherMedia, 5),
		},
	})
}

// referenceURLPairs are reference URLs that once counted as the same media and
// name other media (a first URL, then the URL a later configuration gives), and
// rotated signatures, which name the same media.
var (
	otherReferenceURLs = map[string][2]string{
		"ss":        {thumbsFrame + "src=ss.mp4&ss=5&sig=aaa", thumbsFrame + "src=ss.mp4&ss=60&sig=aaa"},
		"st":        {thumbsFrame + "src=st.mp4&st=5&sig=aaa", thumbsFrame + "src=st.mp4&st=60&sig=aaa"},
		"sr":        {thumbsFrame + "src=sr.mp4&sr=44100&sig=aaa", thumbsFrame + "src=sr.mp4&sr=48000&sig=aaa"},
		"si":        {thumbsFrame + "src=si.mp4&si=1&sig=aaa", thumbsFrame + "src=si.mp4&si=2&sig=aaa"},
		"sp":        {thumbsFrame + "src=sp.mp4&sp=2&sig=aaa", thumbsFrame + "src=sp.mp4&sig=aaa"},
		"encoded":   {thumbsFrame + "src=encoded.mp4&s%70=3&sig=aaa", thumbsFrame + "src=encoded.mp4&s%70=9&sig=aaa"},
		"proxy":     {"https://proxy.example.com/mug.png?x-amz-date=20260101&X-Amz-Signature=aaa", "https://proxy.example.com/mug.png?x-amz-date=20260102&X-Amz-Signature=aaa"},
		"dots":      {"https://bucket.s3.eu-west-1.amazonaws.com/a/b/../c.png?" + awsSigned, "https://bucket.s3.eu-west-1.amazonaws.com/a/c.png?" + awsSigned},
		"encodedot": {"https://bucket.s3.eu-west-1.amazonaws.com/d/e/%2E%2E/f.png?" + awsSigned, "https://bucket.s3.eu-west-1.amazonaws.com/d/f.png?" + awsSigned},
	}
	rotatedReferenceURLs = map[string][2]string{
		"s3":    {awsMug + awsSigned, awsMug + awsRotated},
		"azure": {azBowl + azSigned, azBowl + azRotated},
		"gcs":   {gcsCup + gcsSigned, gcsCup + gcsRotated},
	}
)

const thumbsFrame = "https://thumbs.example.com/frame.jpg?"

// referenceURLsConfig has one clip per entry, named after it, each citing the
// entry's first or second URL.
func referenceURLsConfig(mock *acctest.Mock, second int) string {
	var b strings.Builder
	for _, set := range []map[string][2]string{otherReferenceURLs, rotatedReferenceURLs} {
		for name, urls := range set {
			fmt.Fprintf(&b, `
resource "videogen_video" %q {
  model            = "videogen-1"
  prompt           = "@image1 in motion"
  reference_images = [%q]
}
`, name, urls[second])
		}
	}
	return mock.ProviderBlock() + b.String()
}

// URLs that look alike but name other media (short names beside a "sig" on a host
// no store signed, a lower-case x-amz-date on a proxy, dot segments in an object's
// key) plan a new clip each, and nothing else does; a rotated signature plans
// nothing.
func TestAccVideoResource_referenceURLsThatDiffer(t *testing.T) {
	mock := acctest.NewMock(t)
	clips := len(otherReferenceURLs) + len(rotatedReferenceURLs)
	var actions []plancheck.PlanCheck
	for name := range otherReferenceURLs {
		actions = append(actions, plancheck.ExpectResourceAction("videogen_video."+name, plancheck.ResourceActionReplace))
	}
	for name := range rotatedReferenceURLs {
		actions = append(actions, plancheck.ExpectResourceAction("videogen_video."+name, plancheck.ResourceActionNoop))
	}
	var states []statecheck.StateCheck
	for name, urls := range otherReferenceURLs {
		states = append(states, statecheck.ExpectKnownValue("videogen_video."+name, tfjsonpath.New("reference_images"),
			knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(urls[1])})))
	}
	for name, urls := range rotatedReferenceURLs {
		states = append(states, statecheck.ExpectKnownValue("videogen_video."+name, tfjsonpath.New("reference_images"),
			knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(urls[0])})))
	}
	second := referenceURLsConfig(mock, 1)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: referenceURLsConfig(mock, 0), Check: mock.ExpectSubmissions(clips)},
			{
				Config:            second,
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: actions},
				Check:             mock.ExpectSubmissions(clips + len(otherReferenceURLs)),
				ConfigStateChecks: states,
			},
			mock.NothingNewStep(second, clips+len(otherReferenceURLs)),
		},
	})
}

func writeOnlyConfig(mock *acctest.Mock, media string) string {
	return mock.ProviderBlock() + fmt.Sprintf(`
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "@image1 beside a bowl"
%s
}
`, media)
}

// submittedMedia returns the reference URLs of the mock's nth submission, as the
// service received them.
func submittedMedia(mock *acctest.Mock, n int) ([]string, error) {
	tasks := mock.Ledger().Tasks
	if len(tasks) <= n {
		return nil, fmt.Errorf("the mock has %d submissions, not %d", len(tasks), n+1)
	}
	var md struct {
		Content []map[string]json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(tasks[n].Metadata, &md); err != nil {
		return nil, fmt.Errorf("metadata %s: %w", tasks[n].Metadata, err)
	}
	var urls []string
	for _, entry := range md.Content {
		for _, key := range []string{"image_url", "video_url", "audio_url"} {
			var u struct {
				URL string `json:"url"`
			}
			if raw, ok := entry[key]; ok && json.Unmarshal(raw, &u) == nil {
				urls = append(urls, u.URL)
			}
		}
	}
	return urls, nil
}

func expectSubmittedMedia(mock *acctest.Mock, n int, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := submittedMedia(mock, n)
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("submission %d sent reference media %q, want %q", n+1, got, want)
		}
		return nil
	}
}

// noSignatureInState fails when any attribute of any resource holds a reference
// URL of the buckets above: write-only media must leave no trace in state.
func noSignatureInState(s *terraform.State) error {
	for addr, rs := range s.RootModule().Resources {
		for k, v := range rs.Primary.Attributes {
			if strings.Contains(v, "amazonaws.com") || strings.Contains(v, "windows.net") || strings.Contains(v, "X-Amz-") {
				return fmt.Errorf("%s.%s holds a signed URL: %s", addr, k, v)
			}
		}
	}
	return nil
}

// Write-only reference media reach the service and never state; the stored form
// moves to them in place when the media are the same, a new signature changes
// nothing, and only a new version makes a new clip.
func TestAccVideoResource_writeOnlyReferenceMedia(t *testing.T) {
	mock := acctest.NewMock(t)
	stored := writeOnlyConfig(mock, fmt.Sprintf("  reference_images = [%q]", awsMug+awsSigned))
	writeOnly := func(aws, az string, version int) string {
		return writeOnlyConfig(mock, fmt.Sprintf(`  reference_images_wo        = [%q]
  reference_videos_wo        = [%q]
  reference_media_wo_version = %d`, aws, az, version))
	}
	nullMedia := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("reference_images"), knownvalue.Null()),
		statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("reference_videos"), knownvalue.Null()),
		statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("reference_images_wo"), knownvalue.Null()),
		statecheck.ExpectKnownValue(videoAddr, tfjsonpath.New("reference_videos_wo"), knownvalue.Null()),
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		Steps: []resource.TestStep{
			{Config: stored, Check: mock.ExpectSubmissions(1)},
			{
				// The same image, signed again, now write-only: recorded in place, no new clip.
				Config: writeOnlyConfig(mock, fmt.Sprintf(`  reference_images_wo        = [%q]
  reference_media_wo_version = 1`, awsMug+awsRotated)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: append(nullMedia, statecheck.ExpectKnownValue(videoAddr,
					tfjsonpath.New("reference_media_wo_version"), knownvalue.Int64Exact(1))),
				Check: resource.ComposeTestCheckFunc(mock.ExpectSubmissions(1), noSignatureInState),
			},
			// Terraform keeps no write-only value to compare: other media under the same
			// version change nothing, as documented.
			mock.NothingNewStep(writeOnly(awsMug+awsSigned, azBowl+azSigned, 1), 1),
			{
				Config: writeOnly(awsMug+awsSigned, azBowl+azSigned, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionReplace),
				}},
				ConfigStateChecks: nullMedia,
				Check: resource.ComposeTestCheckFunc(mock.ExpectSubmissions(2), noSignatureInState,
					expectSubmittedMedia(mock, 1, awsMug+awsSigned, azBowl+azSigned)),
			},
			// New signatures for both, same version: nothing to do.
			mock.NothingNewStep(writeOnly(awsMug+awsRotated, azBowl+azRotated, 2), 2),
		},
	})
}

func TestAccVideoResource_writeOnlyReferenceMediaRules(t *testing.T) {
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		CheckDestroy:             mock.ExpectSubmissions(0),
		Steps: []resource.TestStep{
			{
				Config:      writeOnlyConfig(mock, `  reference_images_wo = ["https://cdn.example.com/a.png"]`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)reference_media_wo_version.*must be\s+specified`),
			},
			{
				Config: writeOnlyConfig(mock, `  reference_videos           = ["https://cdn.example.com/b.mp4"]
  reference_media_wo_version = 1`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)reference_videos.*cannot\s+be\s+specified\s+when.*reference_media_wo_version`),
			},
			{
				Config: writeOnlyConfig(mock, `  reference_images_wo        = ["https://cdn.example.com/a.png"]
  reference_videos           = ["https://cdn.example.com/b.mp4"]
  reference_media_wo_version = 1`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)reference_videos.*cannot be specified when.*reference_images_wo`),
			},
			{
				Config: mock.ProviderBlock() + `
resource "videogen_video" "test" {
  model                      = "videogen-1"
  prompt                     = "@image1 meets @image2"
  reference_images_wo        = ["https://cdn.example.com/a.png"]
  reference_media_wo_version = 1
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)cites\s+@image2.*reference_images_wo\s+has\s+1`),
			},
		},
	})
}

// lastWithoutWriteOnly is above every Terraform and OpenTofu 1.10 release.
var lastWithoutWriteOnly = version.Must(version.NewVersion("1.10.999"))

// CLIs without write-only arguments reject them with the framework's error, and
// only when they are used.
func TestAccVideoResource_writeOnlyReferenceMediaOlderCLI(t *testing.T) {
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipAbove(lastWithoutWriteOnly)},
		CheckDestroy:             mock.ExpectSubmissions(0),
		Steps: []resource.TestStep{{
			Config: writeOnlyConfig(mock, `  reference_images_wo        = ["https://cdn.example.com/a.png"]
  reference_media_wo_version = 1`),
			ExpectError: regexp.MustCompile(`(?s)reference_images_wo.*Write-only\s+attributes\s+are\s+only\s+supported\s+in\s+Terraform\s+1\.11`),
		}},
	})
}
