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
)

// operation names the API call that failed, because the same status means different
// things on different calls (a 404 on submission is an unknown model, on a read an
// unknown task).
type operation int

const (
	opSubmit operation = iota
	opGet
	opListModels
	// opDelete deletes a destroyed clip's video: nothing is billed or refunded,
	// and no clip argument is concerned.
	opDelete
	// opWrongAddress is a 404 from an address whose model list cannot be read
	// either: base_url does not point at the service.
	opWrongAddress
)

// addAPIError turns a client error into a diagnostic whose detail says what happened,
// what to do, and then quotes the original error. Errors that concern one argument
// are attached to it.
func addAPIError(diags *diag.Diagnostics, summary string, op operation, err error) {
	advice, attr := adviceFor(op, err)
	detail := fmt.Sprintf("%s\n\nOriginal error: %s", advice, err)
	if attr != "" {
		diags.AddAttributeError(path.Root(attr), summary, detail)
		return
	}
	diags.AddError(summary, detail)
}

func adviceFor(op operation, err error) (advice, attr string) {
	var apiErr *client.APIError
	var waitErr *client.WaitError
	switch {
	case client.IsAmbiguousSubmit(err):
		return "A task may exist (and be billed) although no task ID came back: the submission failed after its request " +
			"may already have reached the service" + doubtsText(err) + ". Before applying again, look in the service's " +
			"console for a task created just now with this prompt. If there is one, adopt it with terraform import (or an " +
			"import block) instead of applying, which would submit another task; if there is none, apply again.", ""
	case errors.Is(err, client.ErrNotSubmitted):
		return "The run was interrupted before the submission reached the service: no task was created and nothing " +
			"was billed. Apply again to create the clip.", ""
	case op == opWrongAddress:
		return "The service at base_url answered 404 Not Found, and its model list could not be read either, so base_url " +
			"(or VIDEOGEN_BASE_URL) most likely does not point at the video generation API: check its host and path (for " +
			"example https://host/api where the service is at https://host). Nothing was removed from state and nothing " +
			"was submitted; fix base_url and run the command again.", ""
	case errors.As(err, &waitErr) && !waitErr.Interrupted() && waitErr.Err != nil && op == opGet:
		return adviceFor(op, waitErr.Err)
	case op == opDelete && !client.IsUnauthorized(err):
		return deleteAdvice(err), ""
	case client.IsUnauthorized(err):
		return "The service rejected the API key. Check the provider's api_key argument or the VIDEOGEN_API_KEY " +
			"environment variable. The key may have been deleted or revoked in the console: create a new key there.", ""
	case client.IsForbidden(err), client.IsQuotaExhausted(err):
		return forbiddenAdvice(err), ""
	case client.IsUnknownModel(err):
		// A gateway's model_not_found: whatever its status (new-api sends 503),
		// it concerns the model argument and no retry changes it.
		return "The service (or the gateway in front of it) has no model, or no channel serving it, by this ID. Model " +
			"IDs must match GET /v1/models exactly; the videogen_models data source lists the ones this key may use. " +
			"Nothing was submitted or billed.", "model"
	case client.IsNotFound(err) && op == opSubmit:
		return "The service does not know this model ID. Model IDs must match GET /v1/models exactly; the videogen_models " +
			"data source lists the ones this key may use.", "model"
	case client.IsNotFound(err) && op == opListModels:
		return "The service has no /v1/models endpoint at this address. Check base_url (or VIDEOGEN_BASE_URL): it must " +
			"point at the video generation API, with or without its /v1 suffix.", ""
	case client.IsNotFound(err):
		return "The service does not know this task ID. If it was imported, check the ID; if it existed before, the " +
			"service no longer has it.", ""
	case client.IsBadRequest(err):
		attr := attributeForBadRequest(err)
		where := "Check the arguments against the service's rules"
		if attr != "" {
			where = fmt.Sprintf("This most likely concerns the %q argument", attr)
		}
		return fmt.Sprintf("The service rejected the request as invalid: %s. %s; failed requests are not billed.",
			strings.TrimSuffix(client.ServiceMessage(err), "."), where), attr
	case client.IsRateLimited(err):
		return fmt.Sprintf("The service's rate limit for this key was still exceeded %s. Lower Terraform's -parallelism, "+
			"raise the provider's max_retries, or ask the service for a higher limit; then apply again.", attemptsText(err)), ""
	case client.IsServerError(err):
		return fmt.Sprintf("The service kept answering with a server error %s. Such errors are usually transient: apply "+
			"again in a few minutes. Failed requests are not billed.", attemptsText(err)), ""
	case errors.As(err, &apiErr):
		return fmt.Sprintf("The service answered with an unexpected HTTP %d.", apiErr.StatusCode), ""
	}
	var tErr *client.TransportError
	if errors.As(err, &tErr) {
		return fmt.Sprintf("The service could not be reached %s. Check base_url (or VIDEOGEN_BASE_URL), the network path "+
			"to it, and the provider's request_timeout.", attemptsText(err)), ""
	}
	return "The provider could not understand the service's answer. Check that base_url points at the video generation API.", ""
}

