package provider

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

// addAPIError is apidiag.Add for the clips of videogen_video, whose arguments
// a rejected request may concern (attributeForBadRequest).
func addAPIError(diags *diag.Diagnostics, summary string, op apidiag.Operation, err error) {
	apidiag.Add(diags, summary, op, err, attributeForBadRequest)
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
			"wait longer, raise timeouts.%s.", taskID, clip.BillingResumes, taskID, op)):
	default:
		advice, _ := apidiag.Advice(apidiag.Get, err, attributeForBadRequest)
		diags.AddError("Unable to Wait for Video", fmt.Sprintf(
			"Task %s was submitted, but its status could not be read. %s The task is saved in state: once the problem "+
				"is fixed, apply again to keep waiting for the same task (the plan shows the resource as tainted and "+
				"replaced, but the apply takes task %s over instead of submitting a new one).\n\nOriginal error: %s",
			taskID, advice, taskID, err))
	}
}

// addNotes turns what the clip's lifecycle says into diagnostics; a failed
// call to the service is worded as every such failure of a clip is.
func addNotes(diags *diag.Diagnostics, notes clip.Notes) {
	for _, n := range notes {
		switch {
		case n.Call != nil && n.Call.Lead != "":
			advice, _ := apidiag.Advice(callOperations[n.Call.Op], n.Call.Err, nil)
			diags.AddError(n.Call.Summary, fmt.Sprintf("%s %s\n\nOriginal error: %s", n.Call.Lead, advice, n.Call.Err))
		case n.Call != nil:
			addAPIError(diags, n.Call.Summary, callOperations[n.Call.Op], n.Call.Err)
		case !n.Error:
			diags.AddWarning(n.Summary, n.Detail)
		case n.Attribute != "":
			diags.AddAttributeError(path.Root(n.Attribute), n.Summary, n.Detail)
		default:
			diags.AddError(n.Summary, n.Detail)
		}
	}
}

// callOperations is apidiag's name of each call the lifecycle makes.
var callOperations = map[clip.Op]apidiag.Operation{
	clip.OpGet: apidiag.Get, clip.OpSubmit: apidiag.Submit, clip.OpWrongAddress: apidiag.WrongAddress,
	clip.OpDelete: apidiag.Delete,
}
