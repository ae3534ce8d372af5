package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
)

// taskOutcome is what the service reports of a task beside the echo of its
// arguments, as Terraform values: null wherever it says nothing. The resource
// and the data source both read a task through it and echoOf.
func taskOutcome(v *client.Video) (status, url, format types.String) {
	status, url, format = types.StringValue(string(v.Status)), types.StringNull(), stringOrNull(v.Format)
	if v.Status == client.StatusSucceeded {
		url = stringOrNull(v.URL)
	}
	return status, url, format
}

// echoOf is the service's echo of a task's arguments, in the request's shape:
// an echoed argument's row reads its value from it (clipArgument.value). Its
// reference URLs are without their store's signing parameters: the echo of a clip
// made from write-only media must not bring a presigned URL, a credential while it
// lives, into an import's state or the data source, and a configured URL, signed
// or not, still means the same media (validators.SameMediaLists).
func echoOf(v *client.Video) *client.VideoRequest {
	return canonical(client.VideoRequest{Metadata: v.Metadata.Unsigned()})
}

// recordEcho merges the service's echo into the model. An echoed argument that
// means what the model holds keeps the model's spelling, and one the service
// leaves out keeps its value, since the API does not promise every echo; a real
// difference is recorded, so that it shows in the next plan. A clip made from
// write-only media records none of the echoed media: their URLs must not reach
// state.
func (m *videoResourceModel) recordEcho(v *client.Video) {
	echo := echoOf(v)
	for _, a := range clipArguments {
		switch {
		case !a.echoed:
		case a.writeOnly != nil && !m.ReferenceMediaWOVersion.IsNull():
			m.setArg(a.name, types.ListNull(types.StringType))
		default:
			m.setArg(a.name, keptOrEchoed(m.arg(a.name), a.value(echo), a.same))
		}
	}
}

// keptOrEchoed keeps what configuration or state already holds when the service says
// nothing, or says the same thing in another spelling: an echo that means the same
// never changes state, so it can neither show as drift nor make Terraform reject the
// apply as inconsistent. An unset argument the service says nothing of is null.
func keptOrEchoed[T attr.Value](current, echo T, same sameMeaning) T {
	switch {
	case echo.IsNull() && current.IsUnknown():
		return echo
	case echo.IsNull():
		return current
	case !current.IsNull() && !current.IsUnknown() && same(current, echo):
		return current
	}
	return echo
}

// applyVideo records what the service reports (see recordEcho).
func (m *videoResourceModel) applyVideo(v *client.Video) {
	// The URL of a finished clip stays the one first recorded: a signed URL changes
	// on every read, and the clip behind it does not.
	keepURL := m.Status.ValueString() == string(client.StatusSucceeded) && v.Status.Usable() &&
		!m.URL.IsNull() && !m.URL.IsUnknown()
	status, url, format := taskOutcome(v)
	m.Status = status
	if m.Billing.IsUnknown() {
		// A creation the plan could not call new or resumed records what its task costs.
		m.Billing = types.StringValue(clip.BillingOf(v.Status))
	}
	if !keepURL {
		m.URL = url
	}
	if !format.IsNull() || m.Format.IsUnknown() {
		m.Format = format
	}
	m.recordEcho(v)
}
