package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/framework/privatestate"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

const defaultWaitTimeout = 30 * time.Minute

var (
	_ resource.ResourceWithConfigure        = (*videoResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*videoResource)(nil)
	_ resource.ResourceWithConfigValidators = (*videoResource)(nil)
)

type videoResource struct {
	data *providerData
}

// NewVideoResource returns the videogen_video resource.
func NewVideoResource() resource.Resource { return &videoResource{} }

func (r *videoResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_video"
}

func (r *videoResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A generated video clip. Create submits an asynchronous generation task and, by default, waits " +
			"until it succeeds or fails. A clip is immutable: changing any argument except `wait_for_completion` and " +
			"`timeouts` generates (and bills) a new clip. Destroying the resource only removes it from state on the " +
			"`video-generations` API, which has no delete; on `api = \"openai-videos\"` it deletes a finished video from " +
			"the server unless the provider's `delete_on_destroy` is `false`. Either way the clip stays billed.\n\n" +
			"What each `api` sends of each argument (—: it cannot, and the plan fails):\n\n" + apiTable(),
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The task ID, same as `task_id`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"task_id": schema.StringAttribute{
				MarkdownDescription: "Task identifier assigned by the service at submission.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"wait_for_completion": schema.BoolAttribute{
				MarkdownDescription: "Wait for the task to succeed or fail before finishing the apply. When `false`, the " +
					"apply returns right after submission with `status = \"submitted\"` and no `url`; later refreshes fill " +
					"them in. Use this with `callback_url`. Defaults to `true`. Changing it updates in place.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "Task state: `submitted`, `running`, `succeeded` or `failed`, or, when the service reports " +
					"a state outside its contract, `cancelled`, `expired` (the clip is gone) or `unknown` (still waited for).",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"url": schema.StringAttribute{
				MarkdownDescription: "Download URL of the clip, once `status` is `succeeded`. The URL recorded when the clip " +
					"finished is kept: a service that signs its URLs hands out a new one on every read, and recording each " +
					"would change state on every refresh. To download the clip, use `videogen_video_file`, which reads a fresh " +
					"URL itself; for a fresh link, read the task with the `videogen_video` data source.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"format": schema.StringAttribute{
				MarkdownDescription: "Output container reported by the service: `mp4`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"billing": schema.StringAttribute{
				MarkdownDescription: "What this clip costs, for a reviewer of the plan. A clip planned for creation or " +
					"replacement says `" + clip.BillingNewClip + "` (a task is submitted, and billed when it succeeds) or `" +
					clip.BillingResumes + "` (a cut-short wait: the apply waits for that same task again). It is unknown " +
					"when the plan cannot tell: an argument is known only at apply, an equal clip may take the task, or the " +
					"task journal holds a killed run's task for this clip (a warning names it). " +
					"It says `" + clip.BillingMayBillTwice + "` when an earlier run sent this very request and never learned " +
					"whether the service created a task (a warning says when); `max_new_clips` counts it as a new clip. " +
					"After a refresh it says what the task's status means: `" + clip.BillingBilled + "`, `" + clip.BillingIfSucceeds +
					"`, `" + clip.BillingNotBilled + "` (the generation failed), `" + clip.BillingMayHaveBeenPaid + "` (cancelled, or " +
					"its clip expired), `" + clip.BillingGone + "` (a finished clip the service forgot: it stays, nothing is " +
					"submitted, and only a replace generates a new one) or `" + clip.BillingCutShort + "` (an apply stopped " +
					"waiting for it; the next apply resumes it unless the arguments changed). A destroyed or replaced clip stays billed.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create: true,
				CreateDescription: "How long create waits for the task to succeed or fail, as a positive duration such as " +
					"`45m`. Defaults to `30m`. When it runs out (or the run is interrupted), the task is kept in state: apply " +
					"again to keep waiting for the same task.",
				Update: true,
				UpdateDescription: "How long an in-place update that resumes an unfinished wait waits for the same task, " +
					"as a positive duration such as `45m`. Defaults to `30m`.",
			}),
		},
	}
	// The clip's arguments, and the write-only twins of the reference lists.
	for _, a := range clipArguments {
		resp.Schema.Attributes[a.name] = a.schemaAttribute()
		if a.writeOnly != nil {
			resp.Schema.Attributes[a.writeOnly.name] = writeOnlyMediaList(a)
		}
	}
}

