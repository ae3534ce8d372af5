package clip

import (
	"strings"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// A finished clip the service no longer holds stays in state, said in billing;
// a task gone before it finished leaves state; a held task says nothing here.
func TestAfterRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prior       client.Status
		held        Held
		wantBilling string
		wantKeep    bool
	}{
		{client.StatusSucceeded, HeldByService, "", true},
		{client.StatusRunning, HeldByService, "", true},
		{client.StatusRunning, UnknownHere, "", true},
		{client.StatusSucceeded, TaskGone, BillingGone, true},
		{client.StatusSucceeded, ClipGone, BillingGone, true},
		{client.StatusSubmitted, TaskGone, "", false},
		{client.StatusRunning, TaskGone, "", false},
		{client.StatusUnknown, TaskGone, "", false},
		{client.StatusFailed, TaskGone, "", false},
		{client.StatusExpired, TaskGone, "", false},
		{client.StatusCancelled, TaskGone, "", false},
		{"", TaskGone, "", false},
	} {
		billing, keep := AfterRead(tc.prior, tc.held)
		if billing != tc.wantBilling || keep != tc.wantKeep {
			t.Errorf("AfterRead(%q, %d) = %q, %v; want %q, %v", tc.prior, tc.held, billing, keep, tc.wantBilling, tc.wantKeep)
		}
	}
}

// The warning names the task, says nothing is submitted, where copies are
// (or how to keep one), and that -replace bills a new clip.
func TestSayGone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		held   Held
		copies []string
		want   []string
	}{
		{"task gone, no copy", TaskGone, nil, []string{"no longer has task t1", "Stored Copy of a Clip the Service No Longer Holds", "s3://bucket/key", "-replace"}},
		{"clip gone, copies", ClipGone, []string{"s3://clips/a.mp4"}, []string{"still answers for task t1", "no longer serves its clip",
			"Stored copies of this clip: s3://clips/a.mp4.", "-replace"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var notes Notes
			SayGone(&notes, "t1", tc.held, tc.copies, nil)
			if len(notes) != 1 || notes[0].Error || notes[0].Summary != "Clip No Longer Held by the Service" {
				t.Fatalf("notes = %+v", notes)
			}
			for _, w := range append(tc.want, "nothing is submitted", BillingGone) {
				if !strings.Contains(notes[0].Detail, w) {
					t.Errorf("the warning lacks %q:\n%s", w, notes[0].Detail)
				}
			}
		})
	}
}
