package provider

import (
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// plannedPaths remembers, for one plan (Terraform starts a provider process for
// each), the file every videogen_video_file plans to hold, so that two resources
// given one file, in any spelling, fail the plan instead of the apply, where the
// second would find the first one's download in its way.
type plannedPaths struct {
	byPath sync.Map // canonical path -> plannedFile
}

type plannedFile struct {
	written string // path as the configuration writes it
	taskID  types.String
}

// claimPath records that a resource plans the file at p for task, and fails the
// plan when another resource planned the same file; before the provider is
// configured, it checks nothing. Terraform plans a replacement
// twice (with and without its prior state), so a second claim of one file for
// one known task is taken for the same resource: two resources that download one
// clip to one file are not told apart.
func (d *providerData) claimPath(p string, task types.String, diags *diag.Diagnostics) {
	abs, err := localfile.Canonical(p)
	if d == nil || err != nil {
		return
	}
	v, taken := d.planned.byPath.LoadOrStore(abs, plannedFile{written: p, taskID: task})
	other, _ := v.(plannedFile)
	if !taken || !task.IsUnknown() && !other.taskID.IsUnknown() && task.Equal(other.taskID) {
		return
	}
	otherTask := "not known until apply"
	if !other.taskID.IsUnknown() {
		otherTask = other.taskID.ValueString()
	}
	diags.AddAttributeError(path.Root("path"), "Video File Path Used Twice",
		fmt.Sprintf("Another videogen_video_file in this configuration writes the same file, %s: it gives path %q (task %s), "+
			"this one %q. Two resources cannot share a file, since each would replace or delete the other's clip. Give "+
			"each resource its own path.", abs, other.written, otherTask, p))
}
