package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

// What destroying or replacing a clip does to its task on the server
// (CONTRIBUTING.md, "OpenAI's video API"). The video-generations API has no delete: the
// task only leaves state. OpenAI's video API deletes a finished video, and with
// delete_on_destroy (the default) destroy does, as first-class providers delete
// what they create; deleting refunds nothing, so the plan says so for each clip.

// deletesOnDestroy reports whether destroying a clip of status deletes it from
// the server: a finished video (completed or failed) on an API with a delete,
// unless delete_on_destroy is false. An unfinished task cannot be deleted, and a
// cancelled or expired one is gone already.
func (d *providerData) deletesOnDestroy(status client.Status) bool {
	return d != nil && d.deleteOnDestroy && client.API(d.api).CanDelete() &&
		(status == client.StatusSucceeded || status == client.StatusFailed)
}

// removal says, in a sentence, what leaving state does to task taskID of status.
func (d *providerData) removal(taskID string, status client.Status) string {
	if d.deletesOnDestroy(status) {
		return fmt.Sprintf("task %s is deleted from the server with its clip (api = %q, delete_on_destroy = true): it "+
			"stays billed, since deleting refunds nothing, and can no longer be downloaded. Set delete_on_destroy = false "+
			"in the provider block to keep it on the server", taskID, d.api)
	}
	return fmt.Sprintf("%s: task %s only leaves Terraform state, and %s", d.keptBecause(status), taskID, clip.KeptTaskCost(status))
}

// keptBecause says why destroying a clip of status does not delete it.
func (d *providerData) keptBecause(status client.Status) string {
	switch {
	case d == nil:
		return "the provider is not configured yet"
	case !client.API(d.api).CanDelete():
		return "the service has no delete"
	case !d.deleteOnDestroy:
		return "delete_on_destroy is false"
	case !status.Final():
		return "an unfinished task cannot be deleted"
	}
	return "the server no longer has it"
}

// deleteVideo deletes a destroyed clip's video from the server. A server without
// the delete, or without the video, leaves nothing to do but forget it: that is
// a warning, never an error that would keep a clip in state which no apply can
// delete. Any other failure keeps the clip in state, to be destroyed again.
func (d *providerData) deleteVideo(ctx context.Context, taskID string, diags *diag.Diagnostics) {
	err := d.client.DeleteVideo(ctx, taskID)
	switch {
	case err == nil:
		tflog.Info(ctx, "deleted the video from the server", map[string]any{"task_id": taskID})
	case client.IsNotFound(err), client.IsNotSupported(err):
		diags.AddWarning("Video Not Deleted From the Server",
			fmt.Sprintf("The server did not delete task %s: it has no delete for videos (new-api v0.10.0 answers 404 "+
				"\"Invalid URL\"), or the video is gone already. The clip was removed from Terraform state only; if the "+
				"server still has it, it stays there, billed as before.\n\nOriginal error: %s", taskID, err))
	default:
		advice, _ := apidiag.Advice(apidiag.Delete, err, nil)
		diags.AddError("Unable to Delete Video",
			fmt.Sprintf("Task %s was not deleted and stays in Terraform state: destroy again, or set delete_on_destroy = "+
				"false in the provider block to remove it from state only. %s\n\nOriginal error: %s", taskID, advice, err))
	}
}
