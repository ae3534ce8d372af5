package videofile

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clipstore"
	"github.com/videogen/terraform-provider-videogen/internal/localfile"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

// The diagnostics of videogen_video_file: each says what was left as it was on
// the disk (always everything, when it fails) and what to do next.

// addPathError explains a path that cannot receive the file.
func addPathError(diags *diag.Diagnostics, p string, err error) {
	diags.AddAttributeError(path.Root("path"), "Unusable Video File Path",
		fmt.Sprintf("The clip cannot be written to %s, so nothing was downloaded. path must name a file, not a "+
			"directory, in a directory that the user running Terraform may write (missing parent directories are "+
			"created). Choose another path, or fix the directory's permissions.\n\nOriginal error: %s", p, err))
}

// addOccupiedError refuses to replace what is at p, which is not this clip.
func addOccupiedError(diags *diag.Diagnostics, p string, occ localfile.Occupant, taskID types.String) {
	adopt := ""
	if occ == localfile.RegularFile {
		// The provider is never told the resource's address: Terraform prints it
		// with this error, after "with".
		id := fmt.Sprintf("the task ID of the clip (its videogen_video's task_id, known once that clip is created), a "+
			"comma and %s", p)
		if !taskID.IsUnknown() && !taskID.IsNull() {
			id = strconv.Quote(taskID.ValueString() + "," + p)
		}
		adopt = fmt.Sprintf(" If it is this resource's clip, adopt it as it is: import this resource, at the address "+
			"shown after \"with\" above, with ID %s (terraform import, or an import block).", id)
	}
	diags.AddAttributeError(path.Root("path"), "Video File Path Already Taken",
		fmt.Sprintf("There is already %s at %s that this resource did not write, and videogen_video_file never replaces "+
			"what it did not write: nothing was downloaded and it was left as it is. Choose another path, or move it "+
			"away.%s To replace it with the clip, set overwrite = true on this resource (a symbolic link is replaced "+
			"itself; what it points at is never touched).", occ, p, adopt))
}

// addDriftWarning says that a file this resource wrote was changed by someone
// and is left as it is.
func addDriftWarning(diags *diag.Diagnostics, p, drift string) {
	diags.AddAttributeWarning(path.Root("path"), "Video File Changed Outside Terraform",
		fmt.Sprintf("The file at %s is no longer the clip this resource downloaded: it %s. It was edited or replaced "+
			"outside Terraform, and videogen_video_file never replaces what it did not write, so it is left as it is "+
			"and nothing is planned for it. To have the clip there again (downloaded from the same task, not "+
			"regenerated), move the file away or set overwrite = true on this resource; to stop managing the path, "+
			"terraform state rm this resource.", p, drift))
}

