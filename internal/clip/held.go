package clip

import (
	"fmt"
	"sync"
)

// heldTasks remembers the tasks the videogen_video resources of one state hold,
// as a refresh reads them (Terraform starts a provider process for each plan,
// and reads each resource once in it), so that one task held at two addresses,
// as an import into a second address leaves it, is said.
type heldTasks struct {
	seen sync.Map // task ID -> true
}

// Hold records that a resource read in this run holds taskID, and warns when
// another resource read in this run holds it too.
func (l *Lifecycle) Hold(taskID string) Notes {
	if taskID == "" {
		return nil
	}
	if _, twice := l.held.seen.LoadOrStore(taskID, true); !twice {
		return nil
	}
	var notes Notes
	notes.Warn("Task Held by Two Resources",
		fmt.Sprintf("Task %s is held by this videogen_video and by another one in the same state (an import into a "+
			"second address does that). Both now claim one clip: a change to either one's arguments replaces the clip "+
			"for both, and each destroy says the clip stays billed. Keep one: remove the other from state with "+
			"terraform state rm (or its removed block), which leaves the clip on the service.", taskID))
	return notes
}
