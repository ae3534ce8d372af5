package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// pricedClips are two new clips of a model the mock prices at 3 credits a
// second: 4 seconds, and the model's default 5 seconds when seconds is unset.
func pricedClips(mock *acctest.Mock, maxCost string) string {
	return mock.ProviderBlock(fmt.Sprintf("max_cost = %q", maxCost)) + `
resource "videogen_video" "short" {
  model   = "videogen-1"
  prompt  = "a priced clip of four seconds"
  seconds = "4"
}

resource "videogen_video" "default" {
  model  = "videogen-1"
  prompt = "a priced clip of the default length"
}
`
}

// TestAccCost_planSaysWhatAClipCostsAndCapsIt: where the model list prices a
// model, the plan's billing says what each new clip costs, exactly what the
// service then draws (the mock's ledger); max_cost below the plan's total
// fails the plan with nothing submitted, and at the total lets it through.
func TestAccCost_planSaysWhatAClipCostsAndCapsIt(t *testing.T) {
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) {
		cfg.PublishPrices = true
		cfg.PricePerSecond = 3
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:   pricedClips(mock, "26.99"),
				PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Plan Costs More Than max_cost.*cost\s+at\s+least\s+27\s+credits.*` +
					`max_cost\s+allows\s+26\.99\s+credits.*Nothing\s+has\s+been\s+submitted`),
			},
			{
				PreConfig: func() {
					if n := mock.Submissions(); n != 0 {
						t.Fatalf("the plan over max_cost submitted %d task(s)", n)
					}
				},
				Config: pricedClips(mock, "27"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("videogen_video.short", tfjsonpath.New("billing"),
						knownvalue.StringExact("new clip (12 credits)")),
					plancheck.ExpectKnownValue("videogen_video.default", tfjsonpath.New("billing"),
						knownvalue.StringExact("new clip (15 credits)")),
				}},
				Check: func(*terraform.State) error {
					l := mock.Ledger()
					costs := map[string]int64{}
					for _, task := range l.Tasks {
						if !task.Billed {
							return fmt.Errorf("task %s not billed", task.TaskID)
						}
						costs[task.Seconds] = task.Cost
					}
					if len(l.Tasks) != 2 || costs["4"] != 12 || costs[""] != 15 {
						return fmt.Errorf("ledger: %d tasks costing %v; want 2, drawing 12 (4 s) and 15 (the default 5 s)",
							len(l.Tasks), costs)
					}
					return nil
				},
			},
		},
	})
}

// TestAccCost_capWithoutAPriceFailsThePlan: a cap the plan cannot check is not
// taken for one that holds: an unpriced model fails the plan, naming max_cost,
// with nothing submitted.
func TestAccCost_capWithoutAPriceFailsThePlan(t *testing.T) {
	mock := acctest.NewMock(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:   pricedClips(mock, "1000"),
			PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Clip Cost Unknown.*max_cost\s+\(1000\).*publishes\s+no\s+price\s+for\s+model\s+` +
				`"videogen-1".*Nothing\s+has\s+been\s+submitted`),
		}},
	})
	if n := mock.Submissions(); n != 0 {
		t.Errorf("the refused plan submitted %d task(s)", n)
	}
}
