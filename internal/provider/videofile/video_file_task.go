package videofile

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

// The task side of videogen_video_file: a clip is downloaded only from a task
// that succeeded, waited for while it runs; nothing here ever submits one.

// finishedVideo reads the task and, while it is unfinished, waits for it up to
// timeout; it returns the task once it has a clip to download.
func (r *videoFileResource) finishedVideo(ctx context.Context, taskID string, timeout time.Duration, summary string, diags *diag.Diagnostics) (*client.Video, bool) {
	video, seen, err := r.data.Client().FinishedVideo(ctx, taskID, timeout)
	switch {
	case apidiag.AddVideoNotReady(diags, path.Root("task_id"), taskID, err, seen,
		"timeouts.create of this videogen_video_file", timeout, "Nothing was downloaded, and no new clip was "+
			"requested: apply again to keep waiting for the same task, or raise timeouts.create."):
		return nil, false
	case err != nil:
		apidiag.Add(diags, summary, apidiag.Get, err, nil)
		return nil, false
	}
	return video, checkDownloadable(video, diags)
}

// checkDownloadable insists that a finished task succeeded with a URL.
func checkDownloadable(video *client.Video, diags *diag.Diagnostics) bool {
	var detail string
	switch {
	case video.Status == client.StatusFailed:
		reason := video.FailureReason
		if reason == "" {
			reason = "the service gave no reason"
		}
		detail = fmt.Sprintf("Task %s has the status \"failed\" (%s), so it has no clip to download. Failed tasks are "+
			"not billed. Regenerate the video (the videogen_video resource replaces a failed task on the next apply), "+
			"then apply again.", video.TaskID, reason)
	case video.Status.Gone():
		detail = fmt.Sprintf("Task %s has no clip any more: %s. The videogen_video resource plans a replacement for it "+
			"on the next plan, which generates and bills a new clip.", video.TaskID, video.FailureReason)
	case video.Status != client.StatusSucceeded:
		detail = fmt.Sprintf("Task %s has the status %q; only a succeeded task has a clip to download. Apply again "+
			"when the task has succeeded.", video.TaskID, video.RawStatus)
	case !video.HasClip():
		detail = fmt.Sprintf("Task %s has succeeded, but the service reported no download URL for it. Apply again "+
			"later; if it persists, ask the service about the task.", video.TaskID)
	default:
		return true
	}
	diags.AddAttributeError(path.Root("task_id"), "Video Not Downloadable", detail)
	return false
}
