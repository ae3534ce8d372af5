package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
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
// number of retries. The mock refuses the first submissions whatever its
// bucket holds, so the limit is met however fast the machine is.
func TestAccProvider_rateLimitToleratedWithoutRetries(t *testing.T) {
	const clips, refused = 10, 3
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) {
		cfg.RateLimit = mockapi.RateLimit{RequestsPerSecond: 5, Burst: 1}
	})
	mock.RateLimitSubmissions(refused)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: mock.ProviderBlock("max_retries = 0") + rateLimitedClips(clips),
			Check: resource.ComposeTestCheckFunc(
				mock.ExpectSubmissions(clips),
				func(*terraform.State) error {
					if n := mock.Ledger().Responses["429"]; n < refused {
						return fmt.Errorf("%d requests were answered 429, want at least the %d refused submissions", n, refused)
					}
					return nil
				},
			),
		}},
	})
}

// A large batch the way the CI guide says to run one: -parallelism raised to
// the number of clips that may generate at once, against a key limited to 50
// requests per second with a burst of 10, which a hundred submissions started
// at once run into. With max_requests_per_second at the key's limit, and
// without it (default settings: the first 429 paces every call, and refused
// calls are sent again for a time), the apply ends with no error and exactly
// one task per clip, and a plan after it is empty. Without the limiter, the
// mock also refuses the first submissions whatever its bucket holds, so that
// run meets the limit however slowly a loaded machine sends its requests.
// Only counts are checked: how many requests were answered 429 and how long
// it took depend on the machine, and are measured by make bench (the fan-out
// case).
func TestAccProvider_largeBatchAtHighParallelism(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	const clips, parallelism, rate, refused = 200, 100, 50, 3
	for _, tc := range []struct {
		name     string
		settings []string
	}{
		{"limiter set", []string{fmt.Sprintf("max_requests_per_second = %d", rate)}},
		{"limiter unset", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, func(cfg *mockapi.Config) {
				cfg.RateLimit = mockapi.RateLimit{RequestsPerSecond: rate, Burst: 10}
			})
			if tc.settings == nil {
				mock.RateLimitSubmissions(refused)
			}
			wd := cliWorkdir(t, mock, rateLimitedClips(clips), tc.settings...)
			if err := wd.Apply(t.Context(), tfexec.Parallelism(parallelism)); err != nil {
				t.Fatal(err)
			}
			if n := mock.Submissions(); n != clips {
				t.Fatalf("the ledger shows %d submissions for %d clips", n, clips)
			}
			st, err := wd.State(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			tasks := map[any]bool{}
			for _, r := range st.Values.RootModule.Resources {
				if r.Type == "videogen_video" && r.AttributeValues["status"] == "succeeded" {
					tasks[r.AttributeValues["task_id"]] = true
				}
			}
			if len(tasks) != clips {
				t.Fatalf("the state holds %d succeeded clips with distinct tasks, want %d", len(tasks), clips)
			}
			if changes, err := wd.Plan(t.Context()); err != nil || changes {
				t.Fatalf("the plan after: changes %v, error %v; want an empty plan", changes, err)
			}
			l := mock.Ledger()
			t.Logf("%d of %d requests answered 429", l.Responses["429"], l.RequestCount())
			if tc.settings == nil && l.Responses["429"] < refused {
				t.Fatalf("%d requests were answered 429, want at least the %d refused submissions", l.Responses["429"], refused)
			}
		})
	}
}
