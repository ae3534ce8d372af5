package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/framework/privatestate"
)

// What videogen_video keeps in Terraform's private state, and what each mark
// means, is written here alone: which private state Terraform hands to which
// call is not obvious, and a Delete is told what it does (deletionOf) in named
// outcomes rather than in flags.

// privateKeyAPI holds the API shape a clip was made or imported through. Clips
// made before it was recorded were made through the only API there was.
const privateKeyAPI privatestate.String = "api"

// privateKeyWaitCutShort marks, in private state, a clip whose create wait ended
// before the task did. Terraform taints such a resource and hands its private state
// to Read but not to the Delete of its replacement, so Read records the mark in
// billing (clip.BillingCutShort): Delete then knows the task is unfinished
// business, not a clip the user asked to regenerate (-replace, taint).
const privateKeyWaitCutShort privatestate.Flag = "wait_cut_short"

// privateKeyResumes marks, in the planned private state of a tainted clip's
// replacement, that the plan resumes the clip's task. Terraform hands the Delete of
// the tainted clip that planned private state, not the clip's own.
const privateKeyResumes privatestate.Flag = "resumes_task"

// privateKeyPlannedNew marks, in the same planned private state, a replacement that
// the plan, having refreshed the tainted clip's task, calls a new clip: the task
// is let go, and the Delete of the tainted clip says so on that clip.
const privateKeyPlannedNew privatestate.Flag = "plans_new_clip"

// privateKeyRemovalSaid marks, in the private state a plan hands the Delete of a
// clip it destroys or replaces, that the plan said what that does to the clip's
// task: the Delete does not say it again. Terraform before 1.3 plans no destroy
// through the provider, and hands such a Delete the clip's own private state,
// which never holds the mark (Create clears it).
const privateKeyRemovalSaid privatestate.Flag = "removal_said"

// removedClip is clip c as the plan that destroys or replaces it says what
// becomes of its task (clip.Lifecycle.Removal), from its state and its own
// private state.
func removedClip(ctx context.Context, p privatestate.Getter, state videoResourceModel) clip.Clip {
	recorded, _ := privateKeyAPI.Get(ctx, p)
	return clip.Clip{TaskID: state.TaskID.ValueString(), Status: client.Status(state.Status.ValueString()),
		MadeThrough: client.API(recorded)}
}

// recordClipAPI notes the provider's API in a clip's private state.
func (d *providerData) recordClipAPI(ctx context.Context, p privatestate.Setter) diag.Diagnostics {
	return privateKeyAPI.Set(ctx, p, string(d.api))
}

// clipAPI is the API a clip was made or imported through.
func clipAPI(ctx context.Context, p privatestate.Getter) apiShape {
	shape, diags := privateKeyAPI.Get(ctx, p)
	if diags.HasError() || shape == "" {
		return apiVideoGenerations
	}
	return apiShape(shape)
}

// waitCutShort reports whether a clip's own private state says its create wait
// was cut short.
func waitCutShort(ctx context.Context, p privatestate.Getter) bool {
	return privateKeyWaitCutShort.Get(ctx, p)
}

// markWaitCutShort sets or clears the mark of a wait cut short.
func markWaitCutShort(ctx context.Context, p privatestate.Setter, cut bool) diag.Diagnostics {
	return privateKeyWaitCutShort.Set(ctx, p, cut)
}

// markPlanned tells the Delete of a tainted clip that this plan replaces what
// the plan says of the replacement: Terraform hands that Delete the
// replacement's planned private state, not the clip's own.
func markPlanned(ctx context.Context, p privatestate.Setter, planned clip.Planned) diag.Diagnostics {
	switch {
	case planned.Resumes:
		return privateKeyResumes.Set(ctx, p, true)
	case planned.New:
		// The plan, knowing the tainted clip's task, lets it go (see deletionOf).
		return privateKeyPlannedNew.Set(ctx, p, true)
	}
	return nil
}

// restoreOwnMarks gives a clip whose Delete failed back what its own private
// state held, as far as Delete can tell: Terraform keeps such a clip with the
// private state Delete answers, which starts as the one it was handed, the
// replacement's. Without the clip's own marks, the next Read would take it for
// a clip of video-generations that finished waiting, and the plan after would
// let its task go. A clip replaced without a private state of its own is a
// tainted one, so its wait was cut short.
func restoreOwnMarks(ctx context.Context, p privatestate.Setter, madeThrough apiShape) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.Append(privateKeyAPI.Set(ctx, p, string(madeThrough))...)
	diags.Append(privateKeyWaitCutShort.Set(ctx, p, true)...)
	diags.Append(privateKeyResumes.Set(ctx, p, false)...)
	diags.Append(privateKeyPlannedNew.Set(ctx, p, false)...)
	diags.Append(privateKeyRemovalSaid.Set(ctx, p, false)...)
	return diags
}

// deletion is what the private state Terraform hands a Delete, with the state,
// says the Delete does.
type deletion struct {
	outcome clip.Outcome
	// recorded is the API the private state records: none in a tainted clip's
	// (Terraform hands it the replacement's planned one) and in a clip's from
	// before the API was recorded.
	recorded apiShape
}

// deletionOf decodes what a Delete is handed. An unfinished task, or one whose
// wait was cut short, is handed to the replacement Terraform creates next in
// this run, unless the replacement's plan knew it and asks for another clip. A
// plan made with -refresh=false read none: a clip cut short (waited for, still
// unfinished) whose billing no Read recorded as cut short, and whose own private
// state, which records its API, is not what Delete was handed (a tainted clip's
// never is). Its task is handed over, as by a plan that could not tell.
func deletionOf(ctx context.Context, p privatestate.Getter, state videoResourceModel) deletion {
	recorded, _ := privateKeyAPI.Get(ctx, p)
	cutShort := state.Billing.ValueString() == clip.BillingCutShort
	unfinished := !client.Status(state.Status.ValueString()).Final() || cutShort
	unread := recorded == "" && state.WaitForCompletion.ValueBool() && !cutShort
	d := deletion{recorded: apiShape(recorded), outcome: clip.HandedOver}
	switch {
	case privateKeyResumes.Get(ctx, p):
		d.outcome = clip.Resumed
	case !unfinished:
		d.outcome = clip.Destroyed
	case !unread && privateKeyPlannedNew.Get(ctx, p):
		d.outcome = clip.LetGo
	}
	return d
}
