package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

// clipTask is the task a Create goes on with: one an earlier run left for the
// clip, or one submitted now.
type clipTask struct {
	video *client.Video
	// waitOpts: only a wait that starts at submission measures how long tasks
	// of a kind take.
	waitOpts []client.WaitOption
}

// takeOverOrSubmit finds the task for the clip a Create asks for: a task an
// earlier run left unfinished for exactly this request (adoptUnfinished), or a
// new submission, noted in the journal before it is sent and settled when the
// answer proves its outcome. Nil means nothing goes on; diags says why.
func (r *videoResource) takeOverOrSubmit(ctx context.Context, plan videoResourceModel, request client.VideoRequest,
	diags *diag.Diagnostics,
) *clipTask {
	fingerprint, fpDiags := r.fingerprintOf(ctx, plan, request, r.data.api)
	diags.Append(fpDiags...)
	if diags.HasError() {
		return nil
	}
	video, ok := r.adoptUnfinished(ctx, plan, fingerprint, diags)
	switch {
	case !ok:
		return nil
	case video != nil:
		return &clipTask{video: video}
	case plan.Billing.ValueString() == billingResumes:
		// The plan's billing cannot change now: say what the apply does instead.
		addResumeNotPossibleWarning(diags)
	}
	if !r.data.sayUnconfirmedSubmissions(ctx, fingerprint, diags) {
		return nil
	}
	// Noted before it is sent (see journal.Sending): a journal_url database that
	// cannot note it stops the submission.
	ticket, err := r.data.journal.Sending(ctx, fingerprint, time.Now())
	if r.data.journalProblem(ctx, err, diags) {
		return nil
	}
	submitted, err := r.data.client.SubmitVideo(ctx, request)
	if err != nil {
		r.addSubmitError(ctx, diags, err, ticket)
		return nil
	}
	tflog.Info(ctx, "video task submitted", map[string]any{"task_id": submitted.TaskID})
	// Claimed before it is journaled: an identical clip planned beside this one
	// must submit its own task, not adopt this one.
	r.data.handover.claim(submitted.TaskID)
	// The note of the submission becomes its task's, kept until a state is
	// proven to hold it.
	r.data.taskNotNoted(ctx, submitted.TaskID, heldByThisApply, r.data.journal.Sent(ctx, ticket, journal.Entry{TaskID: submitted.TaskID,
		Fingerprint: fingerprint, SubmittedAt: time.Now()}), diags)
	if len(submitted.UncertainAttempts) > 0 {
		addUncertainAttemptsWarning(diags, submitted)
	}
	return &clipTask{video: submitted, waitOpts: []client.WaitOption{client.WithKind(client.KindOf(request))}}
}

// adoptUnfinished returns a task that an earlier, cut-short run submitted for
// exactly this request, if there is one that can still produce the clip: first one
// handed over by the Delete of a tainted resource in this run, then one that a
// run which died left in the journal for this state. Nil means submit a new
// task; false, that nothing may be submitted (the journal_url database failed, or
// a task's 404 came from an address not proven to be the service).
func (r *videoResource) adoptUnfinished(ctx context.Context, plan videoResourceModel, fingerprint string,
	diags *diag.Diagnostics,
) (*client.Video, bool) {
	if taskID, ok := r.data.handover.take(plan); ok {
		v, ok := r.adoptable(ctx, taskID, diags)
		if !ok {
			return nil, false
		}
		if v != nil {
			tflog.Info(ctx, "resuming the wait for a task left unfinished by an earlier run", map[string]any{"task_id": taskID})
			return v, true
		}
	}
	matches, err := r.data.journal.Matching(ctx, fingerprint)
	if r.data.journalProblem(ctx, err, diags) {
		return nil, false
	}
	for _, m := range matches {
		if m.Standing == journal.RunAlive || !r.data.handover.claim(m.TaskID) {
			continue
		}
		v, ok := r.adoptable(ctx, m.TaskID, diags)
		if !ok {
			return nil, false
		}
		if v != nil {
			tflog.Info(ctx, "adopting a task that a run which died submitted before a state recorded it",
				map[string]any{"task_id": m.TaskID, "journal": r.data.journal.Where(), "process": m.Process})
			// Ours now: if this run dies too, the next one adopts it again.
			r.data.taskNotNoted(ctx, m.TaskID, heldByThisApply, r.data.journal.Claim(ctx, m.Entry), diags)
			return v, true
		}
		r.data.handover.release(m.TaskID)
	}
	return nil, true
}

// adoptable reads a task that may be adopted; a task that is gone or ended without
// a clip is dropped from the journal instead, and nil says submit a new one. A
// 404 is believed only from an address proven to be the service, as Read believes
// it: a wrong base_url, or a gateway, answers 404 for every task, and dropping the
// task then (after a handover, the journal is all that still holds it) would forget
// it while the submission that follows fails or bills it twice. Such a 404 is an
// error and false: the task stays in the journal, and nothing is submitted.
func (r *videoResource) adoptable(ctx context.Context, taskID string, diags *diag.Diagnostics) (*client.Video, bool) {
	v, err := r.data.client.GetVideo(ctx, taskID)
	switch {
	case err == nil && v.Status.Final() && !v.Status.Usable():
	case err == nil:
		return v, true
	case client.IsNotFound(err):
		if verr := r.data.models.VerifyService(ctx); verr != nil {
			addAPIError(diags, "Unable to Create Video", apidiag.WrongAddress, fmt.Errorf("reading task %s to take it over: %w; and %w",
				taskID, err, verr))
			return nil, false
		}
	default:
		// The task was submitted for this very request; the wait copes with a service
		// that is briefly unreachable, and submitting again would bill twice.
		return &client.Video{TaskID: taskID, Status: client.StatusSubmitted}, true
	}
	r.data.journalRemove(ctx, taskID, nil)
	return nil, true
}

// addSubmitError explains a failed submission. A 404 means an unknown model only
// when the address answers as the service; otherwise base_url is wrong. The
// journal's note of a submission that may have created a task stays, so that the
// next apply of the same request says so before it submits again.
func (r *videoResource) addSubmitError(ctx context.Context, diags *diag.Diagnostics, err error, ticket journal.Ticket) {
	if !client.IsAmbiguousSubmit(err) {
		// It provably created nothing. A note that cannot be dropped is only
		// logged, whatever the journal: it errs on the safe side, since the next
		// plan of the same request says a doubt that is none ("Clip May Be Billed
		// Twice", and its billing) before anything is sent, and the user finds no
		// such task in the service's console.
		r.data.journalProblem(ctx, r.data.journal.NotSent(ctx, ticket), nil)
	}
	op := apidiag.Submit
	if client.IsNotFound(err) && r.data.models.VerifyService(ctx) != nil {
		op = apidiag.WrongAddress
	}
	addAPIError(diags, "Unable to Create Video", op, err)
}
