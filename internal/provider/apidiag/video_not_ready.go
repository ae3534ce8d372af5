package apidiag

import (
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// AddVideoNotReady explains a wait that stopped before its task finished (its
// timeout ran out, or the run was interrupted): the task, the status the wait last
// saw (seen, when the error does not say), how long it waited under which setting,
// then next: what the apply did and how to go on without paying twice. It reports
// false, and adds nothing, for any other error. An empty path attaches the error to
// the resource.
func AddVideoNotReady(diags *diag.Diagnostics, at path.Path, taskID string, err error, seen client.Status, setting string,
	timeout time.Duration, next string,
) bool {
	var waitErr *client.WaitError
	if !errors.As(err, &waitErr) || !waitErr.Interrupted() {
		return false
	}
	last := waitErr.LastStatus
	if last == "" {
		last = seen
	}
	detail := fmt.Sprintf("Task %s was still %q when the wait for it stopped after %s (%s is %s, or the run was "+
		"interrupted). %s\n\nOriginal error: %s", taskID, last, waitErr.Elapsed.Round(time.Second), setting, timeout, next, err)
	if len(at.Steps()) == 0 {
		diags.AddError("Video Not Ready", detail)
	} else {
		diags.AddAttributeError(at, "Video Not Ready", detail)
	}
	return true
}
