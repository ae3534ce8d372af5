package clip

import (
	"context"
	"fmt"
	"strings"
	"sync"

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
	v, held, err := l.readHeld(ctx, taskID, prior)
	if held != HeldByService {
		l.facts.lost.Store(taskID, held)
	}
	return v, held, err
}

func (l *Lifecycle) readHeld(ctx context.Context, taskID string, prior client.Status) (*client.Video, Held, error) {
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

// clipFacts is what one provider process learned of clips from the
// videogen_video resources it read or created: the model each task was asked
// of (the service does not say it back), and the finished clips the service
// no longer holds. videogen_video_file, which Terraform reads and applies
// after the videogen_video it names, takes them from here: the model for a
// stored object's metadata, and which stored objects keep a clip the service
// lost.
type clipFacts struct {
	models sync.Map // task ID -> model
	lost   sync.Map // task ID -> Held
}

// NoteModel records the model a videogen_video of this run names for taskID.
func (l *Lifecycle) NoteModel(taskID, model string) {
	if l != nil && taskID != "" && model != "" {
		l.facts.models.Store(taskID, model)
	}
}

// ModelOf is the model a videogen_video of this run names for taskID; "" when
// none was read or created in this process.
func (l *Lifecycle) ModelOf(taskID string) string {
	if l == nil {
		return ""
	}
	if m, ok := l.facts.models.Load(taskID); ok {
		return m.(string) //nolint:forcetypeassert // only NoteModel stores, strings
	}
	return ""
}

// Lost says whether a read of this run found that the service no longer
// holds the finished clip of taskID (ReadHeld).
func (l *Lifecycle) Lost(taskID string) bool {
	if l == nil {
		return false
	}
	_, lost := l.facts.lost.Load(taskID)
	return lost
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
	where := "A videogen_video_file that stores this clip as an object names it in a warning of its own " +
		"(\"Stored Copy of a Clip the Service No Longer Holds\"); without one, keep the next clip by writing it to " +
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
