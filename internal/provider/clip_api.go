package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/framework/privatestate"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

// A task ID names a task only on the API that made it: after the provider's api
// changes, a refresh would ask the other API's paths for it, hear 404, and
// remove a billed clip from state, to be generated and billed again. So each
// clip records in private state the API it was made or imported through, and a
// clip of another API is an error that names api, with state left alone (see
// CONTRIBUTING.md, "OpenAI's video API").

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

// checkLetGoTaskAPI reports whether the unfinished task of a clip that Delete is
// about to hand to its replacement, or let go of, is one the provider's API
// knows, and adds an error when that is not proven: Delete then leaves state as
// it was. A task handed over through the wrong API is lost: the replacement reads
// it on this API's paths, hears 404, drops it and submits the clip again, billed
// twice, while nothing holds the first task any more.
//
// The private state Terraform hands the Delete of a tainted clip is its
// replacement's planned one, which records no API, so only a plain destroy's
// (the clip's own) tells which API made the clip. Otherwise the service is asked:
// a plan with a refresh read the task through this API already (Read refuses a
// clip of another API), but one made with -refresh=false read nothing, and
// Delete cannot tell the two apart. apiRecorded says whether the private state
// Delete was handed records an API.
func (d *providerData) checkLetGoTaskAPI(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse,
	m videoResourceModel, apiRecorded bool,
) bool {
	taskID := m.TaskID.ValueString()
	if apiRecorded {
		return d.checkClipAPI(ctx, req.Private, taskID, &resp.Diagnostics)
	}
	madeThrough, known := d.taskKnownHere(ctx, m, &resp.Diagnostics)
	if known {
		return true
	}
	resp.Diagnostics.Append(restoreOwnMarks(ctx, resp.Private, madeThrough)...)
	return false
}

// taskKnownHere reads an unfinished task through the provider's API, and says,
// when it cannot (with an error), which API the clip was most likely made through.
// Only a 404 from an address proven to be the service points at another one;
// after any other failure the provider's own is the likelier, and the next Read
// checks the task again.
func (d *providerData) taskKnownHere(ctx context.Context, m videoResourceModel, diags *diag.Diagnostics) (apiShape, bool) {
	taskID := m.TaskID.ValueString()
	_, held, err := d.lifecycle.ReadHeld(ctx, taskID, client.Status(m.Status.ValueString()), clip.OriginUnknown)
	switch {
	case err == nil && held == clip.HeldByService:
		return d.api, true
	case clip.WrongAddress(err):
		addAPIError(diags, "Unable to Delete Video", apidiag.WrongAddress, err)
		return d.api, false
	case held != clip.UnknownHere:
		advice, _ := apidiag.Advice(apidiag.Get, err, nil)
		diags.AddError("Unable to Delete Video",
			fmt.Sprintf("Task %s (the clip of prompt %q) is unfinished, and before it is handed to the clip that replaces "+
				"this one (or let go of), the provider reads it to make sure that the %q API, the provider's api, knows it. "+
				"That read failed. %s State was left as it was: apply again once the service answers.\n\nOriginal error: %s",
				taskID, clip.ShortPrompt(m.Prompt.ValueString()), d.api, advice, err))
		return d.api, false
	}
	// There are two APIs: a task unknown to one was made through the other.
	other := apiVideoGenerations
	if d.api == apiVideoGenerations {
		other = apiOpenAIVideos
	}
	diags.AddError("Unfinished Task Unknown to This API",
		fmt.Sprintf("Task %s (the clip of prompt %q) was unfinished when it was last read, and the service does not "+
			"know it through the %q API, the provider's api now. Most likely the clip was made through another API (%q), "+
			"whose paths alone know the task; or the task no longer exists. Handing it to the clip that replaces this "+
			"one would lose it: the replacement would not find it, and would submit (and bill) the clip again while "+
			"the task runs on. If api changed since the clip was made, set it back and apply again (the replacement "+
			"then takes the task over; a second provider block with an alias serves both APIs). If the task is gone, "+
			"remove the clip with terraform state rm and apply again. State was left as it was.\n\nOriginal error: %s",
			taskID, clip.ShortPrompt(m.Prompt.ValueString()), d.api, other, err))
	return other, false
}
