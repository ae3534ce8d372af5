package provider

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/localfile"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

const (
	defaultFilePermission      = "0644"
	defaultDirectoryPermission = "0755"
	// defaultMaxSizeBytes is far above any clip the service makes, and still
	// stops a host that sends without end before it fills the disk.
	defaultMaxSizeBytes    = 4 << 30
	defaultFileWaitTimeout = 30 * time.Minute
)

var (
	_ resource.ResourceWithConfigure   = (*videoFileResource)(nil)
	_ resource.ResourceWithImportState = (*videoFileResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*videoFileResource)(nil)
)

type videoFileResource struct {
	data *providerData
}

// NewVideoFileResource returns the videogen_video_file resource.
func NewVideoFileResource() resource.Resource { return &videoFileResource{} }

type videoFileResourceModel struct {
	ID                  types.String   `tfsdk:"id"`
	TaskID              types.String   `tfsdk:"task_id"`
	Path                filePath       `tfsdk:"path"`
	FilePermission      types.String   `tfsdk:"file_permission"`
	DirectoryPermission types.String   `tfsdk:"directory_permission"`
	MaxSizeBytes        types.Int64    `tfsdk:"max_size_bytes"`
	SHA256              types.String   `tfsdk:"sha256"`
	SizeBytes           types.Int64    `tfsdk:"size_bytes"`
	SourceURL           types.String   `tfsdk:"source_url"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
}

func (r *videoFileResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_video_file"
}

func (r *videoFileResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The clip of a video task, downloaded to a local file. State keeps only the path, the size " +
			"and the SHA-256, never the content. When the file is missing or differs from that checksum (a fresh CI " +
			"runner, a deleted or edited file), the next plan downloads it again from the same task: the video is never " +
			"generated, or billed, a second time. A task that has not finished yet is waited for (see `timeouts`). " +
			"Destroying the resource deletes the file. Import adopts a clip that was already downloaded, as " +
			"`<task_id>,<path>`.",
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
				Validators:    []validator.String{stringvalidator.RegexMatches(notBlankPattern, "must not be blank")},
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "Where the clip is written, such as `\"${path.module}/out/teaser.mp4\"`. A relative " +
					"path is relative to the directory Terraform runs in, and paths compare as paths: `out/teaser.mp4`, " +
					"`./out/teaser.mp4` and the absolute form name the same file, so changing one spelling into another " +
					"plans nothing. Missing parent directories are created. A path that is a directory, or whose " +
					"directory cannot be written, is an error at plan when the path is known then, and otherwise before " +
					"anything is downloaded. The file is written to a temporary file beside it and renamed into place, " +
					"so it never holds a partial clip. Changing this to another file forces a new file.",
				CustomType:    filePathType{},
				Required:      true,
				PlanModifiers: []planmodifier.String{keepPathSpelling{}, stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.RegexMatches(notBlankPattern, "must not be blank")},
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
				MarkdownDescription: "The URL the clip was downloaded from. Signed URLs expire: this records where the " +
					"current file came from and is not used again; a new download reads a fresh URL from the task. After an " +
					"import, it is the task's URL at the time of the import.",
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
	data, err := configuredData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected Provider Data", err.Error())
		return
	}
	r.data = data
}

// ModifyPlan refuses, at plan, a path that could not receive the file, so that
// nothing is generated for a file that cannot be written. It looks only when a
// download is planned and the path is known.
func (r *videoFileResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var planPath filePath
	var planTask types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("path"), &planPath)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("task_id"), &planTask)...)
	if resp.Diagnostics.HasError() || planPath.IsUnknown() || planPath.IsNull() {
		return
	}
	if !req.State.Raw.IsNull() {
		var statePath filePath
		var stateTask types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("path"), &statePath)...)
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("task_id"), &stateTask)...)
		if statePath.Equal(planPath) && stateTask.Equal(planTask) {
			return
		}
	}
	if err := localfile.CheckTarget(planPath.ValueString()); err != nil {
		addPathError(&resp.Diagnostics, planPath.ValueString(), err)
	}
}

