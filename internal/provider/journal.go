package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// requestFingerprint is the journal's fingerprint of a request. Reference media
// count without their signing parameters, as in plans: a run killed
// mid-submission is usually retried with freshly signed URLs, and its journal
// note must still be found.
func requestFingerprint(baseURL string, req client.VideoRequest, triggers map[string]string) string {
	req.Metadata = req.Metadata.Unsigned()
	return journal.Fingerprint(baseURL, req, triggers)
}

// journalService is the service a fingerprint names: the base URL, and the API
// that shape's tasks are known through. A task ID names a task only on the API
// that made it, so a task journaled through one API is never adopted through the
// other, where it would be read as gone, dropped and submitted again. The
// default API adds nothing, so that its entries keep their fingerprints.
func journalService(baseURL string, shape apiShape) string {
	if shape == apiVideoGenerations {
		return baseURL
	}
	return baseURL + " api=" + string(shape)
}

// fingerprintOf is the request fingerprint, through the API shape, of a clip
// whose request was built from it: the plan's for a new clip, a state's for one
// handed over. The plan's journal look-up and Create's note use it alike, so that
// what the plan said it would adopt is what the apply finds.
func (r *videoResource) fingerprintOf(ctx context.Context, clip videoResourceModel, request client.VideoRequest,
	shape apiShape,
) (string, diag.Diagnostics) {
	triggers := map[string]string{}
	diags := clip.TriggersReplace.ElementsAs(ctx, &triggers, false)
	if diags.HasError() {
		return "", diags
	}
	return requestFingerprint(journalService(r.data.client.BaseURL(), shape), request, triggers), diags
}

// diagsError is the errors of diags as one error, for a message's
// "Original error".
func diagsError(diags diag.Diagnostics) error {
	var parts []string
	for _, d := range diags.Errors() {
		parts = append(parts, d.Summary()+": "+d.Detail())
	}
	return errors.New(strings.Join(parts, "; "))
}

// journalTime is how a warning dates a journaled submission.
func journalTime(t time.Time) string { return t.UTC().Format(time.DateTime + " UTC") }

// The journal's wrappers say what went wrong in words the user can act on. A
// journal_path file that cannot be written only warns: it protects against an
// outright kill and against a second submission after a doubtful one, and the
// apply goes on. A journal_url database is what fresh runners rely on, so one
// that cannot be reached or written fails the plan, or the apply before it
// submits anything: the provider never submits a clip it could not note first.

// journalRemove forgets a task that a state is proven to hold, that leaves
// state, or that can no longer be adopted. A removal that fails leaves the task
// in the journal, where a later Create of exactly this clip for this state
// (with journal_url, on any runner) would adopt it instead of generating one.
// With diags nil that is only logged, being harmless: the state keeps holding
// the task (a refresh, a plan), and every plan removes its prior state's tasks
// again before an apply adopts one, while a plan that would adopt one anyway
// names it; or the task has failed or is gone, and is dropped when read; or an
// unfinished task is abandoned for a changed clip, and adopting it for exactly
// its own request again bills nothing new. A destroyed or replaced clip
// (diags set) is another matter: nothing but its age removes the entry any
// more, and the next identical clip would get the destroyed one back, so the
// user is told whatever the journal (a local file that cannot be written is
// read by the next apply as surely as a database), and this run's own Creates
// never adopt it, so that a -replace gets the new clip it asks for.
func (d *providerData) journalRemove(ctx context.Context, taskID string, diags *diag.Diagnostics) {
	err := d.journal.Remove(ctx, taskID)
	if err == nil {
		return
	}
	d.journalProblem(ctx, err, nil)
	if diags == nil {
		return
	}
	d.handover.claim(taskID)
	diags.AddWarning("Task Left in the Task Journal",
		fmt.Sprintf("Task %s left Terraform state, but the task journal (%s) could not forget it. Until it does (the "+
			"journal drops a task after 7 days), an apply of this state that creates exactly this clip again adopts task %s, "+
			"with no new charge, instead of generating a new clip: the clip just destroyed would come back. Such a plan "+
			"says so in the warning \"Clip May Adopt a Task of a Killed Run\" naming task %s; to get a new clip "+
			"instead, change triggers_replace (or any argument) of that resource.\n\nOriginal error: %s",
			taskID, d.journal.Where(), taskID, taskID, err))
}

