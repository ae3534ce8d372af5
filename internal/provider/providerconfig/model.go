// Package providerconfig reads the provider block: its schema, and what its
// settings (and the environment variables they fall back to) make of the
// client, the task journal and the logs. It knows no resource: the provider
// hands in what its table of clip arguments says each API carries.
package providerconfig

import (
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

// The environment variables the provider block's settings fall back to; the
// plan-time checks name them in their advice.
const (
	EnvBaseURL = "VIDEOGEN_BASE_URL"
	EnvAPIKey  = "VIDEOGEN_API_KEY" //nolint:gosec // G101: the name of an environment variable, not a key
	EnvAPI     = "VIDEOGEN_API"
	// EnvJournalURL holds a database password: it is a secret like the API key.
	EnvJournalURL = "VIDEOGEN_JOURNAL_URL"
)

// Model is the provider block.
type Model struct {
	BaseURL        types.String `tfsdk:"base_url"`
	APIKey         types.String `tfsdk:"api_key"`
	MaxRetries     types.Int64  `tfsdk:"max_retries"`
	RequestTimeout types.String `tfsdk:"request_timeout"`
	PollInterval   types.String `tfsdk:"poll_interval"`
	// MaxRequestsPerSecond paces every API call of this provider configuration.
	MaxRequestsPerSecond types.Float64 `tfsdk:"max_requests_per_second"`
	// Billing safety.
	SubmitGatewayRetries types.Int64  `tfsdk:"submit_gateway_retries"`
	MaxNewClips          types.Int64  `tfsdk:"max_new_clips"`
	MaxCost              types.String `tfsdk:"max_cost"`
	JournalPath          types.String `tfsdk:"journal_path"`
	// The API the server speaks, and whether destroy deletes on one with a delete.
	API types.String `tfsdk:"api"`
	// Vertex AI's project and location (api = "vertex").
	Project         types.String `tfsdk:"project"`
	Location        types.String `tfsdk:"location"`
	DeleteOnDestroy types.Bool   `tfsdk:"delete_on_destroy"`
	JournalURL      types.String `tfsdk:"journal_url"`
	// The network to the service (network.go).
	CAFile  types.String `tfsdk:"ca_file"`
	CAPEM   types.String `tfsdk:"ca_pem"`
	Headers types.Map    `tfsdk:"headers"`
}

// NewClipLimit is max_new_clips, -1 when unset: no limit.
func (m Model) NewClipLimit() int64 {
	if m.MaxNewClips.IsNull() {
		return -1
	}
	return m.MaxNewClips.ValueInt64()
}

// CostLimit is max_cost, nil when unset: no cap.
func (m Model) CostLimit() *big.Rat {
	amount, ok := validators.ParseAmount(m.MaxCost.ValueString())
	if m.MaxCost.IsNull() || !ok {
		return nil
	}
	return amount
}

// DeletesOnDestroy is delete_on_destroy, true when unset.
func (m Model) DeletesOnDestroy() bool {
	return m.DeleteOnDestroy.IsNull() || m.DeleteOnDestroy.ValueBool()
}
