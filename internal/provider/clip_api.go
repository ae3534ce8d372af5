package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/videogen/terraform-provider-videogen/internal/framework/privatestate"
)

// A task ID names a task only on the API that made it: after the provider's api
// changes, a refresh would ask the other API's paths for it, hear 404, and
// remove a billed clip from state, to be generated and billed again. So each
// clip records in private state the API it was made or imported through, and a
// clip of another API is an error that names api, with state left alone (see
// CONTRIBUTING.md, "OpenAI's video API").

// privateKeyAPI holds the API shape a clip was made or imported through. Clips
// made before it was recorded were made through the only API there was.
const privateKeyAPI privatestate.String = "api"

// recordClipAPI notes the provider's API in a clip's private state.
func (d *providerData) recordClipAPI(ctx context.Context, p privatestate.Setter) diag.Diagnostics {
	return privateKeyAPI.Set(ctx, p, string(d.api))
}

// clipAPI is the API a clip was made or imported through.
func clipAPI(ctx context.Context, p privatestate.Getter) apiShape {
	shape, diags := privateKeyAPI.Get(ctx, p)
	if diags.HasError() || shape == "" {
		return apiVideoGenerations
	}
	return apiShape(shape)
}

// checkClipAPI reports whether the clip of taskID belongs to the provider's API,
// and adds an error naming the provider's api when it does not (a diagnostic of
// the resource: api is not one of its attributes).
func (d *providerData) checkClipAPI(ctx context.Context, p privatestate.Getter, taskID string, diags *diag.Diagnostics) bool {
	made := clipAPI(ctx, p)
	if made == d.api {
		return true
	}
	diags.AddError("Clip Made Through Another API",
		fmt.Sprintf("Task %s was made through the %q API, but the provider's api is now %q, whose server may not know "+
			"the task: reading it there could remove a billed clip from state and generate it again. Set api back to "+
			"%q (a second provider block with an alias serves both APIs), or, to stop tracking the clip, remove it "+
			"with terraform state rm. State was left as it was.", taskID, made, d.api, made))
	return false
}