// What holds a task that the journal could not note, as taskNotNoted says it: a
// handed-over task is in no state until the clip that replaces its own takes
// it over, which a destroy without a replacement never does.
const (
	heldByThisApply   = "this apply records it in state"
	heldByReplacement = "is handed to the clip that replaces this one, which records it in state if it takes the task over"
)

// taskNotNoted says that a task the service answered with, which this run
// holds, could not be noted (err, from noting it; nil says nothing): a warning
// whatever the journal, since the task exists and goes to state (held says
// how); only a kill before Terraform saves it would lose it.
func (d *providerData) taskNotNoted(ctx context.Context, taskID, held string, err error, diags *diag.Diagnostics) {
	if err == nil {
		return
	}
	tflog.Warn(ctx, "the task journal is not usable", map[string]any{"journal": d.journal.Where(), "task_id": taskID,
		"error": err.Error()})
	diags.AddWarning("Task Not Noted in the Task Journal",
		fmt.Sprintf("Task %s exists and %s, but the task journal (%s) could not note it. "+
			"If this run is killed before Terraform saves the state, the next apply does not know the task and submits "+
			"the clip again: look for task %s in the service's console before applying again, and import it if it is "+
			"not in state.\n\nOriginal error: %s", taskID, held, d.journal.Where(), taskID, err))
}

// journalProblem logs a journal error (nil says nothing) and, with diags, says
// it: an error for a journal_url database, or for a journal that is there but
// cannot be read (it reports true: stop before submitting), once a warning for
// a journal_path file that cannot be written.
func (d *providerData) journalProblem(ctx context.Context, err error, diags *diag.Diagnostics) bool {
	if err == nil {
		return false
	}
	tflog.Warn(ctx, "the task journal is not usable", map[string]any{"journal": d.journal.Where(), "error": err.Error()})
	if diags == nil {
		return false
	}
	if d.journal.Shared() {
		diags.AddAttributeError(path.Root("journal_url"), "Task Journal Not Reachable",
			fmt.Sprintf("The provider notes every submission in the task journal at journal_url (%s) before it sends "+
				"it, so that a run killed outright does not bill a clip twice, and that journal could not be reached or "+
				"written. Nothing was submitted. Check that the database is up and reachable from this runner, and that "+
				"the role may create the schema videogen_journal (on first use) and write its table; or remove "+
				"journal_url (and VIDEOGEN_JOURNAL_URL) to keep the journal on this machine only.\n\nOriginal error: %s",
				d.journal.Where(), err))
		return true
	}
	if journal.IsUnreadable(err) {
		// Unlike a journal that cannot be written, it may hold a task that a
		// killed run left for this very clip: submitting would bill it twice.
		diags.AddError("Task Journal Not Readable",
			fmt.Sprintf("The task journal (%s) holds the tasks that earlier runs submitted before a state was known to "+
				"hold them, and this provider cannot read it, so it cannot tell whether a killed run already submitted "+
				"this clip. Nothing was submitted. Do what the original error says: restore the journal's log beside it, "+
				"or upgrade the provider if a newer one wrote the journal. Remove the journal's files only if no apply "+
				"using it was cut off, or after checking the service's console for tasks that no state holds.\n\n"+
				"Original error: %s", d.journal.Where(), err))
		return true
	}
	d.journalError.Do(func() {
		diags.AddWarning("Task Journal Not Written",
			fmt.Sprintf("The provider notes each submitted task in %s until a state is known to hold it, so that a run "+
				"killed outright does not bill it twice; that note could not be written. The apply goes on; if it is "+
				"killed before it finishes, check the service's console for tasks created by this run before applying "+
				"again. Set journal_path in the provider block to a writable file.\n\nOriginal error: %s", d.journal.Where(), err))
	})
	return false
}

