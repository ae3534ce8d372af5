package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

func TestAccModelsDataSource(t *testing.T) {
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) {
		// A key limited to two models sees only those, in the service's order.
		cfg.Keys = append(cfg.Keys, mockapi.Key{Key: "limited-key", AllowedModels: []string{"videogen-2", "videogen-1"}})
	})
	const addr = "data.videogen_models.all"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: mock.ProviderBlock() + `data "videogen_models" "all" {}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ids"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("videogen-1"), knownvalue.StringExact("videogen-1-fast"), knownvalue.StringExact("videogen-2"),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("models").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"id":       knownvalue.StringExact("videogen-1"),
						"owned_by": knownvalue.StringExact("videogen"),
						"created":  knownvalue.NotNull(),
					})),
				},
			},
			{
				Config: mock.ProviderBlock(`api_key = "limited-key"`) + `data "videogen_models" "all" {}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ids"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("videogen-1"), knownvalue.StringExact("videogen-2"),
					})),
				},
			},
		},
	})
}
