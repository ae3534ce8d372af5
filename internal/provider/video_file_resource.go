package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

const (
	defaultFilePermission      = "0644"
	defaultDirectoryPermission = "0755"
)

var (
	_ resource.ResourceWithConfigure   = (*videoFileResource)(nil)
	_ resource.ResourceWithImportState = (*videoFileResource)(nil)
)

type videoFileResource struct {
	data *providerData
}

// NewVideoFileResource returns the videogen_video_file resource.
func NewVideoFileResource() resource.Resource { return &videoFileResource{} }

type videoFileResourceModel struct {
	ID                  types.String `tfsdk:"id"`
	TaskID              types.String `tfsdk:"task_id"`
	Path                types.String `tfsdk:"path"`
	FilePermission      types.String `tfsdk:"file_permission"`
	DirectoryPermission types.String `tfsdk:"directory_permission"`
	SHA256              types.String `tfsdk:"sha256"`
	SizeBytes           types.Int64  `tfsdk:"size_bytes"`
	SourceURL           types.String `tfsdk:"source_url"`
}

func (r *videoFileResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_video_file"
}

func (r *videoFileResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The clip of a succeeded video task, downloaded to a local file. State keeps only the path, " +
			"the size and the SHA-256, never the content. When the file is missing or differs from that checksum (a fresh " +
			"CI runner, a deleted or edited file), the next plan downloads it again from the same task: the video is never " +
			"generated, or billed, a second time. Destroying the resource deletes the file. Import adopts a clip that " +
			"was already downloaded, as `<task_id>,<path>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The file's path, same as `path`.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"task_id": schema.StringAttribute{
				MarkdownDescription: "Task whose clip is downloaded, normally `videogen_video.<name>.task_id`. The task must " +
					"have succeeded. The download URL is read from the task at download time, so a rotating signed URL never " +
					"forces a new download. Changing this forces a new file.",
				Required:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.RegexMatches(notBlankPattern, "must not be blank")},
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "Where the clip is written, such as `\"${path.module}/out/teaser.mp4\"`. Missing parent " +
					"directories are created. A relative path is relative to the directory Terraform runs in. The file is " +
					"written to a temporary file beside it and renamed into place, so it never holds a partial clip. " +
					"Changing this forces a new file.",
				Required:      true,
				PlanModifiers: replace,
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

