package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

const defaultWaitTimeout = 30 * time.Minute

// Reference media limits of spec 2.3 and section 8.
const (
	maxReferenceImages = 9
	maxReferenceVideos = 3
	maxReferenceAudios = 3
)

var (
	_ resource.ResourceWithConfigure      = (*videoResource)(nil)
	_ resource.ResourceWithImportState    = (*videoResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*videoResource)(nil)
	_ resource.ResourceWithValidateConfig = (*videoResource)(nil)
)

var (
	notBlankPattern = regexp.MustCompile(`\S`)
	resolutions     = []string{"480p", "720p", "1080p"}
)

type videoResource struct {
	data *providerData
}

// NewVideoResource returns the videogen_video resource.
func NewVideoResource() resource.Resource { return &videoResource{} }

type videoResourceModel struct {
	ID                types.String   `tfsdk:"id"`
	TaskID            types.String   `tfsdk:"task_id"`
	Model             types.String   `tfsdk:"model"`
	Prompt            types.String   `tfsdk:"prompt"`
	Seconds           types.String   `tfsdk:"seconds"`
	Ratio             types.String   `tfsdk:"ratio"`
	Resolution        types.String   `tfsdk:"resolution"`
	GenerateAudio     types.Bool     `tfsdk:"generate_audio"`
	CallbackURL       types.String   `tfsdk:"callback_url"`
	ReferenceImages   types.List     `tfsdk:"reference_images"`
	ReferenceVideos   types.List     `tfsdk:"reference_videos"`
	ReferenceAudios   types.List     `tfsdk:"reference_audios"`
	TriggersReplace   types.Map      `tfsdk:"triggers_replace"`
	WaitForCompletion types.Bool     `tfsdk:"wait_for_completion"`
	Status            types.String   `tfsdk:"status"`
	URL               types.String   `tfsdk:"url"`
	Format            types.String   `tfsdk:"format"`
	Timeouts          timeouts.Value `tfsdk:"timeouts"`
}

func (r *videoResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_video"
}

