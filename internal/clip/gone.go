package clip

import (
	"context"
	"fmt"
	"strings"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// Held is what a read found of the task a state holds.
type Held int

const (
	// HeldByService: the service answers for the task, and for a succeeded
	// task its clip serves.
	HeldByService Held = iota
	// TaskGone: a 404 proven to be the service's (see ReadTask).
	TaskGone
	// ClipGone: the task of a clip that succeeded answers, but its clip's URL
	// is refused, a fresh one too (the clip's storage expired while the task
	// remains), or it now reports the clip expired or cancelled.
	ClipGone
)

// AfterRead decides what a state whose task was last recorded in status prior
// keeps after a read that found held. A finished clip the service no longer
// holds stays, billed once and said so: generating it again would bill a
// different clip for a configuration that did not change, so only an explicit
// replace (-replace, triggers_replace, a changed argument) does. A task gone
// before it finished has no clip to keep, and leaves state: the next apply
// generates one, as for a clip never made. billing is empty when the task's
// status, read, says what the clip costs (see BillingOf).
func AfterRead(prior client.Status, held Held) (billing string, keep bool) {
	switch {
	case held == HeldByService:
		return "", true
	case held == ClipGone, prior == client.StatusSucceeded:
		return BillingGone, true
	}
	return "", false
}

// ReadHeld reads the task a state holds, as ReadTask does, and for a
// succeeded task whose state says it finished, whether its clip still serves.
// A task proven gone is forgotten by the journal whatever the state: no apply
// may adopt a task the service no longer holds.
func (l *Lifecycle) ReadHeld(ctx context.Context, taskID string, prior client.Status) (*client.Video, Held, error) {
	v, gone, err := l.ReadTask(ctx, taskID)
	if gone {
		l.Forget(ctx, taskID)
		return nil, TaskGone, err
	}
	if err != nil || prior != client.StatusSucceeded {
		return v, HeldByService, err
	}
	if v.Status.Gone() {
		// A clip that succeeded, then reported expired or cancelled: its bytes are gone.
		return v, ClipGone, nil
	}
	if v.Status != client.StatusSucceeded {
		return v, HeldByService, nil
	}
	return v, l.clipHeld(ctx, v), nil
}

// clipHeld asks whether the clip of a succeeded task still serves. A failure
// to ask proves nothing: the clip is taken as held, and the next read asks
// again.
func (l *Lifecycle) clipHeld(ctx context.Context, v *client.Video) Held {
	serves, err := l.client.ClipServes(ctx, v)
	switch {
	case err != nil:
		l.warn(ctx, "the clip's URL could not be checked", map[string]any{"task_id": v.TaskID, "error": err.Error()})
		return HeldByService
	case serves:
		return HeldByService
	}
	return ClipGone
}

// SayGone warns that the service no longer holds a finished clip, which stays
// in state; copies are the stored copies of its task the provider knows of.
func SayGone(notes *Notes, taskID string, held Held, copies []string, cause error) {
	why := "no longer has task " + taskID
	if held == ClipGone {
		why = "still answers for task " + taskID + ", but no longer serves its clip (its storage expired)"
	}
	where := "No stored copy of this clip is known to this run: to keep one next time, write each clip to " +
		"storage you keep with videogen_video_file (a path such as s3://bucket/key), which a fresh runner reads " +
		"instead of the service."
	if len(copies) > 0 {
		where = "Stored copies of this clip: " + strings.Join(copies, ", ") + "."
	}
	detail := fmt.Sprintf("The service %s. The clip was billed once and stays in state: nothing is submitted, and "+
		"billing says %q. %s To generate a new clip instead, which is billed and differs from this one, apply "+
		"with -replace on this resource (or change triggers_replace).", why, BillingGone, where)
	if cause != nil {
		detail += "\n\nOriginal error: " + cause.Error()
	}
	notes.Warn("Clip No Longer Held by the Service", detail)
}
