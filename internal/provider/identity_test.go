package provider

import (
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// Resource identity (Terraform and OpenTofu 1.12 or later): a clip is its task, a
// file its task and path, and an import block with identity adopts both without
// generating or downloading anything, on the API as described and through
// Google's APIs (whose tasks are operation names; the Gemini API's clip is a
// file behind the key, Vertex AI's is inline in the operation).
func TestAccResourceIdentity_importBlocks(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{mockapi.DialectOpenAI, mockapi.DialectGemini, mockapi.DialectVertex} {
		t.Run(dialect, func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			clip := filepath.Join(t.TempDir(), "teaser.mp4")
			config := mock.VideoFileConfig("identify me", clip, "")
			once := resource.ComposeTestCheckFunc(mock.ExpectSubmissions(1), mock.ExpectClipDownloads(mock.DownloadsPerFile()))
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
				Steps: []resource.TestStep{
					{
						Config: config,
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectIdentityValueMatchesState(videoAddr, tfjsonpath.New("task_id")),
							statecheck.ExpectIdentityValueMatchesState(acctest.VideoFileAddr, tfjsonpath.New("task_id")),
							statecheck.ExpectIdentityValueMatchesState(acctest.VideoFileAddr, tfjsonpath.New("path")),
						},
						Check: once,
					},
					{
						ResourceName:    videoAddr,
						ImportState:     true,
						ImportStateKind: resource.ImportBlockWithResourceIdentity,
						// model and prompt are not echoed: the import adopts them in place.
						ExpectNonEmptyPlan: true,
						ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(videoAddr, plancheck.ResourceActionUpdate),
						}},
					},
					{
						ResourceName:    acctest.VideoFileAddr,
						ImportState:     true,
						ImportStateKind: resource.ImportBlockWithResourceIdentity,
					},
					{
						Config:           config,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
						Check:            once,
					},
				},
			})
		})
	}
}