func (r *videoResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceList := []planmodifier.List{listplanmodifier.RequiresReplace()}
	mediaList := func(kind string, limit int, citation string) schema.ListAttribute {
		return schema.ListAttribute{
			MarkdownDescription: fmt.Sprintf("Up to %d reference %s URLs that guide the generation, sent in order as "+
				"`metadata.content[]` entries. Each is an absolute `http`/`https` URL in canonical form (as Go's URL parser "+
				"writes it, with the scheme and host in lower case and a space as `%%20`), without credentials, which would "+
				"be stored in state; no element may be null. %sChanging this forces a new clip.", limit, kind, citation),
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: replaceList,
			Validators: []validator.List{
				listvalidator.SizeAtMost(limit),
				validators.NoNullElements(),
				listvalidator.ValueStringsAre(validators.RequestURL()),
			},
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A generated video clip. Create submits an asynchronous generation task and, by default, waits " +
			"until it succeeds or fails. A clip is immutable: changing any argument except `wait_for_completion` and " +
			"`timeouts` generates (and bills) a new clip. Destroying the resource only removes it from state; the service " +
			"has no delete.",
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
			"model": schema.StringAttribute{
				MarkdownDescription: "Video model ID, exactly as listed by `GET /v1/models` (see the `videogen_models` data " +
					"source). Checked against that list at plan time when it can be fetched. Changing this forces a new clip.",
				Required:      true,
				PlanModifiers: []planmodifier.String{replaceUnlessAdopting()},
				Validators:    []validator.String{stringvalidator.RegexMatches(notBlankPattern, "must not be blank")},
			},
			"prompt": schema.StringAttribute{
				MarkdownDescription: "Text description of the clip. Cite reference images as `@image1` to `@imageN`, numbered " +
					"in the order of `reference_images`. Must not be blank. Changing this forces a new clip.",
				Required:      true,
				PlanModifiers: []planmodifier.String{replaceUnlessAdopting()},
				Validators:    []validator.String{stringvalidator.RegexMatches(notBlankPattern, "must not be blank")},
			},
			"seconds": schema.StringAttribute{
				MarkdownDescription: "Clip length in whole seconds, 1 or more, as a string of digits without leading zeros " +
					"(`seconds = 8` also works). The maximum depends on the model; at plan time anything above 2147483647 (the " +
					"largest 32-bit integer) is rejected. When unset the service's default applies. Changing this forces a new clip.",
				Optional:      true,
				PlanModifiers: []planmodifier.String{replaceUnlessAdopting()},
				Validators:    []validator.String{validators.Seconds()},
			},
			"ratio": schema.StringAttribute{
				MarkdownDescription: "Aspect ratio as `W:H` with positive integers without leading zeros, such as `16:9`, `9:16` " +
					"or `1:1`. Changing this forces a new clip.",
				Optional:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{validators.Ratio()},
			},
			"resolution": schema.StringAttribute{
				MarkdownDescription: "Output resolution: one of `480p`, `720p`, `1080p`; which are accepted depends on the " +
					"model. Changing this forces a new clip.",
				Optional:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.OneOf(resolutions...)},
			},
			"generate_audio": schema.BoolAttribute{
				MarkdownDescription: "Generate a soundtrack. Applies to some (newer) models. Changing this forces a new clip.",
				Optional:            true,
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"callback_url": schema.StringAttribute{
				MarkdownDescription: "Webhook URL to which the service POSTs the final task state, sent as " +
					"`metadata.callback_url`: an absolute `http`/`https` URL in canonical form, without credentials. A loopback, " +
					"link-local or private address (or `localhost`) gets a warning: the service cannot reach it from its network, " +
					"or reaches its own machines. Changing this forces a new clip.",
				Optional:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{validators.CallbackURL()},
			},
			"reference_images": mediaList("image", maxReferenceImages,
				"The Nth URL is cited in `prompt` as `@imageN`. "),
			"reference_videos": mediaList("video", maxReferenceVideos, ""),
			"reference_audios": mediaList("audio", maxReferenceAudios, ""),
			"triggers_replace": schema.MapAttribute{
				MarkdownDescription: "Arbitrary map of strings; any change forces a new clip. Use it to regenerate an asset " +
					"on purpose, as with `terraform_data`.",
				ElementType:   types.StringType,
				Optional:      true,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
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
				MarkdownDescription: "Task state: `submitted`, `running`, `succeeded` or `failed`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"url": schema.StringAttribute{
				MarkdownDescription: "Download URL of the clip, once `status` is `succeeded`. Signed URLs may change on " +
					"refresh; that updates state in place and never regenerates the clip.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"format": schema.StringAttribute{
				MarkdownDescription: "Output container reported by the service: `mp4`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create: true,
				CreateDescription: "How long create waits for the task to succeed or fail, as a duration such as `45m`. " +
					"Defaults to `30m`. When it runs out the task is kept in state (tainted): untaint and apply to wait for " +
					"the same task.",
				Update: true,
				UpdateDescription: "How long an in-place update that resumes an unfinished wait waits for the same task, " +
					"as a duration such as `45m`. Defaults to `30m`.",
			}),
		},
	}
}

func (r *videoResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, err := configuredData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected Provider Data", err.Error())
		return
	}
	r.data = data
}

// ValidateConfig checks the rules that span attributes; it never calls the API.
func (r *videoResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg videoResourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() || cfg.Prompt.IsUnknown() || cfg.Prompt.IsNull() || cfg.ReferenceImages.IsUnknown() {
		return
	}
	images := len(cfg.ReferenceImages.Elements())
	// Only a word of its own is a citation: "me@image1.com" is an address.
	for _, c := range validators.ImageCitations(cfg.Prompt.ValueString()) {
		switch {
		case c.N == 0:
			resp.Diagnostics.AddAttributeError(path.Root("prompt"), "Invalid Image Citation",
				fmt.Sprintf("The prompt cites %s, but image citations start at @image1 (the first element of reference_images).", c.Text))
		case c.N > images:
			resp.Diagnostics.AddAttributeError(path.Root("prompt"), "Invalid Image Citation",
				fmt.Sprintf("The prompt cites %s, but reference_images has %d element(s); @imageN refers to the Nth element. "+
					"Add the image to reference_images or fix the citation.", c.Text, images))
		}
	}
}

// ModifyPlan checks the model against the service's list, and plans the in-place
// update that resumes an unfinished wait or the replacement of a failed task.
func (r *videoResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan videoResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() {
		r.checkModel(ctx, plan.Model, &resp.Diagnostics)
		return
	}
	var state videoResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !state.Model.IsNull() && !plan.Model.Equal(state.Model) {
		r.checkModel(ctx, plan.Model, &resp.Diagnostics)
	}
	status := client.Status(state.Status.ValueString())
	switch {
	case status == client.StatusFailed:
		// A failed task produced nothing and was not billed; regenerate it.
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("status"))
	case !status.Final() && plan.WaitForCompletion.ValueBool():
		// Resume waiting for the same task instead of submitting a new one.
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("url"), types.StringUnknown())...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("format"), types.StringUnknown())...)
	}
}

