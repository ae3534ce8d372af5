package videofile

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/clipstore"
	"github.com/videogen/terraform-provider-videogen/internal/localfile"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

// The object side of videogen_video_file: a path that is a URL names an object
// in a store (clipstore). See CONTRIBUTING.md, "Stored clips (object storage)".

// objectURLPattern tells a URL (s3://, gs://, azblob://, file://, or a scheme
// clipstore refuses by name) from a local path, which never starts with a
// scheme followed by "://".
var objectURLPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// objectMissing is the drift Read records for an object that is gone: the
// plan writes it again, as an update of the resource, which keeps its state.
const objectMissing = "is missing"

// planStatTimeout bounds the look at an object during plan, as the model
// list's look is bounded: a store that does not answer fails the plan rather
// than hanging it.
const planStatTimeout = time.Minute

func isObjectURL(p string) bool { return objectURLPattern.MatchString(p) }

// openObject opens the store of the object at p; the caller closes it.
func openObject(ctx context.Context, p string) (*clipstore.Store, error) {
	return clipstore.Open(ctx, p)
}

// statObject reads what is at p without downloading it: ok false when
// nothing is there.
func statObject(ctx context.Context, p string) (clipstore.Object, bool, error) {
	store, err := openObject(ctx, p)
	if err != nil {
		return clipstore.Object{}, false, err
	}
	defer func() { _ = store.Close() }()
	obj, err := store.Stat(ctx)
	switch {
	case errors.Is(err, clipstore.ErrNotFound):
		return clipstore.Object{}, false, nil
	case err != nil:
		return clipstore.Object{}, false, err
	}
	return obj, true, nil
}

// objectDrift says why obj is not the clip m records, or "" when it is.
func objectDrift(m *videoFileResourceModel, obj clipstore.Object) string {
	size, sum := m.SizeBytes.ValueInt64(), m.SHA256.ValueString()
	switch {
	case obj.Holds(size, sum):
		return ""
	case obj.SHA256 == "":
		return fmt.Sprintf("now holds %d bytes without the SHA-256 this provider records with a clip", obj.Size)
	default:
		return fmt.Sprintf("now holds %d bytes with SHA-256 %s, not %d bytes with SHA-256 %s", obj.Size, obj.SHA256, size, sum)
	}
}

// planNewObject checks, at plan, the object a new videogen_video_file writes:
// a URL the store takes, and a key that is free, holds this task's clip
// already (adopted: the plan shows its SHA-256), or may be replaced
// (overwrite). It reports whether it changed plan.
func (r *videoFileResource) planNewObject(ctx context.Context, plan *videoFileResourceModel, overwrite bool, diags *diag.Diagnostics) bool {
	p := plan.Path.ValueString()
	if _, err := clipstore.Parse(p); err != nil {
		addObjectURLError(diags, err)
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, planStatTimeout)
	defer cancel()
	obj, found, err := statObject(ctx, p)
	switch {
	case err != nil:
		addObjectError(diags, "Unable to Check Video Object", p, "was not checked, so nothing was planned for it", err)
		return false
	case !found:
		return false
	case !plan.TaskID.IsUnknown() && obj.TaskID == plan.TaskID.ValueString() && obj.SHA256 != "":
		// This provider wrote it for this task (a lost state, a fresh
		// workspace): adopted without downloading or uploading anything.
		plan.setClip(localfile.Clip{SHA256: obj.SHA256, Size: obj.Size, SourceURL: p})
		if plan.Model.IsUnknown() && obj.Model != "" {
			plan.Model = types.StringValue(obj.Model)
		}
		return true
	case !plan.TaskID.IsUnknown() && obj.TaskID == "" && inCloudStorage(p) && r.vertexWrote(ctx, plan.TaskID.ValueString(), p):
		// Vertex AI wrote the task's clip there: apply records it where it is.
		return false
	case !overwrite:
		addObjectTakenError(diags, p, obj, plan.TaskID)
	}
	return false
}

