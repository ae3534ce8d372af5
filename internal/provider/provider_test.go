package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
	"github.com/videogen/terraform-provider-videogen/internal/provider/providerconfig"
)

var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"videogen": providerserver.NewProtocol6WithError(New("test")()),
}

// TestMain: see acctest.Main.
func TestMain(m *testing.M) { acctest.Main(m) }

// wrapped: see acctest.Wrapped.
var wrapped = acctest.Wrapped

func TestAccProvider_baseURLWithAndWithoutV1(t *testing.T) {
	t.Parallel()
	for name, suffix := range map[string]string{"without_v1": "", "with_v1": "/v1", "with_v1_slash": "/v1/"} {
		t.Run(name, func(t *testing.T) {
			mock := acctest.NewMock(t)
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: mock.ProviderBlock(fmt.Sprintf("base_url = %q", mock.URL+suffix)) + `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "a lighthouse at dusk"
}
`,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("videogen_video.test", tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
					},
					Check: resource.ComposeTestCheckFunc(
						mock.ExpectSubmissions(1),
						func(*terraform.State) error {
							if n := mock.Ledger().Requests["POST /v1/video/generations"]; n != 1 {
								return fmt.Errorf("POST /v1/video/generations was called %d times, want 1", n)
							}
							return nil
						},
					),
				}},
			})
		})
	}
}

// The provider blocks below are written out on purpose: these tests are about
// how the block itself, or its absence, is read.

func TestAccProvider_missingAPIKey(t *testing.T) {
	mock := acctest.NewMock(t)
	t.Setenv(providerconfig.EnvAPIKey, "")
	t.Setenv(providerconfig.EnvBaseURL, mock.URL)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      `data "videogen_models" "all" {}`,
			ExpectError: regexp.MustCompile(`(?s)Missing API Key.*VIDEOGEN_API_KEY`),
		}},
	})
	if n := mock.Ledger().Requests["GET /v1/models"]; n != 0 {
		t.Errorf("the provider called the API %d times without a key", n)
	}
}

func TestAccProvider_envFallbackAndExplicitKeyWins(t *testing.T) {
	mock := acctest.NewMock(t)
	t.Setenv(providerconfig.EnvBaseURL, mock.URL+"/v1")
	t.Setenv(providerconfig.EnvAPIKey, mockapi.DefaultAPIKey)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `data "videogen_models" "all" {}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.videogen_models.all", tfjsonpath.New("ids").AtSliceIndex(0), knownvalue.StringExact("videogen-1")),
				},
			},
			{
				// The explicit attribute wins over the valid key in the environment.
				Config:      `provider "videogen" { api_key = "wrong-key" }` + "\n" + `data "videogen_models" "all" {}`,
				ExpectError: regexp.MustCompile(`(?s)rejected the\s+API\s+key.*VIDEOGEN_API_KEY`),
			},
		},
	})
}

func TestAccProvider_invalidBaseURL(t *testing.T) {
	t.Parallel()
	for name, baseURL := range map[string]string{
		"relative": "api.example.com/v1",
		"ftp":      "ftp://api.example.com/v1",
		"no_host":  "https:///v1",
	} {
		t.Run(name, func(t *testing.T) {
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "videogen" {
  base_url = %q
  api_key  = "k"
}
data "videogen_models" "all" {}
`, baseURL),
					ExpectError: regexp.MustCompile(`(?s)Invalid URL.*base_url.*absolute\s+http\s+or\s+https\s+URL`),
				}},
			})
		})
	}
}

// TestAccProvider_envBaseURLWithoutScheme: the environment variable, which no
// validator sees, gets the same hint as the attribute.
func TestAccProvider_envBaseURLWithoutScheme(t *testing.T) {
	t.Setenv(providerconfig.EnvBaseURL, "api.example.com/v1?key=secret")
	t.Setenv(providerconfig.EnvAPIKey, "k")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      `data "videogen_models" "all" {}`,
			ExpectError: regexp.MustCompile(`(?s)"api.example.com/v1"\s+has\s+no\s+scheme;\s+add\s+https://\s+in\s+front`),
		}},
	})
}

func TestAccProvider_unknownBaseURLDoesNotFailValidation(t *testing.T) {
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		// terraform_data arrived in Terraform 1.4.
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_4_0)},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			// terraform_data's output is unknown until apply, so base_url is unknown at plan time.
			Config: fmt.Sprintf(`
resource "terraform_data" "endpoint" {
  input = %q
}
`, mock.URL) + mock.ProviderBlock("base_url = terraform_data.endpoint.output") + `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "a paper boat"
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("videogen_video.test", tfjsonpath.New("status"), knownvalue.StringExact("succeeded")),
			},
			Check: mock.ExpectSubmissions(1),
		}},
	})
}
