package provider

import (
	"regexp"
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
	}, publishLimits(map[string]string{
		"durations": `[5, "10s"]`, "supported_resolutions": `["480P", "720p"]`, "aspect_ratios": `["16:9"]`,
		"supports_audio": `true`, "pricing": `{"per_second": 0.05}`,
	}))
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
						"id":          knownvalue.StringExact("videogen-1"),
						"owned_by":    knownvalue.StringExact("videogen"),
						"created":     knownvalue.NotNull(),
						"max_seconds": knownvalue.Int64Exact(10),
						"seconds":     knownvalue.ListExact([]knownvalue.Check{knownvalue.Int64Exact(5), knownvalue.Int64Exact(10)}),
						"resolutions": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("480p"), knownvalue.StringExact("720p")}),
						"ratios":      knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("16:9")}),
						// Every field of the record, the ones the provider does not read included.
						"supports_audio": knownvalue.Bool(true),
						"raw_json":       knownvalue.StringRegexp(regexp.MustCompile(`"pricing":\{"per_second":0.05\}.*"id":"videogen-1"|"id":"videogen-1".*"pricing":\{"per_second":0.05\}`)),
					})),
					// A record that states no limits has none.
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("models").AtSliceIndex(2), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"id":             knownvalue.StringExact("videogen-2"),
						"owned_by":       knownvalue.StringExact("videogen"),
						"created":        knownvalue.NotNull(),
						"max_seconds":    knownvalue.Null(),
						"seconds":        knownvalue.Null(),
						"resolutions":    knownvalue.Null(),
						"ratios":         knownvalue.Null(),
						"supports_audio": knownvalue.Null(),
						"raw_json":       knownvalue.StringRegexp(regexp.MustCompile(`^\{.*"id":"videogen-2".*\}$`)),
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

// A model list that the service rejects as invalid, blaming what would be a
// clip argument, is not pinned on an argument: the data source has none.
func TestAccModelsDataSource_badRequestNamesNoArgument(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      rejectingProviderBlock(t, "seconds") + `data "videogen_models" "all" {}`,
			ExpectError: wrapped("Unable to List Models", "rejected the request as invalid", "Check the arguments against the service's rules"),
		}},
	})
}
