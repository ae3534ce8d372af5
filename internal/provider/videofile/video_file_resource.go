// Package videofile is the videogen_video_file resource: the clip of a video
// task, downloaded to a local file. It is a package of its own so that what it
// takes from the configured provider is only what Configured names, and the
// compiler, not a reviewer, keeps it from reaching into the provider's data.
package videofile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/framework/fwtypes"
	"github.com/videogen/terraform-provider-videogen/internal/framework/planmodifiers"
	"github.com/videogen/terraform-provider-videogen/internal/framework/privatestate"
	"github.com/videogen/terraform-provider-videogen/internal/localfile"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

const (
	defaultFilePermission      = "0644"
	defaultDirectoryPermission = "0755"
	// defaultMaxSizeBytes is far above any clip the service makes, and still
	// stops a host that sends without end before it fills the disk.
	defaultMaxSizeBytes    = 4 << 30
	defaultFileWaitTimeout = 30 * time.Minute
	// privateKeyFileDrift holds, between a refresh and the plan, why the file at
	// path is no longer the clip this resource wrote.
	privateKeyFileDrift privatestate.String = "file_drift"
	// downloadSummary is the summary of a download that failed.
	downloadSummary = "Unable to Download Video File"
)

var (
	_ resource.ResourceWithConfigure  = (*videoFileResource)(nil)
	_ resource.ResourceWithModifyPlan = (*videoFileResource)(nil)
)

type videoFileResource struct {
	// data is nil until the provider is configured, and while its
	// configuration is unknown during plan.
	data Configured
}

// NewResource returns the videogen_video_file resource.
func NewResource() resource.Resource { return &videoFileResource{} }

type videoFileResourceModel struct {
	ID                  types.String     `tfsdk:"id"`
	TaskID              types.String     `tfsdk:"task_id"`
	Path                fwtypes.FilePath `tfsdk:"path"`
	FilePermission      types.String     `tfsdk:"file_permission"`
	DirectoryPermission types.String     `tfsdk:"directory_permission"`
	MaxSizeBytes        types.Int64      `tfsdk:"max_size_bytes"`
	Overwrite           types.Bool       `tfsdk:"overwrite"`
	Model               types.String     `tfsdk:"model"`
	SHA256              types.String     `tfsdk:"sha256"`
	SizeBytes           types.Int64      `tfsdk:"size_bytes"`
	SourceURL           types.String     `tfsdk:"source_url"`
	Copies              types.List       `tfsdk:"copies"`
	Timeouts            timeouts.Value   `tfsdk:"timeouts"`
}

func (r *videoFileResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_video_file"
}

