package provider

import (
	"fmt"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// newClipBudget counts the new clips one plan would generate, against the
// provider's max_new_clips. Terraform starts a provider process for each plan and
// plans again when it applies, so a count per process is a count per plan.
type newClipBudget struct {
	max     int64 // negative: no limit
	planned atomic.Int64
}

func newNewClipBudget(maxNewClips int64) *newClipBudget { return &newClipBudget{max: maxNewClips} }

// count adds one new clip and fails the plan once the limit is passed. Every clip
// past it reports its number, so the last error says how many the plan holds.
func (b *newClipBudget) count(diags *diag.Diagnostics) {
	n := b.planned.Add(1)
	if b.max < 0 || n <= b.max {
		return
	}
	diags.AddError("Too Many New Clips",
		fmt.Sprintf("This plan would generate at least %d new clips, and the provider's max_new_clips allows %d. Each new "+
			"clip is submitted and billed. Nothing has been submitted. If the plan is what you meant, raise max_new_clips "+
			"in the provider block (or remove it for no limit) and plan again; if not, check for_each and count, and "+
			"resources that were renamed (use a moved block) or whose arguments changed.", n, b.max))
}
