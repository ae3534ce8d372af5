package clip

import (
	"fmt"
	"strings"

	"github.com/videogen/terraform-provider-videogen/internal/tally"
)

// confirmations gathers the unconfirmed parameters of the clips first seen
// finished in one run (by the wait of a create or an update, or by a refresh of a
// clip created without waiting), so that a batch of clips gets one warning that
// counts them instead of one warning per clip: Terraform shows every diagnostic of
// every resource. The calls that run together are counted in and out, and the
// last one out says what all of them found. Its zero value is ready to use.
type confirmations struct{ tally tally.Tally }

// BeginConfirming counts a call that may see a clip finished in; every
// BeginConfirming is followed by one EndConfirming.
func (l *Lifecycle) BeginConfirming() { l.confirmations.tally.Begin() }

// EndConfirming counts a call out with what its clip's answer left
// unconfirmed (nothing for a call that saw no finished clip), and says the
// warning for every clip gathered so far when no other call is in flight.
func (l *Lifecycle) EndConfirming(taskID string, lines []string) Notes {
	var notes Notes
	if found, ok := l.confirmations.tally.End(taskID, lines); ok {
		addUnconfirmedParamsWarning(&notes, found)
	}
	return notes
}

// maxNamedTasks bounds the task IDs a warning lists; a batch of hundreds would
// bury the advice.
const maxNamedTasks = 10

func addUnconfirmedParamsWarning(notes *Notes, found tally.Found) {
	clips, taskIDs := found.Sources, found.IDs
	var b strings.Builder
	for _, l := range found.Order {
		b.WriteString("  - " + l)
		if clips > 1 {
			fmt.Fprintf(&b, " (%s)", plural(found.Count[l], "clip"))
		}
		b.WriteString("\n")
	}
	tasks := strings.Join(taskIDs[:min(len(taskIDs), maxNamedTasks)], ", ")
	if len(taskIDs) > maxNamedTasks {
		tasks += fmt.Sprintf(" and %d more", len(taskIDs)-maxNamedTasks)
	}
	notes.Warn("Clip Parameters Not Confirmed",
		fmt.Sprintf("The service's answers for %s first seen finished in this run do not confirm every parameter asked for:\n\n%s\n"+
			"Each clip is what the service made, and it is billed as made. A gateway in front of the service may drop "+
			"parameters it does not pass on to the model, which then makes the clip at its defaults.\n\n"+
			"State keeps the configured values where the service says nothing or only its upstream record differs, so "+
			"plans stay empty and the clips are not generated again: a new clip would be made the same way. A different "+
			"value echoed in the task's metadata is recorded and shows in the next plan. To get the parameters asked "+
			"for, point base_url at a service that passes them through, then replace the clips (terraform apply "+
			"-replace=ADDRESS).\n\nTasks: %s.",
			plural(clips, "clip"), b.String(), tasks))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
