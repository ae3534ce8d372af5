package clip

import (
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

func TestBillingOf(t *testing.T) {
	t.Parallel()
	for status, want := range map[client.Status]string{
		client.StatusSucceeded: BillingBilled, client.StatusFailed: BillingNotBilled,
		client.StatusExpired: BillingMayHaveBeenPaid, client.StatusCancelled: BillingMayHaveBeenPaid,
		client.StatusRunning: BillingIfSucceeds, client.StatusSubmitted: BillingIfSucceeds, client.StatusUnknown: BillingIfSucceeds,
	} {
		if got := BillingOf(status); got != want {
			t.Errorf("BillingOf(%s) = %q, want %q", status, got, want)
		}
	}
}