// readObject checks the object against state at refresh, without downloading
// it. found is false when the key holds nothing.
func (r *videoFileResource) readObject(ctx context.Context, state *videoFileResourceModel) (found bool, drift string, err error) {
	p := state.Path.ValueString()
	obj, found, err := statObject(ctx, p)
	if err != nil || !found {
		r.storedCopies().forget(state.TaskID.ValueString(), p)
		return found, "", err
	}
	if drift = objectDrift(state, obj); drift != "" {
		r.storedCopies().forget(state.TaskID.ValueString(), p)
		return true, drift, nil
	}
	r.rememberObject(state)
	return true, "", nil
}

// rememberObject records m's object as a stored copy of its task's clip.
func (r *videoFileResource) rememberObject(m *videoFileResourceModel) {
	if !isObjectURL(m.Path.ValueString()) || m.SHA256.IsUnknown() || m.SHA256.IsNull() {
		return
	}
	r.storedCopies().remember(m.TaskID.ValueString(),
		storedCopy{url: m.Path.ValueString(), sha256: m.SHA256.ValueString(), size: m.SizeBytes.ValueInt64()})
}

// fetchObject waits for the task of m to finish, up to timeout, and streams its
// clip into the object, recording it in m. Unless replace is set, an object
// with other content at the key is left as it is and the write fails.
func (r *videoFileResource) fetchObject(ctx context.Context, m *videoFileResourceModel, replace bool, maxBytes int64,
	timeout time.Duration, diags *diag.Diagnostics,
) bool {
	if !apidiag.RequireConfigured(r.data != nil, diags, downloadSummary) {
		return false
	}
	p, taskID := m.Path.ValueString(), m.TaskID.ValueString()
	store, err := openObject(ctx, p)
	if err != nil {
		addObjectError(diags, "Unable to Write Video Object", p, "was not written", err)
		return false
	}
	defer func() { _ = store.Close() }()
	var unnamed *clipstore.Object
	if !replace {
		// Checked again before waiting for or downloading anything: the key
		// may have been taken since the plan.
		switch obj, err := store.Stat(ctx); {
		case err == nil && obj.TaskID == "" && inCloudStorage(p):
			// Perhaps the clip Vertex AI wrote there: told once the task is read.
			unnamed = &obj
		case err == nil:
			addObjectTakenError(diags, p, obj, m.TaskID)
			return false
		case !errors.Is(err, clipstore.ErrNotFound):
			addObjectError(diags, "Unable to Write Video Object", p, "was not written", err)
			return false
		}
	}
	copies := r.copiesOf(ctx, m)
	video, vendorDiags, ok := r.vendorVideo(ctx, taskID, copies, timeout, diags)
	switch {
	case !ok:
		return false
	case video != nil && video.CloudStorageObject() == p:
		return r.sealVertexObject(ctx, m, store, diags)
	case unnamed != nil:
		addObjectTakenError(diags, p, *unnamed, m.TaskID)
		return false
	}
	out := &objectOutput{ctx: ctx, store: store, meta: clipstore.Meta{TaskID: taskID, Model: r.modelOf(m)},
		opts: clipstore.WriteOptions{Overwrite: replace}}
	src, err := r.writeClip(ctx, taskID, video, out, maxBytes, copies)
	var written clipstore.Written
	if err == nil {
		written, err = out.finish()
	} else {
		out.abort(err)
	}
	var copyErr *storedCopyError
	switch {
	case errors.As(err, &copyErr) && video == nil:
		diags.Append(vendorDiags...)
		addDownloadError(diags, taskID, fileTarget{path: p, maxBytes: maxBytes}, err)
		return false
	case errors.Is(err, clipstore.ErrExists):
		addObjectError(diags, "Video Object Key Already Taken", p, "was left as it is: another writer put other "+
			"content there after the plan. Choose another key, or set overwrite = true to replace it", err)
		return false
	case err != nil:
		addDownloadError(diags, taskID, fileTarget{path: p, maxBytes: maxBytes}, err)
		return false
	}
	tflog.Info(ctx, "video object written", map[string]any{"task_id": taskID, "url": clipstore.Redact(p),
		"bytes": written.Size, "unchanged": written.Unchanged})
	if src.fromCopy {
		addRestoredWarning(diags, taskID, p, src, vendorDiags)
	}
	m.setClip(localfile.Clip{SHA256: written.SHA256, Size: written.Size, SourceURL: src.url})
	r.rememberObject(m)
	return true
}

