package provider

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

// addAPIError is apidiag.Add for the clips of videogen_video, whose arguments
// a rejected request may concern (attributeForBadRequest).
func addAPIError(diags *diag.Diagnostics, summary string, op apidiag.Operation, err error) {
	apidiag.Add(diags, summary, op, err, attributeForBadRequest)
}

// addUncertainAttemptsWarning says that a submission got through only after
// attempts that may each have created a task nobody tracks.
func addUncertainAttemptsWarning(diags *diag.Diagnostics, v *client.Video) {
	diags.AddWarning("Submission May Have Created an Untracked Task",
		fmt.Sprintf("Task %s was created and is tracked in state. Before it, %s: a gateway may answer so after the service "+
			"has already accepted the task, so that attempt may have created another task, billed and tracked by nobody. "+
			"Look in the service's console for a second task created just now with this prompt. Set submit_gateway_retries "+
			"= 0 in the provider block never to send a submission twice.", v.TaskID, strings.Join(v.UncertainAttempts, "; ")))
}

// addRemovedFromStateWarning says what destroying a clip does, for every clip of
// the run at once; why says why it is not deleted (providerData.keptBecause).
func addRemovedFromStateWarning(diags *diag.Diagnostics, why string) {
	diags.AddWarning("Video Removed From State Only",
		fmt.Sprintf("Destroying a videogen_video only removes it from Terraform state when %s. Every clip this run "+
			"destroys so, except one whose task failed (never billed), stays on the service and stays billed (an "+
			"unfinished task if it succeeds); their task IDs are in the plan above if you need to find them in the "+
			"service's console.", why))
}

// addAbandonedTaskWarning names a task that an earlier run left unfinished and
// that no replacement took over, because the clip is now asked for differently.
// The clip is named by the prompt it was made with: Terraform shows no address
// for what a Delete says.
func addAbandonedTaskWarning(diags *diag.Diagnostics, clip videoResourceModel) {
	taskID := clip.TaskID.ValueString()
	diags.AddWarning("Unfinished Task Abandoned",
		fmt.Sprintf("Task %s (the clip of prompt %q) was still running when an earlier apply stopped waiting for it. Its "+
			"resource now asks for a different clip (an argument or triggers_replace changed), so a new task is submitted "+
			"instead of resuming %s. Task %s only leaves Terraform state, and %s.", taskID, shortPrompt(clip.Prompt),
			taskID, taskID, keptTaskCost(client.Status(clip.Status.ValueString()))))
}

// shortPrompt is a prompt as a message quotes it: its first 60 characters.
func shortPrompt(p types.String) string {
	r := []rune(p.ValueString())
	if len(r) > 60 {
		return string(r[:60]) + "..."
	}
	return string(r)
}

// addResumeNotPossibleWarning says that a clip planned to resume an earlier task
// is submitted as a new one: the task failed or went away after the plan, or an
// identical clip of the same apply took it over first.
func addResumeNotPossibleWarning(diags *diag.Diagnostics) {
	diags.AddWarning("Planned Resume Not Possible",
		"The plan said this clip resumes an earlier task with no new charge, but at apply no unfinished task of exactly "+
			"this clip could be taken over: it failed or is gone since the plan, or an identical clip of this apply took "+
			"it first. A new task is submitted instead, and it is billed when it succeeds. State keeps the planned billing "+
			"until the next refresh records what the new task bills.")
}

// attributeForBadRequest maps the parameters the service's 400 blames (see
// client.BlamedParams) to the clip argument the request carries there (its
// row's member, such as "metadata.ratio" or "metadata.content[].image_url").
func attributeForBadRequest(err error) string {
	for _, param := range client.BlamedParams(err) {
		param = strings.TrimPrefix(strings.ToLower(param), "metadata.")
		for _, a := range clipArguments {
			field := a.request[apiVideoGenerations]
			if field.get == nil {
				continue // vendor parameters (extra_metadata) are the service's to name
			}
			word := field.member[strings.LastIndex(field.member, ".")+1:]
			if param == a.name || strings.HasPrefix(param, word) || strings.Contains(param, "."+word) {
				return a.name
			}
		}
	}
	return ""
}

// addWaitError explains how a wait ended without success, and how to finish
// without paying twice.
func addWaitError(diags *diag.Diagnostics, taskID, op string, timeout time.Duration, err error) {
	var failed *client.TaskFailedError
	switch {
	case errors.As(err, &failed):
		reason := failed.Reason
		if reason == "" {
			reason = "the service gave no reason"
		}
		diags.AddError("Video Generation Failed", fmt.Sprintf(
			"Task %s ended without a clip: %s. A failed generation is not billed. The resource is marked tainted, so "+
				"the next terraform apply submits a new task; if the failure comes from the prompt or the reference media "+
				"(for example a content policy), change them first.", taskID, reason))
	case apidiag.AddVideoNotReady(diags, path.Empty(), taskID, err, client.StatusSubmitted, "timeouts."+op, timeout, fmt.Sprintf(
		"It was submitted, is billed once it succeeds, and is saved in state.\n\n"+
			"Apply again to keep waiting for the same task: the next terraform apply takes task %s over instead of "+
			"submitting a new one; its plan shows the resource as tainted and replaced, with billing = %q. If the "+
			"arguments of this resource change before then, a new task is submitted and task %s is left running. To "+
			"wait longer, raise timeouts.%s.", taskID, billingResumes, taskID, op)):
	default:
		advice, _ := apidiag.Advice(apidiag.Get, err, attributeForBadRequest)
		diags.AddError("Unable to Wait for Video", fmt.Sprintf(
			"Task %s was submitted, but its status could not be read. %s The task is saved in state: once the problem "+
				"is fixed, apply again to keep waiting for the same task (the plan shows the resource as tainted and "+
				"replaced, but the apply takes task %s over instead of submitting a new one).\n\nOriginal error: %s",
			taskID, advice, taskID, err))
	}
}