func (r *videoResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// ConfigValidators holds the checks that need no API call and are not about a
// single argument's shape.
func (r *videoResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{validators.PositiveTimeouts{"create", "update"}, frameMode,
		// @imageN cites the write-only list when it is set: only one of the two is.
		validators.PromptCitations{Prompt: "prompt", Images: []string{"reference_images_wo", "reference_images"}}}
}

// ModifyPlan says what each clip of the plan costs and counts the new ones, checks
// the model against the service's list, and plans the in-place update that resumes
// an unfinished wait or the replacement of a task that ended without a clip.
func (r *videoResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var plan, state videoResourceModel
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if !req.Plan.Raw.IsNull() {
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data != nil && !state.Model.IsNull() && !state.TaskID.IsNull() {
		// A prior state proves that a state holds its task, even in a plan with
		// -refresh=false, which reads no clip. Every plan forgets it before any apply
		// adopts a journaled task, so the task of a run whose provider ended (but whose
		// Terraform may have been killed before it saved the state) is adopted only
		// when no resource of the state holds it. A state without a model is a fresh
		// import, not saved yet.
		r.data.lifecycle.Forget(ctx, state.TaskID.ValueString())
	}
	switch {
	case req.Plan.Raw.IsNull():
		r.planDestroy(ctx, req, resp, state)
		return
	case req.State.Raw.IsNull():
		// Terraform plans every new clip, a replacement included, with no prior state.
		r.planCreate(ctx, req, resp, plan)
		return
	}
	status := client.Status(state.Status.ValueString())
	if waitCutShort(ctx, req.Private) && r.data != nil {
		// A tainted clip is planned with no prior state; this one was untainted, so a
		// replacement (-replace, a changed argument) is a new clip, not a resume.
		r.data.lifecycle.Kept(state.TaskID.ValueString())
		if status.Usable() {
			// Its task finished meanwhile: an in-place update records the clip's billing
			// and drops the mark, so that Delete no longer hands the task over.
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("billing"), clip.BillingOf(status))...)
		}
	}
	if !state.Model.IsNull() && !plan.Model.Equal(state.Model) {
		r.checkModel(ctx, plan.Model, &resp.Diagnostics)
	}
	if replacesClip(plan, state) {
		// The replacement is a new submission: the limits apply to it as to a new clip.
		checkModelLimits(ctx, r.data, &plan, &resp.Diagnostics)
		if r.data != nil && req.Config.Raw.IsFullyKnown() {
			// No apply submits part of a request the provider's API cannot carry.
			_, diags := r.data.clipOf(ctx, &plan, req.Config)
			resp.Diagnostics.Append(diags...)
		}
		if status.Usable() || !status.Final() {
			addReplacedClipWarning(ctx, resp, r.data, removedClip(ctx, req.Private, state))
		}
	}
	switch {
	case status.Final() && !status.Usable():
		// Failed (not billed), cancelled or expired: there is no clip, so make a new one.
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("status"))
	case !status.Final() && plan.WaitForCompletion.ValueBool():
		// Resume waiting for the same task instead of submitting a new one. Billing
		// is recorded from the status the wait ends with: a clip left marked as cut
		// short after it finished would have its task handed to a later -replace.
		for _, name := range []string{"status", "url", "format", "billing"} {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), types.StringUnknown())...)
		}
	}
}

// replacesClip reports whether a plan for an existing clip asks for another one,
// which Terraform then creates in its place. Every argument but wait_for_completion
// and timeouts forces a new clip when its planned value differs from the clip's:
// the plan modifiers have already planned the clip's own value where an echo means
// the same or the argument is unset. A freshly imported clip adopts in place what
// it has no value for, and an echoed argument not known yet forces nothing.
func replacesClip(plan, state videoResourceModel) bool {
	adopting := state.Model.IsNull()
	for _, a := range clipArguments {
		planned, prior := plan.arg(a.name), state.arg(a.name)
		switch {
		case planned.Equal(prior), a.echoed && planned.IsUnknown(), adopting && prior.IsNull():
		default:
			return true
		}
	}
	return false
}