// modelOf is the model of m's clip for an object's metadata: the one
// recorded at plan, or else the one a videogen_video of this process names.
func (r *videoFileResource) modelOf(m *videoFileResourceModel) string {
	if !m.Model.IsUnknown() && !m.Model.IsNull() {
		return m.Model.ValueString()
	}
	return r.data.TaskModel(m.TaskID.ValueString())
}

// deleteObject removes the object while it still holds the clip of state;
// what reports what was left at the key, "" when nothing was.
func (r *videoFileResource) deleteObject(ctx context.Context, state *videoFileResourceModel) (left string, err error) {
	p := state.Path.ValueString()
	r.storedCopies().forget(state.TaskID.ValueString(), p)
	store, err := openObject(ctx, p)
	if err != nil {
		return "", err
	}
	defer func() { _ = store.Close() }()
	obj, err := store.Stat(ctx)
	switch {
	case errors.Is(err, clipstore.ErrNotFound):
		return "", nil
	case err != nil:
		return "", err
	}
	if drift := objectDrift(state, obj); drift != "" {
		return drift, nil
	}
	if err := store.Delete(ctx); err != nil && !errors.Is(err, clipstore.ErrNotFound) {
		return "", err
	}
	return "", nil
}

// objectTaskID names the task of the object, for messages.
func objectTaskID(taskID types.String) string {
	if taskID.IsUnknown() || taskID.IsNull() {
		return "the task of this resource's clip"
	}
	return "task " + taskID.ValueString()
}

// createObject writes the object of a new resource, or keeps the one the plan
// adopted after checking that it still holds the clip.
func (r *videoFileResource) createObject(ctx context.Context, plan *videoFileResourceModel, target fileTarget, timeout time.Duration,
	diags *diag.Diagnostics,
) bool {
	if plan.SHA256.IsUnknown() {
		return r.fetchObject(ctx, plan, plan.Overwrite.ValueBool(), target.maxBytes, timeout, diags)
	}
	obj, found, err := statObject(ctx, target.path)
	switch {
	case err != nil:
		addObjectError(diags, "Unable to Check Video Object", target.path, "was not checked", err)
		return false
	case !found || !obj.Holds(plan.SizeBytes.ValueInt64(), plan.SHA256.ValueString()):
		diags.AddAttributeError(path.Root("path"), "Video Object Changed Since Plan", fmt.Sprintf("The plan adopted "+
			"the object at %s because it held the clip of task %s, but it no longer does, so nothing was downloaded "+
			"or replaced. Run terraform plan again.", clipstore.Redact(target.path), plan.TaskID.ValueString()))
		return false
	}
	tflog.Info(ctx, "video object adopted without downloading: it holds the clip", map[string]any{"url": clipstore.Redact(target.path)})
	r.rememberObject(plan)
	return true
}

