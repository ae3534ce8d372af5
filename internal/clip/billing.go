package clip

import "github.com/videogen/terraform-provider-videogen/internal/client"

// What the billing attribute says. A clip planned for creation says one of the
// first three, or is unknown when the plan cannot tell; Read then records what
// the task's status means for the bill. CI scripts compare these strings, so
// they are part of the interface (the ci-pipelines guide lists them).
const (
	BillingNewClip = "new clip"
	BillingResumes = "resumes an earlier task, no new charge"
	// BillingMayBillTwice plans a new clip whose request an earlier run sent
	// without learning whether it created a task.
	BillingMayBillTwice = "may bill a second clip: an earlier submission got no answer"

	BillingBilled          = "billed"
	BillingIfSucceeds      = "billed if it succeeds"
	BillingNotBilled       = "not billed"
	BillingMayHaveBeenPaid = "may have been billed"
	// BillingCutShort marks, in state, the task of a clip whose create wait was
	// cut short: Delete hands it to the replacement whatever its status.
	BillingCutShort = "wait cut short"
	// BillingGone marks, in state, a finished clip that the service no longer
	// holds (its task forgotten, or its clip's storage expired): it stays in
	// state, billed once, and only an explicit replace generates a new one.
	BillingGone = "vendor no longer holds this clip"
)

// BillingOf says what a task in status s costs: a failed generation is not
// billed, a clip that succeeded is, and one that expired or was cancelled may
// have been.
func BillingOf(s client.Status) string {
	switch {
	case s == client.StatusSucceeded:
		return BillingBilled
	case s == client.StatusFailed:
		return BillingNotBilled
	case s.Gone():
		return BillingMayHaveBeenPaid
	}
	return BillingIfSucceeds
}