// doubtsText names the attempts that a gateway failed after forwarding them.
func doubtsText(err error) string {
	var ambiguous *client.AmbiguousSubmitError
	if errors.As(err, &ambiguous) && len(ambiguous.Doubts) > 0 {
		return " (" + strings.Join(ambiguous.Doubts, "; ") + ", and gateway errors such as 502 and 504 may come after " +
			"the service accepted a task)"
	}
	return ""
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

// deleteAdvice says what a failed delete of a video means: the clip stays
// billed as it was and nothing about its arguments is wrong, so none of the
// submission's advice (balance, model, arguments, billing) applies.
func deleteAdvice(err error) string {
	var apiErr *client.APIError
	switch {
	case client.IsForbidden(err):
		return fmt.Sprintf("The service refused to delete it (%s): this API key may not delete the videos of the "+
			"account or project that made it. Use the key that made the clip.", client.ServiceMessage(err))
	case client.IsNotFound(err):
		return "The service does not know this video any more."
	case client.IsRateLimited(err):
		return fmt.Sprintf("The service's rate limit for this key was still exceeded %s. Lower Terraform's -parallelism "+
			"or raise the provider's max_retries.", attemptsText(err))
	case client.IsServerError(err):
		return fmt.Sprintf("The service kept answering with a server error %s. Such errors are usually transient: try "+
			"again in a few minutes.", attemptsText(err))
	case errors.As(err, &apiErr):
		return fmt.Sprintf("The service refused the delete with HTTP %d (%s).", apiErr.StatusCode, client.ServiceMessage(err))
	}
	var tErr *client.TransportError
	if errors.As(err, &tErr) {
		return fmt.Sprintf("The service could not be reached %s. Check base_url (or VIDEOGEN_BASE_URL), the network path "+
			"to it, and the provider's request_timeout.", attemptsText(err))
	}
	return "The provider could not understand the service's answer."
}

func forbiddenAdvice(err error) string {
	msg := client.ServiceMessage(err)
	switch client.CauseOfForbidden(err) {
	case client.ForbiddenBalance:
		return fmt.Sprintf("The account's balance is too low for this clip (%s). Top up the balance in the service's "+
			"console, then apply again; nothing was billed for this request.", msg)
	case client.ForbiddenModel:
		return fmt.Sprintf("This API key may not use the requested model (%s). Use a model this key may use (the "+
			"videogen_models data source lists them) or a key that is allowed this model.", msg)
	}
	return fmt.Sprintf("The service refused the request (%s). Either the account's balance is too low (top it up in the "+
		"console) or this API key may not use the requested model (choose one listed by the videogen_models data source).", msg)
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

// attemptsText says how many attempts a failed call made.
func attemptsText(err error) string {
	attempts, elapsed := client.Attempts(err)
	if attempts <= 1 {
		return "on the only attempt"
	}
	return fmt.Sprintf("after %d attempts over %s", attempts, elapsed.Round(100*time.Millisecond))
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
	case addVideoNotReady(diags, path.Empty(), taskID, err, client.StatusSubmitted, "timeouts."+op, timeout, fmt.Sprintf(
		"It was submitted, is billed once it succeeds, and is saved in state.\n\n"+
			"Apply again to keep waiting for the same task: the next terraform apply takes task %s over instead of "+
			"submitting a new one; its plan shows the resource as tainted and replaced, with billing = %q. If the "+
			"arguments of this resource change before then, a new task is submitted and task %s is left running. To "+
			"wait longer, raise timeouts.%s.", taskID, billingResumes, taskID, op)):
	default:
		advice, _ := adviceFor(opGet, err)
		diags.AddError("Unable to Wait for Video", fmt.Sprintf(
			"Task %s was submitted, but its status could not be read. %s The task is saved in state: once the problem "+
				"is fixed, apply again to keep waiting for the same task (the plan shows the resource as tainted and "+
				"replaced, but the apply takes task %s over instead of submitting a new one).\n\nOriginal error: %s",
			taskID, advice, taskID, err))
	}
}

// addVideoNotReady explains a wait that stopped before its task finished (its
// timeout ran out, or the run was interrupted): the task, the status the wait last
// saw (seen, when the error does not say), how long it waited under which setting,
// then next: what the apply did and how to go on without paying twice. It reports
// false, and adds nothing, for any other error. An empty path attaches the error to
// the resource.
func addVideoNotReady(diags *diag.Diagnostics, at path.Path, taskID string, err error, seen client.Status, setting string,
	timeout time.Duration, next string,
) bool {
	var waitErr *client.WaitError
	if !errors.As(err, &waitErr) || !waitErr.Interrupted() {
		return false
	}
	last := waitErr.LastStatus
	if last == "" {
		last = seen
	}
	detail := fmt.Sprintf("Task %s was still %q when the wait for it stopped after %s (%s is %s, or the run was "+
		"interrupted). %s\n\nOriginal error: %s", taskID, last, waitErr.Elapsed.Round(time.Second), setting, timeout, next, err)
	if len(at.Steps()) == 0 {
		diags.AddError("Video Not Ready", detail)
	} else {
		diags.AddAttributeError(at, "Video Not Ready", detail)
	}
	return true
}
