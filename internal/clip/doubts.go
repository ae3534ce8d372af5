package clip

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// A submission that may have created a task although no task ID came back is an
// error that tells the user to look for the task before applying again. Users and
// CI jobs apply again anyway, so the journal remembers such a submission by the
// fingerprint of its request (from before it is sent, so that a kill while it is
// in flight is covered too). The next plan that creates the same request says so
// in billing and in a warning, and counts it against max_new_clips, so that a
// reviewer or a pipeline can stop before the second charge; its apply says it
// again, with how to keep the earlier task, before it sends the request (see
// CONTRIBUTING.md, "Billing and ambiguous submissions").
//
// It says so and goes on, rather than refusing: the error's own advice is to apply
// again when the console shows no task, and a refusal would leave no way forward
// but editing the journal.

// doubtTimes says when the doubtful submissions were made.
func doubtTimes(notes []journal.Unconfirmed) string {
	times := make([]string, len(notes))
	for i, n := range notes {
		times[i] = journalTime(n.SubmittedAt)
	}
	return "at " + strings.Join(times, " and at ")
}

// planDoubts reports whether the journal holds unconfirmed submissions of this
// very request for this state, and warns of them at plan.
func (l *Lifecycle) planDoubts(ctx context.Context, fingerprint string, notes *Notes) bool {
	doubts, err := l.journal.Doubts(ctx, fingerprint)
	if err != nil {
		l.problem(ctx, err, notes)
		return false
	}
	if len(doubts) == 0 {
		return false
	}
	when := doubtTimes(doubts)
	proven, err := l.journal.KnownToDeduplicate(ctx, l.service())
	if err != nil {
		// Said as not known: the safe side.
		l.problem(ctx, err, nil)
	}
	notes.Warn("Clip May Be Billed Twice",
		fmt.Sprintf("An earlier run sent the request of this clip %s and never learned whether the service created a "+
			"task: its answer was lost, or the run was killed while the request was on its way. Applying this plan "+
			"sends the request again, so it may bill a second clip; its billing says so, and max_new_clips counts it. "+
			"%s\n\n"+
			"Before applying, look in the service's console for a task created %s with this prompt. If there is one, "+
			"import it into this resource, at the address Terraform shows after \"with\" above (terraform import, or an "+
			"import block), instead of applying this plan; if there is none, apply: "+
			"nothing else was billed. The provider noted the earlier submission in its task journal (%s).",
			when, deduplication(l.api, proven), when, l.journal.Where()))
	return true
}

// deduplication says whether the service is known to deduplicate a request
// sent again under the Idempotency-Key of the earlier one: Google's APIs are
// known not to; another is known to when it echoed a submission's key in its
// answer within the journal's memory (proven, see journal.Server), and
// otherwise not known to: few video services deduplicate, and saying one
// does when it does not would cost a clip unsaid. The billing and
// max_new_clips count the clip either way: nothing is proven before the
// request is sent.
func deduplication(api client.API, proven time.Time) string {
	switch {
	case api == client.APIGemini, api == client.APIVertex:
		return "It goes with the Idempotency-Key of the earlier request, which Google's Veo APIs are known to " +
			"ignore: they do not deduplicate, so a task the earlier request created is billed besides this one."
	case !proven.IsZero():
		return "It goes with the Idempotency-Key of the earlier request, and this service is known to deduplicate " +
			"by it: it echoed a submission's Idempotency-Key in its answer (last at " + journalTime(proven) + "), so " +
			"it answers with the earlier task, if the earlier request created one, and applying bills nothing new. " +
			"Billing and max_new_clips still count the clip, as that is proven only once the service answers."
	}
	return "It goes with the Idempotency-Key of the earlier request: a server that deduplicates by it returns the " +
		"earlier task and bills nothing new, but this service is not known to deduplicate (it has not echoed a " +
		"submission's Idempotency-Key to this provider; few video services do, new-api does not), so count on a " +
		"second charge unless its documentation says it honours Idempotency-Key."
}

// service names the service for the journal's record of a server that
// deduplicates: its address and API.
func (l *Lifecycle) service() string { return l.client.BaseURL() + " api=" + string(l.api) }

// sayUnconfirmedSubmissions warns, before Acquire submits, about the
// unconfirmed submissions of this very request that earlier runs noted, once
// each per run. It reports false when a journal_url database could not be
// read: the doubt would go unsaid, so nothing may be submitted.
//
// It also returns the Idempotency-Key of the oldest doubtful submission it
// said ("" when none): the request sent again under that key costs nothing
// on a server that deduplicates.
func (l *Lifecycle) sayUnconfirmedSubmissions(ctx context.Context, fingerprint string, notes *Notes) (string, bool) {
	doubts, err := l.journal.TakeDoubts(ctx, fingerprint)
	if err != nil {
		return "", !l.problem(ctx, err, notes)
	}
	if len(doubts) == 0 {
		return "", true
	}
	when := doubtTimes(doubts)
	l.warn(ctx, "an earlier run submitted this request without learning whether a task was created",
		map[string]any{"submitted_at": when, "journal": l.journal.Where()})
	notes.Warn("Earlier Submission May Have Created This Clip",
		fmt.Sprintf("An earlier apply sent this same request %s, and never learned whether the service "+
			"created a task: the request may have reached it, but no task ID came back. That task, if it exists, is billed "+
			"like any other. This apply sends the request again.\n\n"+
			"Look in the service's console for a task created %s with this prompt. If there is one and you want to keep it "+
			"instead of this apply's clip, remove this resource (its address is shown after \"with\" above) from state "+
			"(terraform state rm) and import that task at the same address (terraform import, or an import block); its clip is then adopted without another submission. "+
			"If there is none, nothing else was billed.\n\n"+
			"The provider noted the earlier submission in its task journal (%s); this warning is shown once.",
			when, when, l.journal.Where()))
	return doubts[0].IdempotencyKey(), true
}
