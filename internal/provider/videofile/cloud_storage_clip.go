package videofile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clipstore"
	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// A clip Vertex AI wrote into the team's bucket itself (videogen_video's
// storage_uri) is read from there, with the team's own credentials, never
// through the API: a videogen_video_file whose path is that very object
// records it where it is (clipstore's Seal reads it once from the bucket
// and keeps its SHA-256 in the object's metadata, as Write does), and one
// with another path copies it from the bucket.

// inCloudStorage: p names a Cloud Storage object, where Vertex AI may have
// written a clip itself.
func inCloudStorage(p string) bool { return strings.HasPrefix(p, "gs://") }

// vertexWrote reports whether the object at p, which names no task, may be
// the clip Vertex AI wrote for taskID: the task says its clip is p. A task
// that cannot be read is not taken for it (the caller's check stands).
func (r *videoFileResource) vertexWrote(ctx context.Context, taskID, p string) bool {
	if r.data == nil || taskID == "" {
		return false
	}
	video, err := r.data.Client().GetVideo(ctx, taskID)
	return err == nil && video.CloudStorageObject() == p
}

// sealVertexObject records the object at p of store, which Vertex AI wrote
// for m's task, as m's clip, without downloading or uploading it.
func (r *videoFileResource) sealVertexObject(ctx context.Context, m *videoFileResourceModel, store *clipstore.Store,
	diags *diag.Diagnostics,
) bool {
	p, taskID := m.Path.ValueString(), m.TaskID.ValueString()
	written, err := store.Seal(ctx, clipstore.Meta{TaskID: taskID, Model: r.modelOf(m)})
	switch {
	case errors.Is(err, clipstore.ErrExists):
		addObjectError(diags, "Video Object Key Already Taken", p, "was left as it is: it names another task than "+
			"the one whose clip Vertex AI wrote there. Check the path", err)
		return false
	case err != nil:
		addObjectError(diags, "Unable to Record Video Object", p, "holds the clip Vertex AI wrote, but its SHA-256 "+
			"could not be recorded; nothing was downloaded or generated. Fix the access to the bucket and apply again", err)
		return false
	}
	tflog.Info(ctx, "video object Vertex AI wrote recorded where it is, without downloading it",
		map[string]any{"task_id": taskID, "url": clipstore.Redact(p), "bytes": written.Size})
	m.setClip(localfile.Clip{SHA256: written.SHA256, Size: written.Size, SourceURL: p})
	r.rememberObject(m)
	return true
}

// copyCloudStorageClip streams the object Vertex AI wrote for video into
// out, read from the bucket; nothing larger than maxBytes is written.
func copyCloudStorageClip(ctx context.Context, video *client.Video, out io.Writer, maxBytes int64) error {
	object := video.CloudStorageObject()
	store, err := openObject(ctx, object)
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	rd, err := store.NewReader(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = rd.Close() }()
	n, err := io.Copy(out, io.LimitReader(rd, maxBytes+1))
	switch {
	case err != nil:
		return err
	case n > maxBytes:
		return fmt.Errorf("the clip of task %s at %s is larger than max_size_bytes (%d)", video.TaskID,
			clipstore.Redact(object), maxBytes)
	}
	return nil
}