// addReplacedClipWarning says, at plan, that the clip a replacement lets go of
// stays billed, and what becomes of it; the Delete of the apply does not say it
// again. Terraform shows warnings of one summary as one, with a count.
func addReplacedClipWarning(ctx context.Context, resp *resource.ModifyPlanResponse, data *providerData, c clip.Clip) {
	resp.Diagnostics.AddWarning("Replaced Clip Stays Billed", fmt.Sprintf("Replacing this clip submits a new one, billed "+
		"when it succeeds, and %s.", data.lifecycleOrNil().Removal(c)))
	resp.Diagnostics.Append(privateKeyRemovalSaid.Set(ctx, resp.Private, true)...)
}

// planCreate plans a clip that does not exist yet: it says in billing whether the
// apply submits a new, billed task or takes over one that exists, and plans the
// reference media and webhook left unset as null, since a request without them
// has nothing of them to echo. A request the provider's API cannot carry fails
// the plan, so that no apply submits part of it; one with values known only at
// apply is checked then, by Create, before it submits: at plan an unknown ratio
// may be one the configuration leaves to the service or one it sets from
// another resource.
func (r *videoResource) planCreate(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse,
	plan videoResourceModel,
) {
	r.checkModel(ctx, plan.Model, &resp.Diagnostics)
	checkModelLimits(ctx, r.data, &plan, &resp.Diagnostics)
	var cfg videoResourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for _, a := range clipArguments {
		if a.nullWhenUnset && cfg.arg(a.name).IsNull() {
			plan.setArg(a.name, cfg.arg(a.name))
		}
	}
	plan.Billing = types.StringUnknown()
	if r.data != nil {
		known := req.Config.Raw.IsFullyKnown()
		c, diags := r.data.clipOf(ctx, &plan, req.Config)
		if known {
			resp.Diagnostics.Append(diags...)
		}
		if resp.Diagnostics.HasError() {
			return
		}
		planned, notes := r.data.lifecycle.Plan(ctx, c, known)
		addNotes(&resp.Diagnostics, notes)
		if planned.Billing != "" {
			plan.Billing = types.StringValue(planned.Billing)
		}
		resp.Diagnostics.Append(markPlanned(ctx, resp.Private, planned)...)
	}
	// One write of the whole plan rather than one per attribute: each SetAttribute
	// walks and rebuilds the plan's whole value.
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planDestroy warns, for each clip a plan destroys, that it stays billed: the
// service has no delete, or deleting refunds nothing. Terraform shows warnings of
// the same summary as one, with the number of others, so a large destroy stays
// readable; the Delete of the apply does not say it again.
func (r *videoResource) planDestroy(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse,
	state videoResourceModel,
) {
	c := removedClip(ctx, req.Private, state)
	if c.Status == client.StatusFailed {
		// Not billed, and nothing to lose whether it is deleted or forgotten.
		return
	}
	resp.Diagnostics.AddWarning("Destroyed Clip Stays Billed", fmt.Sprintf("Destroying this clip %s.",
		r.data.lifecycleOrNil().Removal(c)))
	resp.Diagnostics.Append(privateKeyRemovalSaid.Set(ctx, resp.Private, true)...)
}

// checkModel rejects a model the key cannot use. The model list also tells whether
// the provider's own settings work, which a plan should say before an apply bills
// anything: a rejected key, an address where nothing answers or one that is not
// the service fails the plan; a service that answers but will not list gives a
// warning (the provider page's "Plan-time checks").
func (r *videoResource) checkModel(ctx context.Context, model types.String, diags *diag.Diagnostics) {
	if r.data == nil || model.IsUnknown() || model.IsNull() {
		return
	}
	ids, err := r.data.models.IDs(ctx)
	if err != nil {
		r.data.reportModelsFailure(err, diags)
		return
	}
	if want := model.ValueString(); !slices.Contains(ids, want) {
		diags.AddAttributeError(path.Root("model"), "Unknown Model", apidiag.UnknownModel(want, ids))
	}
}

// Create reads the plan, takes over the task an earlier run left for this clip
// or submits a new one, saves it in state before waiting (so that a wait cut
// short never orphans a billed task), waits, and saves what the task became.
func (r *videoResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan videoResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !requireConfigured(r.data, &resp.Diagnostics, "Unable to Create Video") {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultWaitTimeout)
	resp.Diagnostics.Append(diags...)
	c, diags := r.data.clipOf(ctx, &plan, req.Config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// What the service does not confirm of the clip is said once for the creates
	// that run together (see clip.Lifecycle.EndConfirming).
	var unconfirmed []string
	r.data.lifecycle.BeginConfirming()
	defer func() {
		addNotes(&resp.Diagnostics, r.data.lifecycle.EndConfirming(plan.TaskID.ValueString(), unconfirmed))
	}()

	task, notes := r.data.lifecycle.Acquire(ctx, c, plan.Billing.ValueString() == clip.BillingResumes)
	addNotes(&resp.Diagnostics, notes)
	if task == nil {
		return
	}
	// A plan that could not say whether the clip is new or resumed leaves billing to
	// the apply, which records what the task's last status bills.
	billingFromStatus := plan.Billing.IsUnknown()
	plan.ID, plan.TaskID = types.StringValue(task.Video.TaskID), types.StringValue(task.Video.TaskID)
	r.data.lifecycle.NoteModel(task.Video.TaskID, plan.Model.ValueString())
	plan.URL, plan.Format = types.StringNull(), types.StringNull()
	plan.applyVideo(task.Video)
	resp.Diagnostics.Append(setVideoIdentity(ctx, resp.Identity, plan.TaskID)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(r.data.recordClipAPI(ctx, resp.Private)...)
	// The plan's mark for the Delete of the clip this one replaces is not this clip's.
	resp.Diagnostics.Append(privateKeyRemovalSaid.Set(ctx, resp.Private, false)...)
	defer func() {
		addNotes(&resp.Diagnostics, r.data.lifecycle.Abandoned(c))
	}()
	// The task stays in the journal until a later run finds it in a state: a
	// remote backend saves this state only at the end of the apply, or every
	// 20 seconds or so.
	if resp.Diagnostics.HasError() || !plan.WaitForCompletion.ValueBool() {
		return
	}

	if final := r.wait(ctx, &plan, timeout, "create", &resp.Diagnostics, task.WaitOpts...); final != nil &&
		final.Status.Usable() {
		unconfirmed = unconfirmedParams(c.Request, final)
	}
	if billingFromStatus {
		plan.Billing = types.StringValue(clip.BillingOf(client.Status(plan.Status.ValueString())))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if !client.Status(plan.Status.ValueString()).Final() {
		resp.Diagnostics.Append(markWaitCutShort(ctx, resp.Private, true)...)
	}
}

func (r *videoResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state videoResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(setVideoIdentity(ctx, resp.Identity, state.TaskID)...)
	if resp.Diagnostics.HasError() || !requireConfigured(r.data, &resp.Diagnostics, "Unable to Read Video") {
		return
	}
	taskID := state.TaskID.ValueString()
	if !r.data.checkClipAPI(ctx, req.Private, taskID, &resp.Diagnostics) {
		return
	}
	addNotes(&resp.Diagnostics, r.data.lifecycle.Hold(taskID))
	r.data.lifecycle.NoteModel(taskID, state.Model.ValueString())
	var unconfirmed []string
	r.data.lifecycle.BeginConfirming()
	defer func() { addNotes(&resp.Diagnostics, r.data.lifecycle.EndConfirming(taskID, unconfirmed)) }()
	prior := client.Status(state.Status.ValueString())
	video, held, err := r.data.lifecycle.ReadHeld(ctx, taskID, prior, clip.OriginRecorded)
	if held != clip.HeldByService {
		billing, keep := clip.AfterRead(prior, held)
		if !keep {
			resp.Diagnostics.AddWarning("Video Task Not Found",
				fmt.Sprintf("Task %s no longer exists on the service, before it finished, so it was removed from state; the "+
					"next apply generates (and bills) a new clip. Original error: %s", taskID, err))
			resp.State.RemoveResource(ctx)
			return
		}
		// The state keeps what it recorded of the clip: only billing says it is gone.
		var notes clip.Notes
		clip.SayGone(&notes, taskID, held, nil, err)
		addNotes(&resp.Diagnostics, notes)
		state.Billing = types.StringValue(billing)
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	if err != nil {
		op := apidiag.Get
		if clip.WrongAddress(err) {
			// Nothing leaves state on a 404 that may be a wrong base_url's.
			op = apidiag.WrongAddress
		}
		addAPIError(&resp.Diagnostics, "Unable to Read Video", op, err)
		return
	}
	if !state.Model.IsNull() {
		// A state holds the task: the journal need not remember it any longer. A
		// task just imported (no model yet) is not saved until the apply ends.
		r.data.lifecycle.Forget(ctx, taskID)
	}
	if video.Status.Gone() && client.Status(state.Status.ValueString()) != video.Status {
		resp.Diagnostics.AddWarning("Video No Longer Available",
			fmt.Sprintf("The service reports task %s as %q, so it has no clip to offer any more. The next apply generates a "+
				"new clip, which is billed. To keep the clip you have, remove this resource from the configuration (or state) "+
				"before applying.", taskID, video.RawStatus))
	}
	if video.Status == client.StatusUnknown {
		tflog.Warn(ctx, "the service reports a task status outside its contract; it is treated as still running",
			map[string]any{"task_id": taskID, "status": video.RawStatus})
	}
	unconfirmed = r.firstSeenFinished(ctx, state, video, req.Private)
	state.applyVideo(video)
	state.Billing = types.StringValue(clip.BillingOf(video.Status))
	if waitCutShort(ctx, req.Private) && (!video.Status.Final() || video.Status.Usable()) {
		// Terraform taints a clip whose wait was cut short and plans its replacement
		// with no prior state: the budget tells that plan the task can be resumed,
		// and the mark in state tells Delete to hand the task over.
		state.Billing = types.StringValue(clip.BillingCutShort)
		r.data.lifecycle.Seen(argsOf(&state))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// firstSeenFinished returns what the answer of a clip that a refresh is the first
// to see finished leaves unconfirmed of the request its state describes: a clip
// created with wait_for_completion = false. The request is read from state, so
// write-only reference media, which state never holds, go unchecked. A clip whose
// create wait was cut short is left to the apply that resumes it, and an imported
// clip (no model in state yet) asked for nothing that state can tell.
func (r *videoResource) firstSeenFinished(ctx context.Context, state videoResourceModel, video *client.Video,
	private privatestate.Getter,
) []string {
	prior := client.Status(state.Status.ValueString())
	if state.Model.IsNull() || prior == "" || prior.Final() || !video.Status.Usable() || waitCutShort(ctx, private) {
		return nil
	}
	c, diags := r.data.clipOf(ctx, &state, tfsdk.Config{})
	if diags.HasError() {
		return nil
	}
	return unconfirmedParams(c.Request, video)
}

// Update only ever records adopted values and settings: every argument that would
// change the clip forces replacement instead. When the task is unfinished it waits
// for that same task, which is how a wait_for_completion = false clip is awaited.
func (r *videoResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state videoResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireConfigured(r.data, &resp.Diagnostics, "Unable to Update Video") {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultWaitTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID, plan.TaskID = state.ID, state.TaskID
	resp.Diagnostics.Append(setVideoIdentity(ctx, resp.Identity, plan.TaskID)...)
	plan.Status, plan.URL, plan.Format = state.Status, state.URL, state.Format
	if plan.WaitForCompletion.ValueBool() && !client.Status(plan.Status.ValueString()).Final() {
		// A clip created without waiting is first seen finished here: what its answer
		// leaves unconfirmed is said as for a clip waited for by Create.
		var unconfirmed []string
		r.data.lifecycle.BeginConfirming()
		defer func() {
			addNotes(&resp.Diagnostics, r.data.lifecycle.EndConfirming(plan.TaskID.ValueString(), unconfirmed))
		}()
		if final := r.wait(ctx, &plan, timeout, "update", &resp.Diagnostics); final != nil && final.Status.Usable() {
			c, diags := r.data.clipOf(ctx, &plan, req.Config)
			resp.Diagnostics.Append(diags...)
			unconfirmed = unconfirmedParams(c.Request, final)
		}
	}
	if plan.Billing.IsUnknown() {
		// A wait that read nothing leaves the status it started from.
		plan.Billing = types.StringValue(clip.BillingOf(client.Status(plan.Status.ValueString())))
	}
	if client.Status(plan.Status.ValueString()).Final() {
		resp.Diagnostics.Append(markWaitCutShort(ctx, resp.Private, false)...)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete lets go of the clip's task as what Terraform hands it says
// (deletionOf): a finished clip is deleted from the server where the API can
// and delete_on_destroy allows, and otherwise only forgotten, staying billed;
// the task of a tainted clip whose replacement the plan says resumes it, and
// any unfinished task (a plan made without refresh cannot tell), is offered to
// the replacement that Terraform creates next in this run, unless the plan
// knew it and asks for another clip. An unfinished task that the provider's
// API is not known to know fails the Delete instead (see checkLetGoTaskAPI).
func (r *videoResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state videoResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		// An unreadable state has no task ID to offer a replacement.
		return
	}
	d := deletionOf(ctx, req.Private, state)
	if r.data == nil {
		held := argsOf(&state)
		held.RemovalSaid = privateKeyRemovalSaid.Get(ctx, req.Private)
		addNotes(&resp.Diagnostics, (*clip.Lifecycle)(nil).Release(ctx, held, clip.Destroyed))
		return
	}
	// A plan that resumes the task read it through this API; any other unfinished
	// task is handed over or let go of only once this API is known to know it.
	if (d.outcome == clip.LetGo || d.outcome == clip.HandedOver) &&
		!r.data.checkLetGoTaskAPI(ctx, req, resp, state, d.recorded != "") {
		return
	}
	held, _ := r.data.clipOf(ctx, &state, tfsdk.Config{})
	held.MadeThrough = client.API(d.recorded)
	held.RemovalSaid = privateKeyRemovalSaid.Get(ctx, req.Private)
	addNotes(&resp.Diagnostics, r.data.lifecycle.Release(ctx, held, d.outcome))
}

// wait polls until the task is final or the timeout passes, recording in m whatever
// state it last saw so that the caller saves it; it returns that task (nil when
// the task was never read).
func (r *videoResource) wait(ctx context.Context, m *videoResourceModel, timeout time.Duration, op string,
	diags *diag.Diagnostics, opts ...client.WaitOption,
) *client.Video {
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	taskID := m.TaskID.ValueString()
	video, err := r.data.client.WaitForVideo(waitCtx, taskID, opts...)
	if video != nil {
		m.applyVideo(video)
	}
	if err != nil {
		addWaitError(diags, taskID, op, timeout, err)
	}
	return video
}

var (
	_ resource.ResourceWithImportState = (*videoResource)(nil)
	_ resource.ResourceWithIdentity    = (*videoResource)(nil)
)

// IdentitySchema identifies a clip by its task (Terraform and OpenTofu 1.12 or
// later), for `import` blocks with `identity = { task_id = "..." }`.
func (r *videoResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"task_id": identityschema.StringAttribute{
				Description:       "Task identifier assigned by the service at submission.",
				RequiredForImport: true,
			},
		},
	}
}

// setVideoIdentity records the identity of the clip of taskID; identity is nil
// only for a resource type without identity.
func setVideoIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, taskID types.String) diag.Diagnostics {
	if identity == nil {
		return nil
	}
	return identity.SetAttribute(ctx, path.Root("task_id"), taskID)
}

// ImportState takes a task ID, from `terraform import`, an `import` block's `id`
// or its `identity`; Read then fills in the clip.
func (r *videoResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID = strings.TrimSpace(req.ID); req.ID != "" || req.Identity != nil {
		resource.ImportStatePassthroughWithIdentity(ctx, path.Root("task_id"), path.Root("task_id"), req, resp)
	}
	var id types.String
	resp.Diagnostics.Append(resp.State.GetAttribute(ctx, path.Root("task_id"), &id)...)
	id = types.StringValue(strings.TrimSpace(id.ValueString()))
	if id.ValueString() == "" {
		resp.Diagnostics.AddError("Invalid Import ID", "Import a videogen_video by its task ID, for example: terraform import "+
			"videogen_video.example task_abc123, or with an import block whose identity is { task_id = \"task_abc123\" }.")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("task_id"), id)...)
	resp.Diagnostics.Append(setVideoIdentity(ctx, resp.Identity, id)...)
	if r.data != nil {
		// The task is imported from the server the provider speaks to now.
		resp.Diagnostics.Append(r.data.recordClipAPI(ctx, resp.Private)...)
	}
}