// readObjectState is Read for an object: state is kept, with what is wrong
// with the object kept for the plan: nothing, changed (the plan warns), or
// missing (the plan writes it again). An imported object is adopted first.
func (r *videoFileResource) readObjectState(ctx context.Context, state *videoFileResourceModel, resp *resource.ReadResponse) {
	p := state.Path.ValueString()
	if state.SHA256.IsNull() {
		r.adoptImportedObject(ctx, state, &resp.Diagnostics)
		if !resp.Diagnostics.HasError() {
			resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		}
		return
	}
	found, drift, err := r.readObject(ctx, state)
	switch {
	case err != nil:
		addObjectError(&resp.Diagnostics, "Unable to Read Video Object", p, "could not be checked against its "+
			"recorded SHA-256, and state was left as it is", err)
		return
	case !found:
		tflog.Warn(ctx, "video object is missing; the plan writes it again from the same task (the video is not regenerated)",
			map[string]any{"url": clipstore.Redact(p), "task_id": state.TaskID.ValueString()})
		drift = objectMissing
	case drift != "":
		tflog.Warn(ctx, "video object "+drift, map[string]any{"url": clipstore.Redact(p), "task_id": state.TaskID.ValueString()})
	}
	if drift == "" && r.data != nil && r.data.ClipLost(state.TaskID.ValueString()) {
		addStoredCopyWarning(&resp.Diagnostics, state)
	}
	resp.Diagnostics.Append(privateKeyFileDrift.Set(ctx, resp.Private, drift)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// addStoredCopyWarning names the object as a stored copy of a clip the
// service no longer holds, beside the warning of its videogen_video, which
// Terraform reads first and so cannot name it.
func addStoredCopyWarning(diags *diag.Diagnostics, m *videoFileResourceModel) {
	diags.AddAttributeWarning(path.Root("path"), "Stored Copy of a Clip the Service No Longer Holds",
		fmt.Sprintf("The service no longer holds the clip of task %s (see the warning of its videogen_video), and "+
			"the object at %s holds it: %d bytes with SHA-256 %s, checked against the object's metadata. Keep it: "+
			"fresh runners read it instead of the service, and other videogen_video_file resources of this task are "+
			"written from it when they list it in copies. Nothing is submitted or billed.",
			m.TaskID.ValueString(), clipstore.Redact(m.Path.ValueString()), m.SizeBytes.ValueInt64(), m.SHA256.ValueString()))
}

// adoptImportedObject records an existing object as this task's clip without
// reading it: only an object this provider wrote for the task, whose metadata
// holds its SHA-256, can be imported.
func (r *videoFileResource) adoptImportedObject(ctx context.Context, state *videoFileResourceModel, diags *diag.Diagnostics) {
	p, taskID := state.Path.ValueString(), state.TaskID.ValueString()
	obj, found, err := statObject(ctx, p)
	switch {
	case err != nil:
		addObjectError(diags, "Unable to Import Video File", p, "could not be read", err)
	case !found:
		diags.AddAttributeError(path.Root("path"), "Unable to Import Video File", fmt.Sprintf("There is no object at "+
			"%s to import. Skip the import: applying the resource writes the clip there without regenerating it.",
			clipstore.Redact(p)))
	case obj.TaskID != taskID || obj.SHA256 == "":
		diags.AddAttributeError(path.Root("path"), "Unable to Import Video File", fmt.Sprintf("The object at %s does "+
			"not say it holds the clip of task %s (its metadata names task %q and SHA-256 %q), so it cannot be adopted "+
			"without reading it. Remove it and apply without the import, or apply with overwrite = true: the clip is "+
			"written from the same task, not regenerated.", clipstore.Redact(p), taskID, obj.TaskID, obj.SHA256))
	default:
		state.setClip(localfile.Clip{SHA256: obj.SHA256, Size: obj.Size, SourceURL: p})
		if obj.Model != "" {
			state.Model = types.StringValue(obj.Model)
		}
		state.FilePermission = types.StringValue(defaultFilePermission)
		r.rememberObject(state)
	}
}

// deleteObjectState is Delete for an object: removed while it holds the clip,
// left with a warning otherwise.
func (r *videoFileResource) deleteObjectState(ctx context.Context, state *videoFileResourceModel, resp *resource.DeleteResponse) {
	p := state.Path.ValueString()
	left, err := r.deleteObject(ctx, state)
	switch {
	case err != nil:
		addObjectError(&resp.Diagnostics, "Unable to Delete Video Object", p, "could not be removed; remove it by "+
			"hand, or fix the credentials, and run terraform apply again", err)
	case left != "":
		resp.Diagnostics.AddAttributeWarning(path.Root("path"), "Video Object Left in Place",
			fmt.Sprintf("The object at %s is no longer the clip this resource wrote (it %s), so it was not deleted and "+
				"is no longer managed. Remove it by hand if it is not needed.", clipstore.Redact(p), left))
	}
}
