package clip

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// Task is the task a Create goes on with: one an earlier run left for the
// clip, or one submitted now.
type Task struct {
	Video *client.Video
	// WaitOpts: only a wait that starts at submission measures how long tasks
	// of a kind take.
	WaitOpts []client.WaitOption
}

// Acquire finds the task for the clip a Create asks for: a task an earlier run
// left unfinished for exactly this request (adoptUnfinished), or a new
// submission, noted in the journal before it is sent and settled when the
// answer proves its outcome. Nil means nothing goes on; the notes say why.
// plannedResume says the plan promised to resume a task.
func (l *Lifecycle) Acquire(ctx context.Context, c Clip, plannedResume bool) (*Task, Notes) {
	var notes Notes
	video, ok := l.adoptUnfinished(ctx, c, &notes)
	switch {
	case !ok:
		return nil, notes
	case video != nil:
		return &Task{Video: video}, notes
	case plannedResume:
		// The plan's billing cannot change now: say what the apply does instead.
		notes.Warn("Planned Resume Not Possible",
			"The plan said this clip resumes an earlier task with no new charge, but at apply no unfinished task of exactly "+
				"this clip could be taken over: it failed or is gone since the plan, or an identical clip of this apply took "+
				"it first. A new task is submitted instead, and it is billed when it succeeds. State keeps the planned billing "+
				"until the next refresh records what the new task bills.")
	}
	key, ok := l.sayUnconfirmedSubmissions(ctx, c.Fingerprint, &notes)
	if !ok {
		return nil, notes
	}
	// Noted before it is sent (see journal.Sending): a journal_url database that
	// cannot note it stops the submission.
	ticket, err := l.journal.Sending(ctx, c.Fingerprint, time.Now())
	if l.problem(ctx, err, &notes) {
		return nil, notes
	}
	// The same noted submission keeps its key across retries and re-applies:
	// a doubtful one's key, else this note's.
	request := c.Request
	if request.IdempotencyKey = key; key == "" {
		request.IdempotencyKey = ticket.IdempotencyKey()
	}
	submitted, err := l.client.SubmitVideo(ctx, request)
	if err != nil {
		l.submitFailed(ctx, err, ticket, &notes)
		return nil, notes
	}
	l.info(ctx, "video task submitted", map[string]any{"task_id": submitted.TaskID})
	// Claimed before it is journaled: an identical clip planned beside this one
	// must submit its own task, not adopt this one.
	l.handover.claim(submitted.TaskID)
	// The note of the submission becomes its task's, kept until a state is
	// proven to hold it.
	l.notNoted(ctx, submitted.TaskID, heldByThisApply, l.journal.Sent(ctx, ticket, journal.Entry{TaskID: submitted.TaskID,
		Fingerprint: c.Fingerprint, SubmittedAt: time.Now()}), &notes)
	if submitted.KeyEchoed {
		// Remembered for the plans that say a doubt against this service
		// (planDoubts); a journal that cannot keep it leaves them saying
		// "not known", the safe side, so it is only logged.
		l.problem(ctx, l.journal.Deduplicating(ctx, l.service()), nil)
	}
	if len(submitted.UncertainAttempts) > 0 {
		notes.Warn("Submission May Have Created an Untracked Task",
			fmt.Sprintf("Task %s was created and is tracked in state. Before it, %s: a gateway may answer so after the service "+
				"has already accepted the task, so that attempt may have created another task, billed and tracked by nobody. "+
				"Look in the service's console for a second task created just now with this prompt. Set submit_gateway_retries "+
				"= 0 in the provider block never to send a submission twice.", submitted.TaskID,
				strings.Join(submitted.UncertainAttempts, "; ")))
	}
	return &Task{Video: submitted, WaitOpts: []client.WaitOption{client.WithKind(client.KindOf(c.Request))}}, notes
}

// adoptUnfinished returns a task that an earlier, cut-short run submitted for
// exactly this request, if there is one that can still produce the clip: first
// one handed over by the Delete of a tainted resource in this run, then one that
// a run which died left in the journal for this state. Nil means submit a new
// task; false, that nothing may be submitted (the journal_url database failed,
// or a task's 404 came from an address not proven to be the service).
func (l *Lifecycle) adoptUnfinished(ctx context.Context, c Clip, notes *Notes) (*client.Video, bool) {
	if taskID, ok := l.handover.take(c); ok {
		v, ok := l.adoptable(ctx, taskID, notes)
		if !ok {
			return nil, false
		}
		if v != nil {
			l.info(ctx, "resuming the wait for a task left unfinished by an earlier run", map[string]any{"task_id": taskID})
			return v, true
		}
	}
	matches, err := l.journal.Matching(ctx, c.Fingerprint)
	if l.problem(ctx, err, notes) {
		return nil, false
	}
	for _, m := range matches {
		if m.Standing == journal.RunAlive || !l.handover.claim(m.TaskID) {
			continue
		}
		v, ok := l.adoptable(ctx, m.TaskID, notes)
		if !ok {
			return nil, false
		}
		if v != nil {
			l.info(ctx, "adopting a task that a run which died submitted before a state recorded it",
				map[string]any{"task_id": m.TaskID, "journal": l.journal.Where(), "process": m.Process})
			// Ours now: if this run dies too, the next one adopts it again.
			l.notNoted(ctx, m.TaskID, heldByThisApply, l.journal.Claim(ctx, m.Entry), notes)
			return v, true
		}
		l.handover.release(m.TaskID)
	}
	return nil, true
}

// adoptable reads a task that may be adopted; a task that is gone or ended
// without a clip is dropped from the journal instead, and nil says submit a new
// one. A 404 from an address not proven to be the service (see readTask) is an
// error and false: after a handover the journal is all that still holds the
// task, so it stays there, and nothing is submitted.
func (l *Lifecycle) adoptable(ctx context.Context, taskID string, notes *Notes) (*client.Video, bool) {
	v, gone, err := l.readTask(ctx, taskID)
	switch {
	case gone, err == nil && v.Status.Final() && !v.Status.Usable():
	case err == nil:
		return v, true
	case WrongAddress(err):
		notes.FailCall("Unable to Create Video", OpWrongAddress, fmt.Errorf("reading task %s to take it over: %w", taskID, err))
		return nil, false
	default:
		// The task was submitted for this very request; the wait copes with a service
		// that is briefly unreachable, and submitting again would bill twice.
		return &client.Video{TaskID: taskID, Status: client.StatusSubmitted}, true
	}
	l.Forget(ctx, taskID)
	return nil, true
}

// submitFailed explains a failed submission. A 404 means an unknown model only
// when the address answers as the service; otherwise base_url is wrong. The
// journal's note of a submission that may have created a task stays, so that
// the next apply of the same request says so before it submits again.
func (l *Lifecycle) submitFailed(ctx context.Context, err error, ticket journal.Ticket, notes *Notes) {
	if !client.IsAmbiguousSubmit(err) {
		// It provably created nothing. A note that cannot be dropped is only
		// logged, whatever the journal: it errs on the safe side, since the next
		// plan of the same request says a doubt that is none ("Clip May Be Billed
		// Twice", and its billing) before anything is sent, and the user finds no
		// such task in the service's console.
		l.problem(ctx, l.journal.NotSent(ctx, ticket), nil)
	}
	op := OpSubmit
	if _, proof := l.provenGone(ctx, err); WrongAddress(proof) {
		op = OpWrongAddress
	}
	notes.FailCall("Unable to Create Video", op, err)
}