func (r *videoFileResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		Version: videoFileSchemaVersion,
		MarkdownDescription: "The clip of a video task, downloaded to a local file or stored as an object (`path` " +
			"`s3://`, `gs://`, `azblob://`, `file://`). State keeps only the path, the size " +
			"and the SHA-256, never the content. When the file is missing or differs from that checksum (a fresh CI " +
			"runner, a deleted or edited file), the next plan downloads it again from the same task: the video is never " +
			"generated, or billed, a second time. A task that has not finished yet is waited for (see `timeouts`).\n\n" +
			"It never replaces or deletes a file it did not write: when something other than this clip is at `path` " +
			"(a file of yours, a symbolic link), the plan fails naming `path` before anything is downloaded, and the " +
			"file is left as it is, unless `overwrite = true`; a file it wrote and someone edited since is left as it " +
			"is, with a warning. A file that already holds this clip is adopted without downloading in two cases only: " +
			"when a replacement of this resource moves the clip to a new `path` (the plan shows `sha256` already known), " +
			"and on import; a new resource whose `path` holds a copy of the clip fails the plan like any file in the " +
			"way (import it instead). Destroying the " +
			"resource deletes the file only while it still holds the clip. Import adopts a clip that was already " +
			"downloaded, as `<task_id>,<path>`.\n\n" +
			"An object is streamed into the store with the metadata `task`, `model` and `sha256` and never holds part " +
			"of a clip; a refresh reads only its metadata. When the service no longer gives a clip, it is written from " +
			"an object named in `copies`. Credentials come from each store's own environment, never from arguments.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The file's path, same as `path`.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"task_id": schema.StringAttribute{
				MarkdownDescription: "Task whose clip is downloaded, normally `videogen_video.<name>.task_id`. A task that " +
					"is still submitted or running is waited for; a failed, cancelled or expired one is an error. The " +
					"download URL is read from the task at download time, so a rotating signed URL never forces a new " +
					"download. Changing this forces a new file.",
				Required:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{validators.NotBlank()},
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "Where the clip is written: a local path such as `\"${path.module}/out/teaser.mp4\"`, " +
					"or an object URL: `s3://bucket/key?region=...` (S3-compatible stores: add `endpoint` and " +
					"`use_path_style=true`), `gs://bucket/key`, `azblob://container/key` (the account from " +
					"`AZURE_STORAGE_ACCOUNT`), `file:///dir/key`; a URL with credentials or a signature is refused at plan. An " +
					"object at the key that is not this task's clip fails the plan unless `overwrite = true`; one this " +
					"provider stored for the same task is adopted without uploading. For a local path: a relative " +
					"path is relative to the directory Terraform runs in, and paths compare as paths: `out/teaser.mp4`, " +
					"`./out/teaser.mp4` and the absolute form name the same file, so changing one spelling into another " +
					"plans nothing. Missing parent directories are created. A path that is a directory, or whose " +
					"directory cannot be written, is an error at plan when the path is known then, and otherwise before " +
					"anything is downloaded. The file is written to a temporary file beside it and renamed into place, " +
					"so it never holds a partial clip. Changing this to another file forces a new file.",
				CustomType:    fwtypes.FilePathType{},
				Required:      true,
				PlanModifiers: []planmodifier.String{planmodifiers.KeepPathSpelling{}, stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{validators.NotBlank()},
			},
			"file_permission": schema.StringAttribute{
				MarkdownDescription: "Permissions of the file, as an octal string such as `\"0640\"`; the owner must be able " +
					"to read it, since every refresh checks its SHA-256. Set exactly, whatever the umask. Defaults to `\"" +
					defaultFilePermission + "\"`. Changing it updates the file in place, without downloading it again.",
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(defaultFilePermission),
				Validators: []validator.String{
					validators.FileMode(0o400, "to read the file back for its checksum"),
				},
			},
			"directory_permission": schema.StringAttribute{
				MarkdownDescription: "Permissions of the parent directories this resource creates, as an octal string such " +
					"as `\"0750\"`; the owner needs `0700` to write the file. Directories that already exist are left as they " +
					"are. Defaults to `\"" + defaultDirectoryPermission + "\"`. Changing it updates state only and applies " +
					"to directories created by later downloads.",
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(defaultDirectoryPermission),
				Validators: []validator.String{
					validators.FileMode(0o700, "to create the file inside"),
				},
			},
			"max_size_bytes": schema.Int64Attribute{
				MarkdownDescription: "Largest download accepted, in bytes. A clip host that announces its size " +
					"(`Content-Length`) must then send exactly that many bytes, and one that announces more than this is " +
					"refused before anything is written; one that announces nothing is stopped when it sends more. Either " +
					"way no partial file is left. Defaults to 4 GiB (`4294967296`) when unset. Changing it updates state " +
					"only: the current file is not downloaded again.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
			"copies": schema.ListAttribute{
				MarkdownDescription: "Objects that hold stored copies of this task's clip, normally " +
					"`[videogen_video_file.<stored>.path]`. When the service no longer gives the clip (its task " +
					"forgotten, its storage expired), the file or object is written from the first of them whose " +
					"metadata names this task and a SHA-256, checked as it streams; nothing is generated or billed. " +
					"The service is asked first. Changing it updates state only.",
				ElementType: types.StringType,
				Optional:    true,
				Validators:  []validator.List{listvalidator.ValueStringsAre(validators.NotBlank())},
			},
			"overwrite": schema.BoolAttribute{
				MarkdownDescription: "Whether the clip may replace what is at `path` when that is not this clip: a file " +
					"this resource did not write, one it wrote that was changed since (edited or replaced outside " +
					"Terraform), or a symbolic link (the link itself is replaced, never what it points at). Defaults to " +
					"`false`: something in the way of a new file fails the plan (or the apply, when the path is only " +
					"known then) with an error naming `path`, before anything is downloaded; a file this resource wrote " +
					"and someone changed gets a warning and no change. Either way nothing is touched. With `true`, the " +
					"clip is downloaded over it (in place, for a changed file). A directory is never replaced. A copy of " +
					"this clip at `path` is adopted without downloading only where a replacement moves the clip to a new " +
					"`path`; elsewhere it is in the way like any file (import it to keep it). Changing it updates " +
					"state only, unless it lets a changed file be replaced: the plan then shows an in-place update that " +
					"downloads the clip.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"model": schema.StringAttribute{
				MarkdownDescription: "The model of the clip as the `videogen_video` of `task_id` names it, recorded when " +
					"the file is created in a run that creates or reads that `videogen_video`, and kept for an object " +
					"written again later (its `model` metadata); otherwise null. Computed; never forces a new file.",
				Computed:      true,
				PlanModifiers: keep,
			},
			"sha256": schema.StringAttribute{
				MarkdownDescription: "Lowercase hex SHA-256 of the file, computed while it was downloaded. Every refresh " +
					"compares the file on disk with it.",
				Computed:      true,
				PlanModifiers: keep,
			},
			"size_bytes": schema.Int64Attribute{
				MarkdownDescription: "Size of the file in bytes.",
				Computed:            true,
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"source_url": schema.StringAttribute{
				MarkdownDescription: "The URL the clip was downloaded from, without its query (a signed URL's signature " +
					"is a credential), or the stored copy it was read from. It records where the current file came from " +
					"and is not used again: a new download reads a fresh URL from the task. After an import, it is the " +
					"task's URL at the time of the import.",
				Computed:      true,
				PlanModifiers: keep,
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create: true,
				CreateDescription: "How long create waits for a task that has not finished yet (its `videogen_video` " +
					"used `wait_for_completion = false`), as a duration such as `45m`. Defaults to `30m`. The download " +
					"itself is bounded by `max_size_bytes` and by the provider's `request_timeout` between bytes, not by " +
					"this. When it runs out nothing is downloaded or resubmitted: apply again to keep waiting.",
			}),
		},
	}
}

