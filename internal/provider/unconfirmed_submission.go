package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// A submission that may have created a task although no task ID came back is an
// error that tells the user to look for the task before applying again. Users and
// CI jobs apply again anyway, so the journal remembers such a submission by the
// fingerprint of its request (from before it is sent, so that a kill while it is
// in flight is covered too), and the next apply that sends the same request says,
// before it sends it, when the doubtful one was made and how to keep its task
// instead (see CONTRIBUTING.md, "Billing and ambiguous submissions").
//
// It says so and goes on, rather than refusing: the error's own advice is to apply
// again when the console shows no task, and a refusal would leave no way forward
// but editing the journal.

// journalSending notes a submission about to be sent (see journal.Sending). A
// journal that cannot be written does not stop the apply: it only protects against
// an outright kill and against a second submission after a doubtful one, and the
// user is told once.
func (d *providerData) journalSending(ctx context.Context, fingerprint string, diags *diag.Diagnostics) journal.Ticket {
	t, err := d.journal.Sending(fingerprint, time.Now())
	if err != nil {
		d.journalProblem(ctx, err, diags)
	}
	return t
}

// journalSent replaces the note of an answered submission with its task, which
// the journal keeps until its clip is recorded in state.
func (d *providerData) journalSent(ctx context.Context, t journal.Ticket, e journal.Entry, diags *diag.Diagnostics) {
	if err := d.journal.Sent(t, e); err != nil {
		d.journalProblem(ctx, err, diags)
	}
}

// journalNotSent drops the note of a submission that provably created nothing.
func (d *providerData) journalNotSent(ctx context.Context, t journal.Ticket) {
	if err := d.journal.NotSent(t); err != nil {
		d.journalProblem(ctx, err, nil)
	}
}

// sayUnconfirmedSubmissions warns about the unconfirmed submissions of this very
// request that earlier runs noted, once each.
func (d *providerData) sayUnconfirmedSubmissions(ctx context.Context, fingerprint string, diags *diag.Diagnostics) {
	notes, err := d.journal.TakeUnconfirmed(fingerprint)
	if err != nil {
		d.journalProblem(ctx, err, nil)
	}
	if len(notes) == 0 {
		return
	}
	times := make([]string, len(notes))
	for i, n := range notes {
		times[i] = n.SubmittedAt.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	tflog.Warn(ctx, "an earlier run submitted this request without learning whether a task was created",
		map[string]any{"submitted_at": times, "journal": d.journal.Path()})
	when := "at " + strings.Join(times, " and at ")
	diags.AddWarning("Earlier Submission May Have Created This Clip",
		fmt.Sprintf("An earlier apply on this machine sent this same request %s, and never learned whether the service "+
			"created a task: the request may have reached it, but no task ID came back. That task, if it exists, is billed "+
			"like any other. This apply sends the request again.\n\n"+
			"Look in the service's console for a task created %s with this prompt. If there is one and you want to keep it "+
			"instead of this apply's clip, remove this resource from state (terraform state rm) and import that task "+
			"(terraform import, or an import block); its clip is then adopted without another submission. "+
			"If there is none, nothing else was billed.\n\n"+
			"The provider noted the earlier submission in its task journal (%s); this warning is shown once.",
			when, when, d.journal.Path()))
}