// planFromJournal says, for a clip planned as new, what the journal knows of
// its request in this state: a task a dead run left behind, which the apply
// adopts (billing unknown: it may have failed by then); a task of a run that
// still runs, which is left to it; or a submission whose outcome is unknown,
// which may bill a second clip.
func (r *videoResource) planFromJournal(ctx context.Context, plan videoResourceModel, config tfsdk.Config,
	diags *diag.Diagnostics,
) types.String {
	request, reqDiags := plan.toRequest(ctx, config, r.data.api)
	if reqDiags.HasError() {
		return types.StringValue(billingNewClip)
	}
	fingerprint, fpDiags := r.fingerprintOf(ctx, plan, request, r.data.api)
	if fpDiags.HasError() {
		return types.StringValue(billingNewClip)
	}
	r.sayOtherAPITasks(ctx, plan, config, diags)
	matches, err := r.data.journal.Matching(ctx, fingerprint)
	if r.data.journalProblem(ctx, err, diags) {
		return types.StringUnknown()
	}
	var adopt, alive []journal.Match
	for _, m := range matches {
		if m.Standing == journal.RunAlive {
			alive = append(alive, m)
		} else {
			adopt = append(adopt, m)
		}
	}
	if len(adopt) > 0 {
		addJournaledTaskWarning(diags, adopt, r.data.journal.Where())
		return types.StringUnknown()
	}
	if len(alive) > 0 {
		addRunningTaskWarning(diags, alive, r.data.journal.Where())
	}
	if r.data.planDoubts(ctx, fingerprint, diags) {
		return types.StringValue(billingMayBillTwice)
	}
	return types.StringValue(billingNewClip)
}

// addJournaledTaskWarning names the tasks that a run which died submitted for
// exactly the clip a plan creates, and why they are taken for a dead run's: the
// apply adopts one of them instead of submitting.
func addJournaledTaskWarning(diags *diag.Diagnostics, matches []journal.Match, where string) {
	var tasks []string
	for _, m := range matches {
		at := journalTime(m.SubmittedAt)
		why := fmt.Sprintf("submitted at %s by a run (%s) that died before any state was seen holding it: the "+
			"process was killed (or ran out of memory) and its lock was released", at, m.Process)
		switch m.Standing {
		case journal.AdoptableOlder:
			why = "noted at " + at + " by an earlier version of the provider, which did not record its run"
		case journal.AdoptableEnded:
			why = fmt.Sprintf("submitted at %s by a run (%s) whose provider answered it to Terraform, but no state "+
				"was seen holding it since: Terraform stops a provider once its last clip is done, and was probably "+
				"killed before it saved the state (a remote backend receives it only at the end of an apply)", at, m.Process)
		}
		tasks = append(tasks, fmt.Sprintf("task %s, %s", m.TaskID, why))
	}
	diags.AddWarning("Clip May Adopt a Task of a Killed Run",
		fmt.Sprintf("The task journal (%s) holds, for exactly this clip and this state, %s. Applying this plan adopts "+
			"it instead of submitting a new task, with no new charge, unless it has failed or is gone, or a resource "+
			"of this state turns out to hold it (then this clip is submitted as new); so billing is known only after "+
			"apply, and max_new_clips counts the clip as new.", where, strings.Join(tasks, "; and ")))
}

// addRunningTaskWarning names the tasks that a run which still runs submitted
// for exactly this clip and state: they are its own, and the plan does not take them.
func addRunningTaskWarning(diags *diag.Diagnostics, matches []journal.Match, where string) {
	var tasks []string
	for _, m := range matches {
		tasks = append(tasks, fmt.Sprintf("task %s (submitted at %s by %s)", m.TaskID,
			journalTime(m.SubmittedAt), m.Process))
	}
	diags.AddWarning("Clip Matches a Task of a Running Provider",
		fmt.Sprintf("The task journal (%s) holds %s for exactly this clip and this state, and the provider process "+
			"that submitted it still runs: another apply of this state (with -lock=false), or a provider left behind "+
			"by a Terraform that was killed. This plan does not take that task: applying it submits a new clip, which "+
			"is billed. If that process is a leftover of a killed run, end it and plan again: the task is then adopted.",
			where, strings.Join(tasks, " and ")))
}