func (r *videoFileResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if req.ProviderData == nil {
		return
	}
	data, ok := req.ProviderData.(Configured)
	if !ok {
		resp.Diagnostics.AddError("Unexpected Provider Data",
			fmt.Sprintf("expected videofile.Configured, got %T; this is a bug in the provider, please report it", req.ProviderData))
		return
	}
	r.data = data
}

// ModifyPlan refuses, at plan, a path that could not receive the file, so that
// nothing is generated for a file that cannot be written, and a path where
// something other than this clip is in the way, so that nothing of the user's is
// replaced without overwrite. It looks only when a download is planned and the
// path is known; Create and Update look again, since the disk may change.
func (r *videoFileResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan videoFileResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	checkCopies(plan.Copies, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || plan.Path.IsUnknown() || plan.Path.IsNull() {
		return
	}
	p := plan.Path.ValueString()
	overwrite := plan.Overwrite.ValueBool()
	object := isObjectURL(p)
	if !req.State.Raw.IsNull() {
		var state videoFileResourceModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		// What Read found wrong with the file or object at path, if anything.
		drift, diags := privateKeyFileDrift.Get(ctx, req.Private)
		resp.Diagnostics.Append(diags...)
		if isObjectURL(state.Path.ValueString()) {
			if drift == "" {
				// Every walk plans this resource before the ones that
				// reference it, the apply's too: they find the copy here.
				r.rememberObject(&state)
			}
		} else {
			r.knownClips().Remember(state.Path.ValueString(), state.clip(), true)
		}
		if !state.Path.Equal(plan.Path) || !state.TaskID.Equal(plan.TaskID) {
			// A replacement: Terraform plans its new half again without prior
			// state, and that plan checks the path.
			return
		}
		r.claimPath(p, plan.TaskID, &resp.Diagnostics)
		switch {
		case drift == "":
		case drift == objectMissing:
			// Written again from the same task, as a new object is: onto a
			// free key unless overwrite is set (the key was free at plan; a
			// writer may take it before apply). An update, not a new
			// resource, so that what state keeps of the clip (its model) is
			// there for the write.
			plan.SHA256, plan.SizeBytes, plan.SourceURL = types.StringUnknown(), types.Int64Unknown(), types.StringUnknown()
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		case !overwrite:
			// Nothing would be written, so nothing fails: a plan error here would
			// also stop terraform destroy, whose first step is a normal plan.
			addDriftWarning(&resp.Diagnostics, p, drift)
		default:
			if err := localfile.CheckTarget(p); err != nil && !object {
				addPathError(&resp.Diagnostics, p, err)
				return
			}
			// Download the clip again over the changed file, in place.
			plan.SHA256, plan.SizeBytes, plan.SourceURL = types.StringUnknown(), types.Int64Unknown(), types.StringUnknown()
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		}
		return
	}
	// A new file at p.
	r.claimPath(p, plan.TaskID, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if object {
		if r.planNewObject(ctx, &plan, overwrite, &resp.Diagnostics) {
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		}
		return
	}
	place, err := r.knownClips().Place(p, plan.TaskID.ValueString())
	switch {
	case err != nil:
		addPathError(&resp.Diagnostics, p, err)
	case place.Occupant == localfile.Nothing, place.Predecessor:
		// Nothing in the way, or the file of the resource this one replaces
		// (tainted, or given a new task), which is deleted before this one is
		// written.
	case place.Copy != nil:
		// The clip, already at the new path: adopted without downloading,
		// which the plan shows by a known checksum.
		plan.setClip(*place.Copy)
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	case !overwrite:
		addOccupiedError(&resp.Diagnostics, p, place.Occupant, plan.TaskID)
	}
}

func (r *videoFileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan videoFileResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	// Task and path are known at apply: every way Create ends has this identity.
	resp.Diagnostics.Append(r.setIdentity(ctx, resp.Identity, plan)...)
	if resp.Diagnostics.HasError() || !apidiag.RequireConfigured(r.data != nil, &resp.Diagnostics, downloadSummary) {
		return
	}
	target, diags := plan.target()
	resp.Diagnostics.Append(diags...)
	timeout, diags := plan.Timeouts.Create(ctx, defaultFileWaitTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Model.IsUnknown() {
		plan.Model = types.StringNull()
		if model := r.data.TaskModel(plan.TaskID.ValueString()); model != "" {
			plan.Model = types.StringValue(model)
		}
	}
	if isObjectURL(target.path) {
		if !r.createObject(ctx, &plan, target, timeout, &resp.Diagnostics) {
			return
		}
		plan.ID = types.StringValue(plan.Path.ValueString())
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	// The plan adopts a file at path that held this clip already (fetch says
	// why the path is unusable, if it is).
	occ, err := localfile.InspectTarget(target.path)
	adopt := err == nil && occ != localfile.Nothing && !plan.SHA256.IsUnknown()
	switch {
	case adopt && !plan.clip().At(target.path):
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Video File Changed Since Plan", fmt.Sprintf("The plan "+
			"adopted the file at %s because it held the clip of task %s, but it no longer does, so nothing was "+
			"downloaded or replaced. Run terraform plan again.", target.path, plan.TaskID.ValueString()))
		return
	case adopt:
		if err := localfile.SetMode(target.path, target.fileMode); err != nil {
			addPermissionError(&resp.Diagnostics, target, err)
			return
		}
		tflog.Info(ctx, "video file adopted without downloading: it holds the clip", map[string]any{"path": target.path})
	case !r.fetch(ctx, &plan, target, plan.Overwrite.ValueBool(), timeout, &resp.Diagnostics):
		return
	}
	plan.ID = types.StringValue(plan.Path.ValueString())
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// fetch waits for the task of m to finish, up to timeout, and writes its clip to
// the target, recording the file in m. Unless replace is set, it leaves alone
// anything at the path, before and while the clip downloads.
func (r *videoFileResource) fetch(ctx context.Context, m *videoFileResourceModel, target fileTarget, replace bool,
	timeout time.Duration, diags *diag.Diagnostics,
) bool {
	if !apidiag.RequireConfigured(r.data != nil, diags, downloadSummary) {
		return false
	}
	// Checked again here for a path that was unknown at plan, and for what
	// changed on the disk since, before waiting for or downloading anything.
	occ, err := localfile.InspectTarget(target.path)
	switch {
	case err != nil:
		addPathError(diags, target.path, err)
		return false
	case occ != localfile.Nothing && !replace:
		addOccupiedError(diags, target.path, occ, m.TaskID)
		return false
	}
	copies := r.copiesOf(ctx, m)
	video, vendorDiags, ok := r.vendorVideo(ctx, m.TaskID.ValueString(), copies, timeout, diags)
	if !ok {
		return false
	}
	write := localfile.WriteNew
	if replace {
		write = localfile.Write
	}
	var src clipSource
	sum, err := write(target.path, target.fileMode, target.dirMode, func(f *localfile.File) error {
		var err error
		src, err = r.writeClip(ctx, m.TaskID.ValueString(), video, f, target.maxBytes, copies)
		return err
	})
	if errors.Is(err, localfile.ErrOccupied) {
		occ, _, _ := localfile.Inspect(target.path)
		addOccupiedError(diags, target.path, occ, m.TaskID)
		return false
	}
	if err != nil {
		if video == nil {
			diags.Append(vendorDiags...)
		}
		addDownloadError(diags, m.TaskID.ValueString(), target, err)
		return false
	}
	if src.fromCopy {
		addRestoredWarning(diags, m.TaskID.ValueString(), target.path, src, vendorDiags)
	}
	tflog.Info(ctx, "video file written", map[string]any{"task_id": m.TaskID.ValueString(), "path": target.path, "bytes": sum.Size})
	m.setClip(localfile.Clip{SHA256: sum.SHA256, Size: sum.Size, SourceURL: src.url})
	return true
}

// Read checks the file against state. A file that is missing or differs is
// removed from state, so that the plan downloads it again; nothing else changes.
func (r *videoFileResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state videoFileResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(r.setIdentity(ctx, resp.Identity, state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if isObjectURL(state.Path.ValueString()) {
		r.readObjectState(ctx, &state, resp)
		return
	}
	if state.SHA256.IsNull() {
		r.adoptImported(ctx, &state, &resp.Diagnostics)
		if !resp.Diagnostics.HasError() {
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		}
		return
	}
	r.knownClips().Remember(state.Path.ValueString(), state.clip(), false)
	p, size := state.Path.ValueString(), int64(-1)
	if !state.SizeBytes.IsNull() {
		size = state.SizeBytes.ValueInt64()
	}
	found, err := localfile.Compare(p, state.SHA256.ValueString(), size)
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Unable to Read Video File",
			fmt.Sprintf("The file at %s could not be checked against its recorded SHA-256. Check that Terraform may read "+
				"it and its directory, and that the file's owner may read it (file_permission).\n\nOriginal error: %s", p, err))
		return
	case found.Occupant == localfile.Nothing:
		tflog.Warn(ctx, "video file is missing; removing it from state so that it is downloaded again (the video is not regenerated)",
			map[string]any{"path": p, "task_id": state.TaskID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	case found.Drift != "":
		// Anything at the path that is not the clip stays in state with the reason
		// kept for the plan, which refuses to replace it without overwrite.
		tflog.Warn(ctx, "video file "+found.Drift, map[string]any{"path": p, "task_id": state.TaskID.ValueString()})
	default:
		if mode, err := validators.ParseFileMode(state.FilePermission.ValueString()); err != nil || mode != found.Mode {
			state.FilePermission = types.StringValue(fmt.Sprintf("%04o", found.Mode))
		}
	}
	resp.Diagnostics.Append(privateKeyFileDrift.Set(ctx, resp.Private, found.Drift)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// adoptImported records an existing file as this task's clip, without downloading
// it: the task must have succeeded and the file must be an MP4 video. Its checksum
// is taken from the file as it is.
func (r *videoFileResource) adoptImported(ctx context.Context, state *videoFileResourceModel, diags *diag.Diagnostics) {
	const summary = "Unable to Import Video File"
	if !apidiag.RequireConfigured(r.data != nil, diags, summary) {
		return
	}
	taskID := state.TaskID.ValueString()
	video, err := r.data.Client().GetVideo(ctx, taskID)
	if err != nil {
		apidiag.Add(diags, summary, apidiag.Get, err, nil)
		return
	}
	if !checkDownloadable(video, diags) {
		return
	}
	p := state.Path.ValueString()
	sum, mode, err := localfile.ReadClip(p)
	switch {
	case errors.Is(err, localfile.ErrNotMP4):
		diags.AddAttributeError(path.Root("path"), summary, fmt.Sprintf("%s is not an MP4 video clip, so it cannot be "+
			"adopted as the clip of task %s. Remove it and apply without the import to download the clip.\n\n"+
			"Original error: %s", p, taskID, err))
		return
	case err != nil:
		diags.AddAttributeError(path.Root("path"), summary, fmt.Sprintf("Import adopts a clip that was already "+
			"downloaded, but there is no readable file at %s. Check the path (relative paths are relative to the "+
			"directory Terraform runs in), or skip the import: applying the resource downloads the clip without "+
			"regenerating it.\n\nOriginal error: %v", p, err))
		return
	}
	state.setClip(localfile.Clip{SHA256: sum.SHA256, Size: sum.Size, SourceURL: recordedURL(video.URL)})
	state.FilePermission = types.StringValue(fmt.Sprintf("%04o", mode))
}

// Update applies a new file_permission to the file in place; directory_permission,
// max_size_bytes, overwrite and timeouts only concern later downloads. A plan
// that replaces a changed file (overwrite, see ModifyPlan) downloads the clip
// again over it.
func (r *videoFileResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state videoFileResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	redownload := plan.SHA256.IsUnknown()
	drift, diags := privateKeyFileDrift.Get(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	plan.ID, plan.SHA256, plan.SizeBytes, plan.SourceURL = state.ID, state.SHA256, state.SizeBytes, state.SourceURL
	resp.Diagnostics.Append(r.setIdentity(ctx, resp.Identity, state)...)
	target, diags := plan.target()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	object := isObjectURL(target.path)
	if redownload {
		switch {
		case object:
			// A missing object is written only onto a free key, as a new one
			// is: another writer may have taken the key since the plan.
			replace := drift != objectMissing || plan.Overwrite.ValueBool()
			if !r.fetchObject(ctx, &plan, replace, target.maxBytes, defaultFileWaitTimeout, &resp.Diagnostics) {
				return
			}
		case !state.clip().At(target.path) && !r.fetch(ctx, &plan, target, true, defaultFileWaitTimeout, &resp.Diagnostics):
			return
		}
		resp.Diagnostics.Append(privateKeyFileDrift.Set(ctx, resp.Private, "")...)
	}
	if !redownload && !object && !plan.FilePermission.Equal(state.FilePermission) {
		if err := localfile.SetMode(target.path, target.fileMode); err != nil {
			addPermissionError(&resp.Diagnostics, target, err)
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete removes the file while it still holds the clip; one that is already
// gone is fine. Anything else at the path (a file edited since, a link, a
// directory) is not this resource's to delete, and stays with a warning. The
// directories it created stay too, since other files may live there.
func (r *videoFileResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state videoFileResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p := state.Path.ValueString()
	if isObjectURL(p) {
		r.deleteObjectState(ctx, &state, resp)
		return
	}
	// The apply plans the new half of a replacement again, after this Delete and
	// without prior state: it learns the clip from here, as the plan did from
	// ModifyPlan.
	r.knownClips().Remember(state.Path.ValueString(), state.clip(), true)
	left, err := localfile.RemoveClip(p, state.SHA256.ValueString(), state.SizeBytes.ValueInt64())
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Unable to Delete Video File",
			fmt.Sprintf("The file at %s could not be removed. Check the permissions of its directory, or remove it by "+
				"hand and run terraform apply again.\n\nOriginal error: %s", p, err))
	case left == localfile.RegularFile:
		resp.Diagnostics.AddAttributeWarning(path.Root("path"), "Video File Left in Place",
			fmt.Sprintf("%s no longer holds the clip this resource downloaded (it was edited or replaced since), so "+
				"it was not deleted and is no longer managed. Remove it by hand if it is not needed.", p))
	case left != localfile.Nothing:
		resp.Diagnostics.AddAttributeWarning(path.Root("path"), "Video File Left in Place",
			fmt.Sprintf("%s is now %s, not the downloaded clip, so it was left in place and is no longer managed.", p, left))
	}
}

// fileTarget is a validated path, modes and size bound.
type fileTarget struct {
	path     string
	fileMode fs.FileMode
	dirMode  fs.FileMode
	maxBytes int64
}

func (m *videoFileResourceModel) target() (fileTarget, diag.Diagnostics) {
	var diags diag.Diagnostics
	t := fileTarget{path: m.Path.ValueString(), maxBytes: defaultMaxSizeBytes}
	if !m.MaxSizeBytes.IsNull() && !m.MaxSizeBytes.IsUnknown() {
		t.maxBytes = m.MaxSizeBytes.ValueInt64()
	}
	var err error
	if t.fileMode, err = validators.ParseFileMode(m.FilePermission.ValueString()); err != nil {
		diags.AddAttributeError(path.Root("file_permission"), "Invalid Permission", fmt.Sprintf("file_permission %s.", err))
	}
	if t.dirMode, err = validators.ParseFileMode(m.DirectoryPermission.ValueString()); err != nil {
		diags.AddAttributeError(path.Root("directory_permission"), "Invalid Permission", fmt.Sprintf("directory_permission %s.", err))
	}
	return t, diags
}

// clip is the clip that m says its file holds.
func (m *videoFileResourceModel) clip() localfile.Clip {
	return localfile.Clip{Task: m.TaskID.ValueString(), SHA256: m.SHA256.ValueString(), Size: m.SizeBytes.ValueInt64(),
		SourceURL: m.SourceURL.ValueString()}
}

// setClip records in m the clip its file holds.
func (m *videoFileResourceModel) setClip(c localfile.Clip) {
	m.SHA256, m.SizeBytes, m.SourceURL = types.StringValue(c.SHA256), types.Int64Value(c.Size), types.StringValue(c.SourceURL)
}
