package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// The mock as `make mock` and `make demo` start it (mockapi.DefaultConfig)
// publishes its models' limits, so that trying the provider by hand shows the
// plan-time checks the README leads with: seconds = "600" fails the plan and
// nothing is submitted. acctest.NewMock's list publishes none; the defaults
// are put back here on purpose.
func TestAccMockDefaults_limitsFailPlan(t *testing.T) {
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.Models = mockapi.DefaultConfig().Models })
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock() + `
resource "videogen_video" "test" {
  model   = "videogen-1"
  prompt  = "a lighthouse at dusk"
  seconds = "600"
}
`,
			PlanOnly:    true,
			ExpectError: wrapped("Clip Too Long for Model", "seconds", "maximum of 10 seconds", "Nothing has been submitted"),
		}},
	})
	if n := mock.Submissions(); n != 0 {
		t.Errorf("the plan submitted %d task(s), want 0", n)
	}
}