// checkModel rejects a model the key cannot use, when the list can be had. Any
// failure to fetch it is only logged: the API's own 404/403 still explains at apply.
func (r *videoResource) checkModel(ctx context.Context, model types.String, diags *diag.Diagnostics) {
	if r.data == nil || model.IsUnknown() || model.IsNull() {
		return
	}
	ids, err := r.data.models.IDs(ctx)
	if err != nil {
		tflog.Warn(ctx, "skipping plan-time model validation: the model list could not be fetched", map[string]any{"error": err.Error()})
		return
	}
	want := model.ValueString()
	for _, id := range ids {
		if id == want {
			return
		}
	}
	diags.AddAttributeError(path.Root("model"), "Unknown Model", unknownModelDetail(want, ids))
}

func unknownModelDetail(want string, ids []string) string {
	if len(ids) == 0 {
		return fmt.Sprintf("Model %q is not available: GET /v1/models lists no models for this API key. Check that the key "+
			"may use video models.", want)
	}
	listed := ids
	label := "Models available to this API key"
	if len(ids) > 15 {
		listed, label = closestModels(want, ids, 5), "Closest models available to this API key"
	}
	return fmt.Sprintf("Model %q is not in the service's model list for this API key (IDs must match exactly). %s: %s. "+
		"The videogen_models data source lists them all.", want, label, strings.Join(listed, ", "))
}

func (r *videoResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan videoResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !requireConfigured(r.data, &resp.Diagnostics, "Unable to Create Video") {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultWaitTimeout)
	resp.Diagnostics.Append(diags...)
	request, diags := plan.toRequest(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}

	submitted, err := r.data.client.SubmitVideo(ctx, request)
	if err != nil {
		addAPIError(&resp.Diagnostics, "Unable to Create Video", opSubmit, err)
		return
	}
	tflog.Info(ctx, "video task submitted", map[string]any{"task_id": submitted.TaskID})
	plan.ID = types.StringValue(submitted.TaskID)
	plan.TaskID = plan.ID
	plan.URL, plan.Format = types.StringNull(), types.StringNull()
	plan.applyVideo(submitted)
	// Saved before waiting: should the wait fail or be interrupted, Terraform keeps
	// the task (tainted) instead of orphaning a billed clip.
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !plan.WaitForCompletion.ValueBool() {
		return
	}
	r.wait(ctx, &plan, timeout, "create", &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *videoResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state videoResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireConfigured(r.data, &resp.Diagnostics, "Unable to Read Video") {
		return
	}
	video, err := r.data.client.GetVideo(ctx, state.TaskID.ValueString())
	if client.IsNotFound(err) {
		resp.Diagnostics.AddWarning("Video Task Not Found",
			fmt.Sprintf("Task %s no longer exists on the service, so it was removed from state; the next apply generates "+
				"a new clip. Original error: %s", state.TaskID.ValueString(), err))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		addAPIError(&resp.Diagnostics, "Unable to Read Video", opGet, err)
		return
	}
	state.applyVideo(video)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update only ever records adopted values and settings: every argument that would
// change the clip forces replacement instead. When the task is unfinished it waits
// for that same task, which is how an interrupted create resumes.
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
	plan.Status, plan.URL, plan.Format = state.Status, state.URL, state.Format
	if plan.WaitForCompletion.ValueBool() && !client.Status(plan.Status.ValueString()).Final() {
		r.wait(ctx, &plan, timeout, "update", &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete only forgets the clip: the API has no delete, and a generated clip stays
// billed whether or not Terraform tracks it.
func (r *videoResource) Delete(ctx context.Context, req resource.DeleteRequest, _ *resource.DeleteResponse) {
	var taskID types.String
	req.State.GetAttribute(ctx, path.Root("task_id"), &taskID)
	tflog.Info(ctx, "removing video from state; the service has no delete", map[string]any{"task_id": taskID.ValueString()})
}

func (r *videoResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := strings.TrimSpace(req.ID)
	if id == "" {
		resp.Diagnostics.AddError("Invalid Import ID", "Import a videogen_video by its task ID, for example: terraform import videogen_video.example task_abc123")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("task_id"), id)...)
}

// wait polls until the task is final or the timeout passes, recording in m whatever
// state it last saw so that the caller saves it.
func (r *videoResource) wait(ctx context.Context, m *videoResourceModel, timeout time.Duration, op string, diags *diag.Diagnostics) {
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	taskID := m.TaskID.ValueString()
	video, err := r.data.client.WaitForVideo(waitCtx, taskID)
	if video != nil {
		m.applyVideo(video)
	}
	if err != nil {
		addWaitError(diags, taskID, op, timeout, err)
	}
}

// replaceUnlessAdopting forces replacement on change, except while a freshly imported
// task adopts the values that the API never echoes (model, prompt, seconds) from
// configuration. A state with no model is exactly that case: Create always sets it.
func replaceUnlessAdopting() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			var model types.String
			resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("model"), &model)...)
			resp.RequiresReplace = !model.IsNull()
		},
		"Changing this forces a new clip, except after an import, when the value is adopted from configuration in place.",
		"Changing this forces a new clip, except after an import, when the value is adopted from configuration in place.",
	)
}

