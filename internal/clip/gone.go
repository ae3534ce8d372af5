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
	// TaskGone: a 404 proven to be the service's (see readTask) for a task
	// whose state records that the provider's API made it.
	TaskGone
	// ClipGone: the task of a clip that succeeded answers, but its clip's URL
	// is refused, a fresh one too (the clip's storage expired while the task
	// remains), or it now reports the clip expired or cancelled.
	ClipGone
	// UnknownHere: a 404 proven to be the service's for a task whose state
	// records no API (OriginUnknown): the task is gone, or another API made
	// it, whose paths alone know it. Nothing is forgotten.
	UnknownHere
)

// Origin is what the state a read starts from proves of the API that made
// its task. A task ID names a task only on the API that made it, so a 404
// means gone only through that API.
type Origin int

const (
	// OriginRecorded: the clip's private state records the provider's API.
	OriginRecorded Origin = iota
	// OriginUnknown: the private state records no API (Terraform hands the
	// Delete of a tainted clip its replacement's planned private state). The
	// read only asks whether the provider's API knows the task.
	OriginUnknown
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
	case held == HeldByService, held == UnknownHere:
		return "", true
	case held == ClipGone, prior == client.StatusSucceeded:
		return BillingGone, true
	}
	return "", false
}

// ReadHeld reads the task a state holds, the one way the provider reads it,
// and says what the read found (Held): a 404 is TaskGone only from an address
// proven to be the service and for a task that origin says the provider's API
// made. For a succeeded task whose state says it finished and whose origin is
// recorded, it also asks whether its clip still serves. A task proven gone is
// forgotten by the journal whatever the state: no apply may adopt a task the
// service no longer holds.
func (l *Lifecycle) ReadHeld(ctx context.Context, taskID string, prior client.Status, origin Origin) (*client.Video, Held, error) {
	v, held, err := l.readHeld(ctx, taskID, prior, origin)
	if held == TaskGone || held == ClipGone {
		l.facts.lost.Store(taskID, held)
	}
	return v, held, err
}

func (l *Lifecycle) readHeld(ctx context.Context, taskID string, prior client.Status, origin Origin) (*client.Video, Held, error) {
	v, gone, err := l.readTask(ctx, taskID)
	switch {
	case gone && origin == OriginUnknown:
		return nil, UnknownHere, err
	case gone:
		l.Forget(ctx, taskID)
		return nil, TaskGone, err
	case err != nil || prior != client.StatusSucceeded || origin == OriginUnknown:
		return v, HeldByService, err
	case v.Status.Gone():
		// A clip that succeeded, then reported expired or cancelled: its bytes are gone.
		return v, ClipGone, nil
	case v.Status != client.StatusSucceeded:
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
