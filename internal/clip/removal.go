package clip

import (
	"context"
	"fmt"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// What destroying or replacing a clip does to its task on the server
// (CONTRIBUTING.md, "OpenAI's video API"). The video-generations API has no
// delete: the task only leaves state. OpenAI's video API deletes a finished
// video, and with delete_on_destroy (the default) destroy does, as first-class
// providers delete what they create; deleting refunds nothing, so the plan
// says so for each clip. A nil Lifecycle is a provider not configured yet.

// deletes reports whether destroying a clip of status deletes it from the
// server: a finished video (completed or failed) on an API with a delete,
// unless delete_on_destroy is false. An unfinished task cannot be deleted, and
// a cancelled or expired one is gone already.
func (l *Lifecycle) deletes(status client.Status) bool {
	return l != nil && l.deleteOnDestroy && l.api.CanDelete() &&
		(status == client.StatusSucceeded || status == client.StatusFailed)
}

// Removal says what destroying clip c does to its task, as the predicate of
// "Destroying this clip ...": in words true of a plan, before it is applied,
// and of `apply -auto-approve`, which shows them after.
func (l *Lifecycle) Removal(c Clip) string {
	deletes, why := l.removes(c)
	if deletes {
		return fmt.Sprintf("deletes task %s and its clip from the server (api = %q, delete_on_destroy = true), which refunds "+
			"nothing: the clip stays billed and can no longer be downloaded (delete_on_destroy = false in the provider "+
			"block keeps it on the server)", c.TaskID, l.api)
	}
	return fmt.Sprintf("removes task %s from Terraform state only (%s), and %s", c.TaskID, why, KeptTaskCost(c.Status))
}

// removes says whether destroying clip c deletes it from the server and, when
// it does not, why. A clip is deleted only through the API that made it.
func (l *Lifecycle) removes(c Clip) (deletes bool, why string) {
	if !l.deletes(c.Status) {
		return false, l.keptBecause(c.Status)
	}
	if c.MadeThrough != "" && c.MadeThrough != l.api {
		return false, fmt.Sprintf("the clip was made through api = %q, not this provider block's %q", c.MadeThrough, l.api)
	}
	return true, ""
}

// keptBecause says why destroying a clip of status does not delete it.
func (l *Lifecycle) keptBecause(status client.Status) string {
	switch {
	case l == nil:
		return "the provider is not configured yet"
	case !l.api.CanDelete():
		return "the service has no delete"
	case !l.deleteOnDestroy:
		return "delete_on_destroy is false"
	case !status.Final():
		return "an unfinished task cannot be deleted"
	}
	return "the server no longer has it"
}

// remove deletes a destroyed clip from the server where the API can and
// delete_on_destroy allows, and otherwise only forgets it: a generated clip
// stays billed whether or not Terraform tracks it. A clip is deleted only
// through the API that made it; one whose private state records none is
// deleted through this provider's, which a refresh checked (Read refuses a clip
// of another), and a server that does not know it leaves it, with a warning.
// What its plan said (Removal) is not said again.
func (l *Lifecycle) remove(ctx context.Context, c Clip, notes *Notes) {
	if l == nil {
		if c.Status != client.StatusFailed && !c.RemovalSaid {
			*notes = append(*notes, RemovedFromState(l.keptBecause(c.Status))...)
		}
		return
	}
	deletes, why := l.removes(c)
	if deletes {
		l.deleteVideo(ctx, c.TaskID, notes)
		return
	}
	l.info(ctx, "removing video from state only", map[string]any{"task_id": c.TaskID})
	if c.Status == client.StatusFailed || c.RemovalSaid {
		// A failed task was never billed: there is nothing to warn of. A plan that
		// said what destroying the clip does was shown before this apply.
		return
	}
	// Once per run: Terraform shows every provider warning, one per destroyed clip.
	l.removalWarning.Do(func() { *notes = append(*notes, RemovedFromState(why)...) })
}

// RemovedFromState says what destroying a clip does, for every clip of the run
// at once; why says why it is not deleted.
func RemovedFromState(why string) Notes {
	var notes Notes
	notes.Warn("Video Removed From State Only",
		fmt.Sprintf("Destroying a videogen_video only removes it from Terraform state when %s. Every clip this run "+
			"destroys so, except one whose task failed (never billed), stays on the service and stays billed (an "+
			"unfinished task if it succeeds); their task IDs are in the plan above if you need to find them in the "+
			"service's console.", why))
	return notes
}

// deleteVideo deletes a destroyed clip's video from the server. A server
// without the delete, or without the video, leaves nothing to do but forget
// it: that is a warning, never an error that would keep a clip in state which
// no apply can delete. Any other failure keeps the clip in state, to be
// destroyed again.
func (l *Lifecycle) deleteVideo(ctx context.Context, taskID string, notes *Notes) {
	err := l.client.DeleteVideo(ctx, taskID)
	switch {
	case err == nil:
		l.info(ctx, "deleted the video from the server", map[string]any{"task_id": taskID})
	case client.IsNotFound(err), client.IsNotSupported(err):
		notes.Warn("Video Not Deleted From the Server",
			fmt.Sprintf("The server did not delete task %s: it has no delete for videos (new-api v0.10.0 answers 404 "+
				"\"Invalid URL\"), or the video is gone already. The clip was removed from Terraform state only; if the "+
				"server still has it, it stays there, billed as before.\n\nOriginal error: %s", taskID, err))
	default:
		*notes = append(*notes, Note{Error: true, Call: &CallFailure{Summary: "Unable to Delete Video", Op: OpDelete, Err: err,
			Lead: fmt.Sprintf("Task %s was not deleted and stays in Terraform state: destroy again, or set "+
				"delete_on_destroy = false in the provider block to remove it from state only.", taskID)}})
	}
}
