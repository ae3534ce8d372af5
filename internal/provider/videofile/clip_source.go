package videofile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clipstore"
	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// Where a clip's bytes come from: the vendor while it gives them, otherwise a
// stored copy of the same task (storedCopies). Nothing here ever submits a
// task: a clip the vendor forgot is never generated again by a file.

// vendorVideo reads the task and, while it is unfinished, waits for it up to
// timeout. When the vendor cannot give the clip (the task is gone, failed to
// be read, or has no clip any more) and a stored copy of the task is known,
// video is nil and ok true: the clip is written from the copy, and
// vendorDiags say why the vendor could not, should the copies fail too.
func (r *videoFileResource) vendorVideo(ctx context.Context, taskID string, copies []storedCopy, timeout time.Duration,
	diags *diag.Diagnostics,
) (video *client.Video, vendorDiags diag.Diagnostics, ok bool) {
	video, ok = r.finishedVideo(ctx, taskID, timeout, downloadSummary, &vendorDiags)
	switch {
	case ok:
		return video, nil, true
	case ctx.Err() != nil || len(copies) == 0:
		diags.Append(vendorDiags...)
		return nil, nil, false
	}
	tflog.Warn(ctx, "the service cannot give the clip; writing it from a stored copy of the task",
		map[string]any{"task_id": taskID})
	return nil, vendorDiags, true
}

// clipSource is where writeClip found the bytes.
type clipSource struct {
	// url is the clip URL, or the stored copy's URL when fromCopy.
	url      string
	fromCopy bool
	// vendorErr is why the download from the service failed, when a stored
	// copy served instead.
	vendorErr error
}

// copiesOf lists where a stored copy of m's clip may be: the objects m names in
// copies, then those this process saw holding it, never m's own object.
func (r *videoFileResource) copiesOf(ctx context.Context, m *videoFileResourceModel) []storedCopy {
	self := m.Path.ValueString()
	var out []storedCopy
	var named []string
	_ = m.Copies.ElementsAs(ctx, &named, false) // validated at plan: strings
	for _, u := range named {
		if u != self {
			out = append(out, storedCopy{url: u})
		}
	}
	return append(out, r.storedCopies().of(m.TaskID.ValueString(), self)...)
}

// writeClip writes the clip of taskID to out: from video's URL when video is
// not nil, and otherwise, or when the vendor refuses the download, from one of
// copies. An error of out itself (the destination) is returned as it is.
func (r *videoFileResource) writeClip(ctx context.Context, taskID string, video *client.Video, out client.Output, maxBytes int64,
	copies []storedCopy,
) (clipSource, error) {
	var vendorErr error
	if video.CloudStorageObject() != "" {
		return clipSource{url: video.CloudStorageObject()}, copyCloudStorageClip(ctx, video, out, maxBytes)
	}
	if video != nil {
		dl, err := r.data.Client().DownloadVideo(ctx, video, out, maxBytes)
		if err == nil {
			return clipSource{url: recordedURL(dl.URL)}, nil
		}
		var local *localfile.Error
		var store *clipstore.Error
		if ctx.Err() != nil || client.IsTooLarge(err) || errors.As(err, &local) || errors.As(err, &store) {
			return clipSource{}, err
		}
		vendorErr = err
	}
	if len(copies) == 0 {
		return clipSource{}, vendorErr
	}
	var failed []string
	for _, c := range copies {
		if err := out.Reset(); err != nil {
			return clipSource{}, err
		}
		err := copyStored(ctx, taskID, c, out, maxBytes)
		if err == nil {
			tflog.Info(ctx, "clip written from a stored copy", map[string]any{"task_id": taskID, "from": clipstore.Redact(c.url)})
			return clipSource{url: c.url, fromCopy: true, vendorErr: vendorErr}, nil
		}
		var local *localfile.Error
		if ctx.Err() != nil || errors.As(err, &local) {
			return clipSource{}, err
		}
		failed = append(failed, err.Error())
	}
	err := fmt.Errorf("no stored copy of task %s could be read: %s", taskID, strings.Join(failed, "; "))
	if vendorErr != nil {
		err = fmt.Errorf("%w (the service: %w)", err, vendorErr)
	}
	return clipSource{}, &storedCopyError{err: err}
}