// sayOtherAPITasks warns of the tasks that a run which died submitted for exactly
// this clip and state through another API than the provider's: they cannot be
// taken over through this one, so the apply submits a new clip, billed, while
// they stay in the journal for the API that made them.
func (r *videoResource) sayOtherAPITasks(ctx context.Context, plan videoResourceModel, config tfsdk.Config,
	diags *diag.Diagnostics,
) {
	for _, name := range client.APINames() {
		shape := apiShape(name)
		if shape == r.data.api {
			continue
		}
		// An API that cannot carry this clip's request never made it.
		request, reqDiags := plan.toRequest(ctx, config, shape)
		if reqDiags.HasError() {
			continue
		}
		fingerprint, fpDiags := r.fingerprintOf(ctx, plan, request, shape)
		if fpDiags.HasError() {
			continue
		}
		matches, err := r.data.journal.Matching(ctx, fingerprint)
		if err != nil {
			// Said by the look-up of this API's tasks, which reads the same journal.
			continue
		}
		for _, m := range matches {
			diags.AddWarning("Clip Has a Task of Another API",
				fmt.Sprintf("The task journal (%s) holds, for exactly this clip and this state, task %s, submitted at %s "+
					"through the %q API (by %s), which no state was seen holding. The provider's api is now %q, which "+
					"cannot take that task over: applying this plan submits a new clip, which is billed, and task %s stays "+
					"in the journal. To take it over instead, with no new charge, set api back to %q and apply.",
					r.data.journal.Where(), m.TaskID, journalTime(m.SubmittedAt), shape, m.Process, r.data.api, m.TaskID, shape))
		}
	}
}

// heldByPriorState removes from the journal the task of a prior state, kept or
// destroyed, which proves that a state holds it: a plan with -refresh=false
// reads no clip. Every plan does so before any apply adopts a journaled task,
// so the task of a run whose provider ended (but whose Terraform may have been
// killed before it saved the state) is adopted only when no resource of the
// state holds it. A state without a model is a fresh import, not saved yet.
func (r *videoResource) heldByPriorState(ctx context.Context, state videoResourceModel) {
	if r.data != nil && !state.Model.IsNull() && !state.TaskID.IsNull() {
		r.data.journalRemove(ctx, state.TaskID.ValueString(), nil)
	}
}

// noteHandedOver notes, as this run's, the task of a tainted clip that Delete
// hands to its replacement: the refresh removed it from the journal when the
// state held it, and from now on no state may hold it until the replacement is
// saved, so a run killed in between leaves it for the next one. The request is
// read from state, so a clip with write-only reference media is noted under
// another fingerprint than its replacement's, and not found again.
func (r *videoResource) noteHandedOver(ctx context.Context, state videoResourceModel, diags *diag.Diagnostics) {
	request, reqDiags := state.toRequest(ctx, tfsdk.Config{}, r.data.api)
	fingerprint := ""
	if !reqDiags.HasError() {
		var fpDiags diag.Diagnostics
		fingerprint, fpDiags = r.fingerprintOf(ctx, state, request, r.data.api)
		reqDiags.Append(fpDiags...)
	}
	if reqDiags.HasError() {
		// Not noted, the task is in no state and no journal until the replacement
		// is saved: say so, as for any task the journal could not note.
		r.data.taskNotNoted(ctx, state.TaskID.ValueString(), heldByReplacement, diagsError(reqDiags), diags)
		return
	}
	r.data.taskNotNoted(ctx, state.TaskID.ValueString(), heldByReplacement, r.data.journal.Claim(ctx, journal.Entry{
		TaskID: state.TaskID.ValueString(), Fingerprint: fingerprint, SubmittedAt: time.Now()}), diags)
}
