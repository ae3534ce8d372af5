package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

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
