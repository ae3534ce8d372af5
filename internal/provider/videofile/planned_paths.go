package videofile

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// claimPath records, for one plan (Terraform starts a provider process for
// each), that a videogen_video_file plans the file at p for task, and fails the
// plan when another resource planned the same file, in any spelling, so that
// two resources given one file fail the plan instead of the apply, where the
// second would find the first one's download in its way. Before the provider
// is configured, it checks nothing. Terraform plans a replacement twice (with
// and without its prior state), so a second claim of one file for one known
// task is taken for the same resource: two resources that download one clip to
// one file are not told apart.
func (r *videoFileResource) claimPath(p string, task types.String, diags *diag.Diagnostics) {
	if r.data == nil {
		return
	}
	file, other, clash := r.data.PlannedPaths().Claim(localfile.Claim{Path: p, Owner: task.ValueString()})
	if !clash {
		return
	}
	otherTask := other.Owner
	if otherTask == "" {
		otherTask = "not known until apply"
	}
	diags.AddAttributeError(path.Root("path"), "Video File Path Used Twice",
		fmt.Sprintf("Another videogen_video_file in this configuration writes the same file, %s: it gives path %q (task %s), "+
			"this one %q. Two resources cannot share a file, since each would replace or delete the other's clip. Give "+
			"each resource its own path.", file, other.Path, otherTask, p))
}
