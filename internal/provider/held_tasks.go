package provider

import (
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// heldTasks remembers the tasks the videogen_video resources of one state hold, as
// a refresh reads them (Terraform starts a provider process for each plan, and
// reads each resource once in it), so that one task held at two addresses, as an
// import into a second address leaves it, is said.
type heldTasks struct {
	seen sync.Map // task ID -> true
}

// hold records that a resource holds taskID, and warns when another resource read
// in this run holds it too.
func (h *heldTasks) hold(taskID string, diags *diag.Diagnostics) {
	if taskID == "" {
		return
	}
	if _, twice := h.seen.LoadOrStore(taskID, true); twice {
		diags.AddWarning("Task Held by Two Resources",
			fmt.Sprintf("Task %s is held by this videogen_video and by another one in the same state (an import into a "+
				"second address does that). Both now claim one clip: a change to either one's arguments replaces the clip "+
				"for both, and each destroy says the clip stays billed. Keep one: remove the other from state with "+
				"terraform state rm (or its removed block), which leaves the clip on the service.", taskID))
	}
}