func (m *videoResourceModel) toRequest(ctx context.Context) (client.VideoRequest, diag.Diagnostics) {
	var diags diag.Diagnostics
	req := client.VideoRequest{
		Model:   m.Model.ValueString(),
		Prompt:  m.Prompt.ValueString(),
		Seconds: m.Seconds.ValueString(),
		Metadata: &client.Metadata{
			Ratio:         m.Ratio.ValueString(),
			Resolution:    m.Resolution.ValueString(),
			GenerateAudio: m.GenerateAudio.ValueBoolPointer(),
			CallbackURL:   m.CallbackURL.ValueString(),
		},
	}
	// Images first, in list order, so that @imageN is the Nth element of reference_images.
	for _, media := range []struct {
		list        types.List
		contentType string
	}{
		{m.ReferenceImages, client.ContentImage},
		{m.ReferenceVideos, client.ContentVideo},
		{m.ReferenceAudios, client.ContentAudio},
	} {
		var urls []string
		diags.Append(media.list.ElementsAs(ctx, &urls, false)...)
		for _, u := range urls {
			req.Metadata.Content = append(req.Metadata.Content, client.NewContentEntry(media.contentType, u))
		}
	}
	return req, diags
}

// applyVideo records what the service reports. Metadata members the service echoes
// overwrite configuration-derived values, so a real difference shows in the plan;
// members it leaves out never do, since the spec does not promise every echo.
func (m *videoResourceModel) applyVideo(v *client.Video) {
	m.Status = types.StringValue(string(v.Status))
	if v.URL != "" || v.Status == client.StatusSucceeded {
		m.URL = stringOrNull(v.URL)
	}
	if v.Format != "" {
		m.Format = types.StringValue(v.Format)
	}
	md := v.Metadata
	if md == nil {
		return
	}
	m.Ratio = echoedString(m.Ratio, md.Ratio)
	m.Resolution = echoedString(m.Resolution, md.Resolution)
	m.CallbackURL = echoedString(m.CallbackURL, md.CallbackURL)
	if md.GenerateAudio != nil {
		m.GenerateAudio = types.BoolValue(*md.GenerateAudio)
	}
	if md.Content != nil {
		m.ReferenceImages = echoedList(m.ReferenceImages, md.Content, client.ContentImage)
		m.ReferenceVideos = echoedList(m.ReferenceVideos, md.Content, client.ContentVideo)
		m.ReferenceAudios = echoedList(m.ReferenceAudios, md.Content, client.ContentAudio)
	}
}

func stringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func echoedString(current types.String, echoed string) types.String {
	if echoed == "" {
		return current
	}
	return types.StringValue(echoed)
}

// echoedList reads the URLs of one content type back from the echoed content array,
// keeping an empty or null list as it was when the echo has none of that type.
func echoedList(current types.List, content []client.ContentEntry, contentType string) types.List {
	var urls []attr.Value
	for _, e := range content {
		if e.Type == contentType {
			urls = append(urls, types.StringValue(e.MediaURL()))
		}
	}
	if len(urls) == 0 && len(current.Elements()) == 0 {
		return current
	}
	if len(urls) == 0 {
		return types.ListNull(types.StringType)
	}
	list, _ := types.ListValue(types.StringType, urls)
	return list
}
