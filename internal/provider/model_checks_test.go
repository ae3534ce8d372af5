package provider

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// An address that refuses connections fails the plan with the transport
// error, not as a wrong base URL, and nothing is submitted.
func TestAccModelCatalog_unreachableServiceFailsPlan(t *testing.T) {
	mock := acctest.NewMock(t)
	refused, err := mockapi.RefusedURL(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	config := mock.ProviderBlock("base_url = "+strconv.Quote(refused), "max_retries = 1") + `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "nobody answers"
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:   config,
			PlanOnly: true,
			ExpectError: wrapped("Video Service Unreachable", "the connection was refused", "base_url", "VIDEOGEN_BASE_URL",
				"Nothing has been submitted", "connection refused"),
		}},
	})
	if n := mock.Ledger().RequestCount(); n != 0 {
		t.Errorf("the mock received %d request(s), want none", n)
	}
}

// publishLimits makes the mock's model list publish limits for videogen-1,
// under field names another service might use, as given.
func publishLimits(record map[string]string) func(*mockapi.Config) {
	return func(cfg *mockapi.Config) {
		for i := range cfg.Models {
			if cfg.Models[i].ID == "videogen-1" {
				cfg.Models[i].Record = map[string]json.RawMessage{}
				for k, v := range record {
					cfg.Models[i].Record[k] = json.RawMessage(v)
				}
			}
		}
	}
}

// A clip outside the limits its model's record publishes is refused with an
// error on the argument concerned, and nothing is submitted; within them, or
// for a model whose record says nothing, nothing is said.
func TestCheckModelLimits(t *testing.T) {
	mock := acctest.NewMock(t, publishLimits(map[string]string{
		"max_duration": `10`, "supported_resolutions": `["480p","720p"]`, "aspect_ratios": `["16:9","9:16"]`, "generate_audio": `false`,
	}))
	c := mock.Client(t)
	data := &providerData{client: c, models: client.NewModelCatalog(c)}
	clip := func(model, seconds, resolution, ratio string, audio bool) *videoResourceModel {
		m := &videoResourceModel{Model: types.StringValue(model), GenerateAudio: types.BoolValue(audio)}
		m.Seconds, m.Resolution, m.Ratio = stringOrNull(seconds), stringOrNull(resolution), stringOrNull(ratio)
		return m
	}
	for name, tt := range map[string]struct {
		plan *videoResourceModel
		want []string // attributes with an error
	}{
		"within":           {clip("videogen-1", "10", "720P", "16:9", false), nil},
		"unset":            {clip("videogen-1", "", "", "", false), nil},
		"too long":         {clip("videogen-1", "600", "", "", false), []string{"seconds"}},
		"every limit":      {clip("videogen-1", "11", "1080p", "1:1", true), []string{"seconds", "ratio", "resolution", "generate_audio"}}, // the table's order
		"record says none": {clip("videogen-2", "600", "4k", "1:1", true), nil},
		"unknown model":    {clip("no-such-model", "600", "", "", false), nil},
	} {
		var diags diag.Diagnostics
		checkModelLimits(t.Context(), data, tt.plan, &diags)
		var got []string
		for _, d := range diags.Errors() {
			wd, ok := d.(diag.DiagnosticWithPath)
			if !ok {
				t.Errorf("%s: error without an attribute: %s", name, d.Summary())
				continue
			}
			got = append(got, wd.Path().String())
			if !strings.Contains(d.Detail(), "Nothing has been submitted") || !strings.Contains(d.Detail(), "GET ") {
				t.Errorf("%s: detail %q does not say where the limit comes from and that nothing was submitted", name, d.Detail())
			}
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: errors on %q, want %q (%v)", name, got, tt.want, diags)
		}
	}
	if n := mock.Submissions(); n != 0 {
		t.Errorf("the checks submitted %d task(s)", n)
	}
}

// A service that answers, but not with its model list (here a server error on
// every request), may still take the submissions: the plan warns that the model
// was not checked and goes on, where an unreachable one fails.
func TestAccModelCatalog_failingListWarns(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.FaultRate = 1 })
	wd := cliWorkdir(t, mock, cliVideo("the list fails"), "max_retries = 0")
	var out strings.Builder
	wd.TF.SetStdout(&out)
	changes, err := wd.Plan(t.Context())
	wd.TF.SetStdout(nil)
	if err != nil || !changes {
		t.Fatalf("plan: changes %v, error %v\n%s", changes, err, out.String())
	}
	if !wrapped("Warning: Model Not Checked", "answered, but not with its model list", "server error").MatchString(out.String()) {
		t.Fatalf("the plan does not warn that the model was not checked:\n%s", out.String())
	}
	if n := mock.Submissions(); n != 0 {
		t.Errorf("the plan submitted %d task(s)", n)
	}
}

// A limit the model's record publishes fails the plan on the argument that
// breaks it, for a new clip and for a replacement alike, and nothing more is
// submitted: in a batch, the apply never starts.
func TestAccModelCatalog_publishedLimitsFailPlan(t *testing.T) {
	mock := acctest.NewMock(t, publishLimits(map[string]string{
		"max_duration": `10`, "supported_resolutions": `["480p","720p"]`,
	}))
	clip := func(args string) string {
		return mock.ProviderBlock() + `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "a lighthouse at dusk"
` + args + `
}
`
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      clip(`  seconds = "600"`),
				ExpectError: wrapped("Clip Too Long for Model", `seconds`, "maximum of 10 seconds", "Nothing has been submitted"),
			},
			{
				Config:      clip(`  resolution = "1080p"`),
				ExpectError: wrapped("Resolution Not Offered by Model", `resolution`, "480p, 720p", `resolution is "1080p"`),
			},
			{
				Config: clip(`  seconds = "10"`),
				Check:  mock.ExpectSubmissions(1),
			},
			{
				// Replacing the clip would submit a new one: the same limits apply.
				Config:      clip(`  seconds = "600"`),
				ExpectError: wrapped("Clip Too Long for Model", "maximum of 10 seconds"),
			},
			mock.NothingNewStep(clip(`  seconds = "10"`), 1),
		},
	})
}