// storedCopyError: the vendor could not give the clip, and neither could any
// stored copy.
type storedCopyError struct{ err error }

func (e *storedCopyError) Error() string { return e.err.Error() }
func (e *storedCopyError) Unwrap() error { return e.err }

// copyStored streams the object of c into out, checking as it goes that it is
// the clip of taskID: its metadata names the task and a SHA-256 (the one c
// records, when it records one), which the bytes read must have.
func copyStored(ctx context.Context, taskID string, c storedCopy, out io.Writer, maxBytes int64) error {
	shown := clipstore.Redact(c.url)
	store, err := openObject(ctx, c.url)
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	obj, err := store.Stat(ctx)
	switch {
	case err != nil:
		return err
	case obj.TaskID != taskID || obj.SHA256 == "":
		return fmt.Errorf("%s does not hold a stored clip of task %s (its metadata names task %q, SHA-256 %q)",
			shown, taskID, obj.TaskID, obj.SHA256)
	case c.sha256 != "" && !obj.Holds(c.size, c.sha256):
		return fmt.Errorf("%s no longer holds the clip (%d bytes, SHA-256 %s)", shown, c.size, c.sha256)
	case obj.Size > maxBytes:
		return fmt.Errorf("%s holds %d bytes, more than max_size_bytes (%d)", shown, obj.Size, maxBytes)
	}
	c.size, c.sha256 = obj.Size, obj.SHA256
	if sized, ok := out.(client.SizedOutput); ok {
		sized.Expect(c.size)
	}
	rd, err := store.NewReader(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = rd.Close() }()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(rd, c.size+1))
	switch {
	case err != nil:
		return err
	case n != c.size || hex.EncodeToString(h.Sum(nil)) != c.sha256:
		return fmt.Errorf("%s did not read back as the clip it records (%d bytes, SHA-256 %s)", clipstore.Redact(c.url), c.size, c.sha256)
	}
	return nil
}

// addRestoredWarning says that a clip was written from a stored copy because
// the service could not give it, and why.
func addRestoredWarning(diags *diag.Diagnostics, taskID, dest string, src clipSource, vendorDiags diag.Diagnostics) {
	why := "it gave no reason"
	if src.vendorErr != nil {
		why = src.vendorErr.Error()
	}
	for _, d := range vendorDiags.Errors() {
		why = d.Summary() + ": " + d.Detail()
		break
	}
	diags.AddAttributeWarning(path.Root("path"), "Video Clip Written From a Stored Copy",
		fmt.Sprintf("The service could not give the clip of task %s, so %s was written from the stored copy at %s, "+
			"checked against its recorded SHA-256. No clip was generated or billed. What the service said: %s",
			taskID, clipstore.Redact(dest), clipstore.Redact(src.url), why))
}

// checkCopies refuses, at plan, an element of copies that names no object a
// store takes; an element only known at apply is checked when it is read.
func checkCopies(copies types.List, diags *diag.Diagnostics) {
	if copies.IsNull() || copies.IsUnknown() {
		return
	}
	for i, e := range copies.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsUnknown() || s.IsNull() {
			continue
		}
		if _, err := clipstore.Parse(s.ValueString()); err != nil {
			diags.AddAttributeError(path.Root("copies").AtListIndex(i), "Invalid Stored Copy URL",
				fmt.Sprintf("Each element of copies names an object that holds a stored copy of the clip "+
					"(s3://, gs://, azblob:// or file://), normally the path of another videogen_video_file: %s.", err))
		}
	}
}

// recordedURL is a clip URL as state records it: without its query, user
// information and fragment, since a signed URL's query is a credential that
// must reach no state or plan, and the URL is never used again.
func recordedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment, u.User = "", false, "", "", nil
	return u.String()
}