func (r *videoFileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	const summary = "Unable to Download Video File"
	var plan videoFileResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !requireConfigured(r.data, &resp.Diagnostics, summary) {
		return
	}
	target, diags := plan.target()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	taskID := plan.TaskID.ValueString()
	video, ok := r.succeededVideo(ctx, taskID, summary, &resp.Diagnostics)
	if !ok {
		return
	}
	result, err := r.download(ctx, video, target)
	if err != nil {
		addDownloadError(&resp.Diagnostics, taskID, target.path, err)
		return
	}
	plan.ID = plan.Path
	plan.SHA256 = types.StringValue(result.sha256)
	plan.SizeBytes = types.Int64Value(result.size)
	plan.SourceURL = types.StringValue(result.sourceURL)
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
	sum, err := fileSHA256(p)
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

// ImportState takes "<task_id>,<path>"; the first Read then adopts the file. A task
// ID never holds a comma, while a path may.
func (r *videoFileResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	taskID, p, ok := strings.Cut(req.ID, ",")
	taskID = strings.TrimSpace(taskID)
	if !ok || taskID == "" || p == "" {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Import a videogen_video_file as <task_id>,<path>, "+
			"with the path exactly as the path argument gives it, for example: terraform import "+
			"videogen_video_file.teaser task_abc123,out/teaser.mp4. Got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), p)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("path"), p)...)
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
	video, ok := r.succeededVideo(ctx, state.TaskID.ValueString(), summary, diags)
	if !ok {
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
	head, err := readHead(p, client.MP4SniffBytes)
	if err == nil && !client.LooksLikeMP4(head) {
		err = errors.New("no ftyp box at the start of the file")
	}
	if err != nil {
		diags.AddAttributeError(path.Root("path"), summary, fmt.Sprintf("%s is not an MP4 video clip, so it cannot be "+
			"adopted as the clip of task %s. Remove it and apply without the import to download the clip.\n\n"+
			"Original error: %s", p, state.TaskID.ValueString(), err))
		return
	}
	sum, err := fileSHA256(p)
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

func readHead(p string, n int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, n)
	read, err := io.ReadFull(f, head)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return head[:read], err
}

// Update applies a new file_permission to the file in place; directory_permission
// only concerns directories that later downloads create.
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

// succeededVideo reads the task and insists that it succeeded with a URL; summary
// heads the diagnostic when the task cannot be read.
func (r *videoFileResource) succeededVideo(ctx context.Context, taskID, summary string, diags *diag.Diagnostics) (*client.Video, bool) {
	video, err := r.data.client.GetVideo(ctx, taskID)
	if err != nil {
		addAPIError(diags, summary, opGet, err)
		return nil, false
	}
	switch {
	case video.Status == client.StatusFailed:
		reason := video.FailureReason
		if reason == "" {
			reason = "the service gave no reason"
		}
		diags.AddAttributeError(path.Root("task_id"), "Video Not Downloadable",
			fmt.Sprintf("Task %s has the status \"failed\" (%s), so it has no clip to download. Failed tasks are not "+
				"billed. Regenerate the video (the videogen_video resource replaces a failed task on the next apply), "+
				"then apply again.", taskID, reason))
		return nil, false
	case video.Status != client.StatusSucceeded:
		diags.AddAttributeError(path.Root("task_id"), "Video Not Downloadable",
			fmt.Sprintf("Task %s has the status %q; only a succeeded task has a clip to download. Set task_id to "+
				"videogen_video.<name>.task_id with wait_for_completion left at true, so that Terraform downloads once "+
				"the video has finished, or apply again when the task has succeeded.", taskID, video.Status))
		return nil, false
	case video.URL == "":
		diags.AddAttributeError(path.Root("task_id"), "Video Not Downloadable",
			fmt.Sprintf("Task %s has succeeded, but the service reported no download URL for it. Apply again later; if "+
				"it persists, ask the service about the task.", taskID))
		return nil, false
	}
	return video, true
}

// fileTarget is a validated path and modes.
type fileTarget struct {
	path     string
	fileMode os.FileMode
	dirMode  os.FileMode
}

func (m *videoFileResourceModel) target() (fileTarget, diag.Diagnostics) {
	var diags diag.Diagnostics
	t := fileTarget{path: m.Path.ValueString()}
	var err error
	if t.fileMode, err = validators.ParseFileMode(m.FilePermission.ValueString()); err != nil {
		diags.AddAttributeError(path.Root("file_permission"), "Invalid Permission", fmt.Sprintf("file_permission %s.", err))
	}
	if t.dirMode, err = validators.ParseFileMode(m.DirectoryPermission.ValueString()); err != nil {
		diags.AddAttributeError(path.Root("directory_permission"), "Invalid Permission", fmt.Sprintf("directory_permission %s.", err))
	}
	return t, diags
}

type downloadResult struct {
	sha256    string
	size      int64
	sourceURL string
}

// localFileError marks a failure on the local disk, as opposed to one of the
// download, so that the diagnostic points at path.
type localFileError struct {
	op  string
	err error
}

func (e *localFileError) Error() string { return e.op + ": " + e.err.Error() }
func (e *localFileError) Unwrap() error { return e.err }

// download streams the clip into a temporary file beside the target, hashing it on
// the way, then fsyncs and renames it into place. Whatever fails, no partial file
// remains. A URL refused as expired is replaced once by a fresh one from the task.
func (r *videoFileResource) download(ctx context.Context, video *client.Video, t fileTarget) (downloadResult, error) {
	dir := filepath.Dir(t.path)
	if err := mkdirAll(dir, t.dirMode); err != nil {
		return downloadResult{}, &localFileError{op: "creating the directory " + dir, err: err}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(t.path)+".*.part")
	if err != nil {
		return downloadResult{}, &localFileError{op: "creating a temporary file in " + dir, err: err}
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()

	sum := sha256.New()
	out := &hashingFile{f: tmp, h: sum}
	open := func() (io.Writer, error) {
		if err := out.reset(); err != nil {
			return nil, &localFileError{op: "truncating " + tmp.Name(), err: err}
		}
		return out, nil
	}

	start := time.Now()
	sourceURL := video.URL
	size, err := r.data.client.DownloadClip(ctx, sourceURL, open)
	if client.IsExpiredURL(err) {
		tflog.Info(ctx, "the clip URL was refused as expired; reading the task again for a fresh one",
			map[string]any{"task_id": video.TaskID, "error": err.Error()})
		fresh, getErr := r.data.client.GetVideo(ctx, video.TaskID)
		switch {
		case getErr != nil:
			return downloadResult{}, fmt.Errorf("the clip URL was refused (%w) and the task could not be read again for a fresh one: %w", err, getErr)
		case fresh.Status != client.StatusSucceeded || fresh.URL == "":
			return downloadResult{}, fmt.Errorf("the clip URL was refused (%w) and task %s no longer reports a download URL (status %q)",
				err, video.TaskID, fresh.Status)
		}
		sourceURL = fresh.URL
		size, err = r.data.client.DownloadClip(ctx, sourceURL, open)
	}
	if err != nil {
		return downloadResult{}, err
	}
	elapsed := time.Since(start)
	if err := tmp.Sync(); err != nil {
		return downloadResult{}, &localFileError{op: "flushing " + tmp.Name() + " to disk", err: err}
	}
	synced := time.Since(start)
	if err := tmp.Chmod(t.fileMode); err != nil {
		return downloadResult{}, &localFileError{op: "setting the permissions of " + tmp.Name(), err: err}
	}
	if err := tmp.Close(); err != nil {
		return downloadResult{}, &localFileError{op: "closing " + tmp.Name(), err: err}
	}
	if err := os.Rename(tmp.Name(), t.path); err != nil {
		return downloadResult{}, &localFileError{op: "moving the download into place at " + t.path, err: err}
	}
	committed = true
	syncDir(dir)

	tflog.Info(ctx, "video file downloaded", map[string]any{
		"task_id": video.TaskID, "path": t.path, "bytes": size, "download_ms": elapsed.Milliseconds(),
		"with_fsync_ms": synced.Milliseconds(), "mib_per_second": float64(size) / (1 << 20) / max(synced.Seconds(), 1e-9),
	})
	return downloadResult{sha256: hex.EncodeToString(sum.Sum(nil)), size: size, sourceURL: sourceURL}, nil
}

// hashingFile writes to the file and the hash together, and can start over.
type hashingFile struct {
	f *os.File
	h hash.Hash
}

func (w *hashingFile) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.h.Write(p[:n])
	if err != nil {
		return n, &localFileError{op: "writing " + w.f.Name(), err: err}
	}
	return n, nil
}

func (w *hashingFile) reset() error {
	w.h.Reset()
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return w.f.Truncate(0)
}

// mkdirAll creates dir and its missing parents with exactly mode (the umask
// aside), leaving existing directories alone.
func mkdirAll(dir string, mode os.FileMode) error {
	info, err := os.Stat(dir)
	if err == nil {
		if !info.IsDir() {
			return fmt.Errorf("%s exists and is not a directory", dir)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirAll(parent, mode); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, mode); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return err
	}
	return os.Chmod(dir, mode)
}

// syncDir makes the rename durable. Where directories cannot be synced, the
// rename stands anyway.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, make([]byte, 256<<10)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// addDownloadError explains a failed download and quotes the original error.
// Nothing was written to path in any of these cases.
func addDownloadError(diags *diag.Diagnostics, taskID, p string, err error) {
	var local *localFileError
	switch {
	case errors.As(err, &local):
		diags.AddAttributeError(path.Root("path"), "Unable to Write Video File",
			fmt.Sprintf("The clip of task %s could not be written to %s. Check that the directory is writable by the "+
				"user running Terraform, that no directory or read-only file is in the way, and that the disk has room. "+
				"No partial file was left behind.\n\nOriginal error: %s", taskID, p, err))
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
