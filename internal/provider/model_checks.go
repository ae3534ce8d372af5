package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
	"github.com/videogen/terraform-provider-videogen/internal/provider/providerconfig"
)

// checkModelLimits checks a new clip against the limits its model's record in
// GET /v1/models publishes (see client.ModelLimits), through the rows of the
// clip-argument table that have a check (clipArgument.offered), attaching each
// error to the row's argument, so that a clip the service would refuse fails
// the plan instead of one submission at apply. What the record does not say is
// not checked: the service's own answer at apply is then the check. A list
// that cannot be read, or that lacks the model, is checkModel's to report.
func checkModelLimits(ctx context.Context, data *providerData, plan *videoResourceModel, diags *diag.Diagnostics) {
	if data == nil || data.models == nil || plan.Model.IsUnknown() || plan.Model.IsNull() {
		return
	}
	model, ok := data.models.Record(ctx, plan.Model.ValueString())
	if !ok || !model.Limits.Any() {
		return
	}
	source := fmt.Sprintf("The service's model list (GET %s/models) publishes", data.client.BaseURL())
	for _, a := range clipArguments {
		if v := plan.arg(a.name); a.offered != nil && !v.IsNull() && !v.IsUnknown() {
			if summary, detail := a.offered(v, model.Limits, source, model.ID); summary != "" {
				diags.AddAttributeError(path.Root(a.name), summary, detail)
			}
		}
	}
}

// reportModelsFailure turns a failure to fetch the model list at plan time into one
// diagnostic per provider process. It is an error whenever the apply could not
// work either: a rejected key, a service that cannot be reached, an address that
// answers but is not the service. A service that answers but will not give the
// list (403, rate limits, server errors) may still take the submissions, so the
// plan goes on with a warning. docs/index.md, "Plan-time checks", says the same
// to users; keep the two in step.
func (p *providerData) reportModelsFailure(err error, diags *diag.Diagnostics) {
	p.modelsReported.Do(func() {
		var apiErr *client.APIError
		var unreachable *client.UnreachableError
		switch {
		case client.IsUnauthorized(err):
			diags.AddError("Invalid API Key", fmt.Sprintf("The service rejected the API key (HTTP 401) when the plan checked "+
				"the model against GET /v1/models, so every request of the apply would fail too. Check api_key in the "+
				"provider block or the %s environment variable; a key deleted or revoked in the console must be replaced "+
				"by a new one. Nothing has been submitted.\n\nOriginal error: %s", providerconfig.EnvAPIKey, err))
		case errors.As(err, &unreachable) && client.IsUntrustedCertificate(err):
			diags.AddError("Video Service Certificate Not Trusted", fmt.Sprintf("The plan could not reach the service at %s "+
				"to check the model against its model list: %s. %s Nothing has been submitted.\n\nOriginal error: %s",
				p.client.BaseURL(), unreachable.Reason(), apidiag.UntrustedCertificateAdvice, err))
		case errors.As(err, &unreachable):
			diags.AddError("Video Service Unreachable", fmt.Sprintf("The plan could not reach the service at %s to check "+
				"the model against its model list: %s. An apply could not submit anything either, so the plan stops here. "+
				"Check the host and port in base_url (or %s), DNS, proxy settings (HTTPS_PROXY, NO_PROXY) and the "+
				"service's TLS certificate, or whether the service is down. Nothing has been submitted.\n\n"+
				"Original error: %s", p.client.BaseURL(), unreachable.Reason(), providerconfig.EnvBaseURL, err))
		case client.IsNotFound(err) || !errors.As(err, &apiErr):
			diags.AddError("Wrong Base URL", fmt.Sprintf("The plan checked the model against %s/models: something answered "+
				"there, but not with a model list, so base_url (or %s) most likely does not point at the video generation "+
				"API: check its path (with or without the /v1 suffix, but without any other path the service does not "+
				"have). Nothing has been submitted.\n\nOriginal error: %s", p.client.BaseURL(), providerconfig.EnvBaseURL, err))
		default:
			diags.AddWarning("Model Not Checked", fmt.Sprintf("The service at %s answered, but not with its model list: %s. "+
				"The plan goes on without checking the models and their limits; if one is wrong, the apply fails without "+
				"billing anything. If this persists, check the key's permissions and the service's status.\n\n"+
				"Original error: %s", p.client.BaseURL(), catalogFailure(err), err))
		}
	})
}

func catalogFailure(err error) string {
	switch {
	case client.IsRateLimited(err):
		return "it kept rate-limiting the request"
	case client.IsServerError(err):
		return "it kept answering with a server error"
	case client.IsForbidden(err):
		return "it refused to list models for this key"
	}
	return "it answered with an error"
}