// addPermissionError explains a chmod that failed.
func addPermissionError(diags *diag.Diagnostics, t fileTarget, err error) {
	diags.AddAttributeError(path.Root("file_permission"), "Unable to Change Video File Permissions",
		fmt.Sprintf("The permissions of %s could not be set to %04o. Check that Terraform runs as the file's owner.\n\n"+
			"Original error: %s", t.path, t.fileMode, err))
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
	case errors.As(err, new(*storedCopyError)):
		diags.AddAttributeError(path.Root("task_id"), "Video Clip Lost",
			fmt.Sprintf("The service no longer gives the clip of task %s, and no stored copy of it could be read, so "+
				"nothing was written to %s. No new clip was generated or billed. If a copy of the clip is kept elsewhere, "+
				"declare it as a videogen_video_file with an object URL (path) that this resource references through "+
				"task_id, or import it; otherwise only a new clip, generated and billed again (terraform apply "+
				"-replace on its videogen_video), gives one.\n\nOriginal error: %s", taskID, clipstore.Redact(p), err))
	case errors.As(err, new(*clipstore.Error)):
		addObjectError(diags, "Unable to Write Video Object", p, "was not written (an interrupted upload leaves "+
			"nothing at the key)", err)
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		diags.AddError("Video File Download Interrupted",
			fmt.Sprintf("The download of task %s was interrupted, so nothing was written to %s. Apply again to "+
				"download it; the video is not regenerated.\n\nOriginal error: %s", taskID, p, err))
	default:
		advice := "The download failed. Apply again to retry it; the video is not regenerated."
		var dErr *client.DownloadError
		switch {
		case client.IsKeyRefused(err):
			advice = "The clip is on the service's own address (base_url's scheme, host and port), which refused the " +
				"API key for it (HTTP 401). Check api_key or VIDEOGEN_API_KEY; the video is not regenerated."
		case client.IsUnauthorized(err):
			advice = "The clip host asks for a key (HTTP 401). The provider sends the API key with a download only to " +
				"base_url's own scheme, host and port, and this clip URL is on another address. If the service serves " +
				"its clips behind the key at its own address (new-api does for its Sora and Veo channels), make the " +
				"address it builds clip URLs from the one in base_url (new-api: its Server Address setting), then " +
				"apply again; the video is not regenerated."
		case errors.As(err, &dErr):
			advice = fmt.Sprintf("The clip host answered HTTP %d after %d attempt(s). Errors 429 and 5xx are usually "+
				"transient: apply again to retry (the video is not regenerated), or raise the provider's max_retries.",
				dErr.StatusCode, dErr.Attempts)
		case client.IsTransient(err):
			advice = fmt.Sprintf("The clip host kept failing or could not be reached %s. Such errors are usually "+
				"transient: apply again to retry (the video is not regenerated), or raise the provider's max_retries "+
				"or request_timeout.", apidiag.AttemptsText(err))
		}
		diags.AddError(downloadSummary,
			fmt.Sprintf("The clip of task %s could not be downloaded to %s; no partial file was left behind. %s\n\n"+
				"Original error: %s", taskID, p, advice, err))
	}
}

// addObjectURLError explains a path that is a URL no store takes.
func addObjectURLError(diags *diag.Diagnostics, err error) {
	diags.AddAttributeError(path.Root("path"), "Invalid Video Object URL",
		fmt.Sprintf("path is a URL, so it names an object in a store, but not one the provider can write: %s. Use "+
			"s3://bucket/key (with region, endpoint or use_path_style for S3-compatible stores), gs://bucket/key, "+
			"azblob://container/key or file:///directory/key, or a local path. Credentials never go in the URL: "+
			"each store reads its own environment (AWS, Google and Azure credential chains).", err))
}

// addObjectError explains a store's failure at p, after what was done with
// the object (what).
func addObjectError(diags *diag.Diagnostics, summary, p, what string, err error) {
	advice := "Check the bucket's name and region (or endpoint), and that the store is reachable from here, then " +
		"apply again; the video is not regenerated."
	if errors.Is(err, clipstore.ErrPermission) {
		advice = "The store refused the credentials it found. They come from the store's own chain, never from " +
			"Terraform: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or a role for s3://; " +
			"GOOGLE_APPLICATION_CREDENTIALS or workload identity for gs://; AZURE_STORAGE_ACCOUNT with " +
			"AZURE_STORAGE_KEY or a managed identity for azblob://. Grant them read and write on the key."
	}
	diags.AddAttributeError(path.Root("path"), summary,
		fmt.Sprintf("The object at %s %s. %s\n\nOriginal error: %s", clipstore.Redact(p), what, advice, err))
}

// addObjectTakenError refuses to replace an object that is not this clip.
func addObjectTakenError(diags *diag.Diagnostics, p string, obj clipstore.Object, taskID types.String) {
	what := fmt.Sprintf("an object of %d bytes", obj.Size)
	switch {
	case obj.TaskID != "" && obj.SHA256 != "":
		what += fmt.Sprintf(" holding the clip of task %s (SHA-256 %s)", obj.TaskID, obj.SHA256)
	case obj.TaskID != "":
		what += fmt.Sprintf(" of task %s whose write did not finish", obj.TaskID)
	}
	diags.AddAttributeError(path.Root("path"), "Video Object Key Already Taken",
		fmt.Sprintf("There is already %s at %s, and videogen_video_file never replaces what it did not write for "+
			"%s: nothing was downloaded or uploaded, and the object was left as it is. Choose another key, or "+
			"set overwrite = true on this resource to replace it with the clip.", what, clipstore.Redact(p), objectTaskID(taskID)))
}
