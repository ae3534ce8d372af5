package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

func rateLimitedClips(n int) string {
	return fmt.Sprintf(`
resource "videogen_video" "clip" {
  count  = %d
  model  = "videogen-1"
  prompt = "clip number ${count.index}"
}
`, n)
}

// max_requests_per_second paces a batch: one task per clip, and calls no faster
// than the rate, against a service that would take them faster. The pacing is
// checked by a lower bound only, which a slow machine cannot break: the limiter
// lets no two calls go less than 1/rate apart (its bucket holds a single call
// at this rate), so the apply's submissions and status reads took at least
// (calls - 1)/rate.
func TestAccProvider_maxRequestsPerSecond(t *testing.T) {
	const clips, rate = 20, 10
	mock := acctest.NewMock(t)
	start := time.Now()
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock(fmt.Sprintf("max_requests_per_second = %d", rate)) + rateLimitedClips(clips),
			Check: resource.ComposeTestCheckFunc(
				mock.ExpectSubmissions(clips),
				func(*terraform.State) error {
					l := mock.Ledger()
					calls := l.Requests["POST /v1/video/generations"] + l.Requests["GET /v1/video/generations/{task_id}"]
					if least := time.Duration(calls-1) * time.Second / rate; time.Since(start) < least {
						return fmt.Errorf("%d calls in %s: faster than %d per second", calls, time.Since(start), rate)
					}
					return nil
				},
			),
		}},
	})
}

// Without max_requests_per_second and with no retries at all, a batch that runs
// into the key's rate limit still succeeds with one task per clip: a 429 with
// Retry-After pauses every call and is sent again, for a time rather than a
// number of retries.
func TestAccProvider_rateLimitToleratedWithoutRetries(t *testing.T) {
	const clips = 10
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) {
		cfg.RateLimit = mockapi.RateLimit{RequestsPerSecond: 5, Burst: 1}
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock("max_retries = 0") + rateLimitedClips(clips),
			Check: resource.ComposeTestCheckFunc(
				mock.ExpectSubmissions(clips),
				func(*terraform.State) error {
					if n := mock.Ledger().Responses["429"]; n == 0 {
						return fmt.Errorf("no request was answered 429: the test did not exercise the rate limit")
					}
					return nil
				},
			),
		}},
	})
}