func (r *videoFileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	const summary = "Unable to Download Video File"
	var plan videoFileResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !requireConfigured(r.data, &resp.Diagnostics, summary) {
		return
	}
	target, diags := plan.target()
	resp.Diagnostics.Append(diags...)
	timeout, diags := plan.Timeouts.Create(ctx, defaultFileWaitTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Checked again here for a path that was unknown at plan, before waiting for
	// or downloading anything.
	if err := localfile.CheckTarget(target.path); err != nil {
		addPathError(&resp.Diagnostics, target.path, err)
		return
	}
	taskID := plan.TaskID.ValueString()
	video, ok := r.finishedVideo(ctx, taskID, timeout, summary, &resp.Diagnostics)
	if !ok {
		return
	}
	var dl client.Download
	sum, err := localfile.Write(target.path, target.fileMode, target.dirMode, func(f *localfile.File) error {
		var err error
		dl, err = r.data.client.DownloadVideo(ctx, video, f, target.maxBytes)
		return err
	})
	if err != nil {
		addDownloadError(&resp.Diagnostics, taskID, target, err)
		return
	}
	tflog.Info(ctx, "video file written", map[string]any{"task_id": taskID, "path": target.path, "bytes": sum.Size})
	plan.ID = types.StringValue(plan.Path.ValueString())
	plan.SHA256 = types.StringValue(sum.SHA256)
	plan.SizeBytes = types.Int64Value(sum.Size)
	plan.SourceURL = types.StringValue(dl.URL)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read checks the file against state. A file that is missing or differs is
// removed from state, so that the plan downloads it again; nothing else changes.
func (r *videoFileResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state videoFileResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.SHA256.IsNull() {
		r.adoptImported(ctx, &state, &resp.Diagnostics)
		if !resp.Diagnostics.HasError() {
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		}
		return
	}
	p := state.Path.ValueString()
	gone := func(reason string) {
		tflog.Warn(ctx, "video file "+reason+"; removing it from state so that it is downloaded again (the video is not regenerated)",
			map[string]any{"path": p, "task_id": state.TaskID.ValueString()})
		resp.State.RemoveResource(ctx)
	}
	info, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		gone("is missing")
		return
	case err != nil:
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Unable to Read Video File",
			fmt.Sprintf("The file at %s could not be checked against its recorded SHA-256. Check that Terraform may read "+
				"it and its directory.\n\nOriginal error: %s", p, err))
		return
	case !info.Mode().IsRegular():
		gone("is no longer a regular file")
		return
	case !state.SizeBytes.IsNull() && info.Size() != state.SizeBytes.ValueInt64():
		gone("has changed size")
		return
	}
	sum, err := localfile.SHA256(p)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Unable to Read Video File",
			fmt.Sprintf("The file at %s could not be read to check its SHA-256. Check that its owner may read it "+
				"(file_permission) and that Terraform runs as that user.\n\nOriginal error: %s", p, err))
		return
	}
	if sum != state.SHA256.ValueString() {
		gone("no longer matches its recorded SHA-256")
		return
	}
	if mode, err := validators.ParseFileMode(state.FilePermission.ValueString()); err != nil || mode != info.Mode().Perm() {
		state.FilePermission = types.StringValue(fmt.Sprintf("%04o", info.Mode().Perm()))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// ImportState takes "<task_id>,<path>", with the path in any spelling; the first
// Read then adopts the file. A task ID never holds a comma, while a path may.
func (r *videoFileResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	taskID, p, ok := strings.Cut(req.ID, ",")
	taskID = strings.TrimSpace(taskID)
	if !ok || taskID == "" || p == "" {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Import a videogen_video_file as <task_id>,<path>, "+
			"for example: terraform import videogen_video_file.teaser task_abc123,out/teaser.mp4. The path may be "+
			"relative to the directory Terraform runs in or absolute. Got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), p)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("path"), filePathValue(p))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("task_id"), taskID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("directory_permission"), defaultDirectoryPermission)...)
}

// adoptImported records an existing file as this task's clip, without downloading
// it: the task must have succeeded and the file must be an MP4 video. Its checksum
// is taken from the file as it is.
func (r *videoFileResource) adoptImported(ctx context.Context, state *videoFileResourceModel, diags *diag.Diagnostics) {
	const summary = "Unable to Import Video File"
	if !requireConfigured(r.data, diags, summary) {
		return
	}
	taskID := state.TaskID.ValueString()
	video, err := r.data.client.GetVideo(ctx, taskID)
	if err != nil {
		addAPIError(diags, summary, opGet, err)
		return
	}
	if !checkDownloadable(video, diags) {
		return
	}
	p := state.Path.ValueString()
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() {
		diags.AddAttributeError(path.Root("path"), summary, fmt.Sprintf("Import adopts a clip that was already "+
			"downloaded, but there is no readable file at %s. Check the path (relative paths are relative to the "+
			"directory Terraform runs in), or skip the import: applying the resource downloads the clip without "+
			"regenerating it.\n\nOriginal error: %v", p, err))
		return
	}
	if err := localfile.CheckMP4(p); err != nil {
		diags.AddAttributeError(path.Root("path"), summary, fmt.Sprintf("%s is not an MP4 video clip, so it cannot be "+
			"adopted as the clip of task %s. Remove it and apply without the import to download the clip.\n\n"+
			"Original error: %s", p, taskID, err))
		return
	}
	sum, err := localfile.SHA256(p)
	if err != nil {
		diags.AddAttributeError(path.Root("path"), summary, fmt.Sprintf("The file at %s could not be read for its "+
			"SHA-256.\n\nOriginal error: %s", p, err))
		return
	}
	state.SHA256 = types.StringValue(sum)
	state.SizeBytes = types.Int64Value(info.Size())
	state.SourceURL = types.StringValue(video.URL)
	state.FilePermission = types.StringValue(fmt.Sprintf("%04o", info.Mode().Perm()))
}

// Update applies a new file_permission to the file in place; directory_permission,
// max_size_bytes and timeouts only concern later downloads.
func (r *videoFileResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state videoFileResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID, plan.SHA256, plan.SizeBytes, plan.SourceURL = state.ID, state.SHA256, state.SizeBytes, state.SourceURL
	target, diags := plan.target()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.FilePermission.Equal(state.FilePermission) {
		if err := os.Chmod(target.path, target.fileMode); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("file_permission"), "Unable to Change Video File Permissions",
				fmt.Sprintf("The permissions of %s could not be set to %04o. Check that Terraform runs as the file's owner.\n\n"+
					"Original error: %s", target.path, target.fileMode, err))
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete removes the file; one that is already gone is fine. The directories it
// created stay, since other files may live there.
func (r *videoFileResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state videoFileResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p := state.Path.ValueString()
	info, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err == nil && info.IsDir():
		resp.Diagnostics.AddAttributeWarning(path.Root("path"), "Video File Replaced by a Directory",
			fmt.Sprintf("%s is now a directory, not the downloaded clip, so it was left in place.", p))
		return
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Unable to Delete Video File",
			fmt.Sprintf("The file at %s could not be removed. Check the permissions of its directory, or remove it by "+
				"hand and run terraform apply again.\n\nOriginal error: %s", p, err))
	}
}

// finishedVideo reads the task and, while it is unfinished, waits for it up to
// timeout; it returns the task once it has a clip to download.
func (r *videoFileResource) finishedVideo(ctx context.Context, taskID string, timeout time.Duration, summary string, diags *diag.Diagnostics) (*client.Video, bool) {
	video, err := r.data.client.GetVideo(ctx, taskID)
	if err != nil {
		addAPIError(diags, summary, opGet, err)
		return nil, false
	}
	if !video.Status.Final() {
		tflog.Info(ctx, "the task has not finished; waiting for it before downloading its clip",
			map[string]any{"task_id": taskID, "status": string(video.Status), "timeout": timeout.String()})
		waitCtx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		waited, err := r.data.client.WaitForVideo(waitCtx, taskID)
		var failed *client.TaskFailedError
		var waitErr *client.WaitError
		switch {
		case errors.As(err, &failed):
			video = waited
		case errors.As(err, &waitErr) && waitErr.Interrupted():
			last := string(waitErr.LastStatus)
			if last == "" {
				last = string(video.Status)
			}
			diags.AddAttributeError(path.Root("task_id"), "Video Not Ready", fmt.Sprintf("Task %s was still %q "+
				"when the wait for it stopped after %s (timeouts.create of this videogen_video_file is %s, or the run "+
				"was interrupted). Nothing was downloaded, and no new clip was requested: apply again to keep waiting "+
				"for the same task, or raise timeouts.create.\n\nOriginal error: %s",
				taskID, last, waitErr.Elapsed.Round(time.Second), timeout, err))
			return nil, false
		case err != nil:
			addAPIError(diags, summary, opGet, err)
			return nil, false
		default:
			video = waited
		}
	}
	if !checkDownloadable(video, diags) {
		return nil, false
	}
	return video, true
}

// checkDownloadable insists that a finished task succeeded with a URL.
func checkDownloadable(video *client.Video, diags *diag.Diagnostics) bool {
	switch {
	case video.Status == client.StatusFailed:
		reason := video.FailureReason
		if reason == "" {
			reason = "the service gave no reason"
		}
		diags.AddAttributeError(path.Root("task_id"), "Video Not Downloadable",
			fmt.Sprintf("Task %s has the status \"failed\" (%s), so it has no clip to download. Failed tasks are not "+
				"billed. Regenerate the video (the videogen_video resource replaces a failed task on the next apply), "+
				"then apply again.", video.TaskID, reason))
		return false
	case video.Status.Gone():
		diags.AddAttributeError(path.Root("task_id"), "Video Not Downloadable",
			fmt.Sprintf("Task %s has no clip any more: %s. The videogen_video resource plans a replacement for it on "+
				"the next plan, which generates and bills a new clip.", video.TaskID, video.FailureReason))
		return false
	case video.Status != client.StatusSucceeded:
		diags.AddAttributeError(path.Root("task_id"), "Video Not Downloadable",
			fmt.Sprintf("Task %s has the status %q; only a succeeded task has a clip to download. Apply again when the "+
				"task has succeeded.", video.TaskID, video.RawStatus))
		return false
	case video.URL == "":
		diags.AddAttributeError(path.Root("task_id"), "Video Not Downloadable",
			fmt.Sprintf("Task %s has succeeded, but the service reported no download URL for it. Apply again later; if "+
				"it persists, ask the service about the task.", video.TaskID))
		return false
	}
	return true
}

// fileTarget is a validated path, modes and size bound.
type fileTarget struct {
	path     string
	fileMode os.FileMode
	dirMode  os.FileMode
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

// addPathError explains a path that cannot receive the file.
func addPathError(diags *diag.Diagnostics, p string, err error) {
	diags.AddAttributeError(path.Root("path"), "Unusable Video File Path",
		fmt.Sprintf("The clip cannot be written to %s, so nothing was downloaded. path must name a file, not a "+
			"directory, in a directory that the user running Terraform may write (missing parent directories are "+
			"created). Choose another path, or fix the directory's permissions.\n\nOriginal error: %s", p, err))
}

// addDownloadError explains a failed download and quotes the original error.
// Nothing was written to the target in any of these cases.
func addDownloadError(diags *diag.Diagnostics, taskID string, t fileTarget, err error) {
	var local *localfile.Error
	p := t.path
	switch {
	case errors.As(err, &local):
		diags.AddAttributeError(path.Root("path"), "Unable to Write Video File",
			fmt.Sprintf("The clip of task %s could not be written to %s. Check that the directory is writable by the "+
				"user running Terraform, that no directory or read-only file is in the way, and that the disk has room. "+
				"No partial file was left behind.\n\nOriginal error: %s", taskID, p, err))
	case client.IsTooLarge(err):
		diags.AddAttributeError(path.Root("max_size_bytes"), "Video File Too Large",
			fmt.Sprintf("The clip of task %s is larger than max_size_bytes (%d bytes), so the download was stopped and "+
				"nothing was written to %s. If a clip this large is expected, raise max_size_bytes; otherwise the clip "+
				"host is sending something other than the clip.\n\nOriginal error: %s", taskID, t.maxBytes, p, err))
	case client.IsNotMP4(err):
		diags.AddError("Downloaded File Is Not an MP4 Video",
			fmt.Sprintf("The download host answered for task %s, but with something that is not an MP4 video, so "+
				"nothing was written to %s. This is usually an error or sign-in page from a proxy, CDN or captive portal "+
				"between this machine and the clip host: check that the clip URL is reachable from here (proxy "+
				"settings, VPN), then apply again.\n\nOriginal error: %s", taskID, p, err))
	case client.IsExpiredURL(err):
		diags.AddError("Clip Download Refused",
			fmt.Sprintf("The clip host refused the download of task %s even with a fresh URL read from the task, so "+
				"nothing was written to %s. The service may have removed the clip, or a proxy may block the clip host. "+
				"Apply again later; if it persists, ask the service about the task. Regenerating it (replacing the "+
				"videogen_video resource) would bill a new clip.\n\nOriginal error: %s", taskID, p, err))
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		diags.AddError("Video File Download Interrupted",
			fmt.Sprintf("The download of task %s was interrupted, so nothing was written to %s. Apply again to "+
				"download it; the video is not regenerated.\n\nOriginal error: %s", taskID, p, err))
	default:
		advice := "The download failed. Apply again to retry it; the video is not regenerated."
		var dErr *client.DownloadError
		if errors.As(err, &dErr) {
			advice = fmt.Sprintf("The clip host answered HTTP %d after %d attempt(s). Errors 429 and 5xx are usually "+
				"transient: apply again to retry (the video is not regenerated), or raise the provider's max_retries.",
				dErr.StatusCode, dErr.Attempts)
		} else if client.IsTransient(err) {
			advice = fmt.Sprintf("The clip host kept failing or could not be reached %s. Such errors are usually "+
				"transient: apply again to retry (the video is not regenerated), or raise the provider's max_retries "+
				"or request_timeout.", attemptsText(err))
		}
		diags.AddError("Unable to Download Video File",
			fmt.Sprintf("The clip of task %s could not be downloaded to %s; no partial file was left behind. %s\n\n"+
				"Original error: %s", taskID, p, advice, err))
	}
}
