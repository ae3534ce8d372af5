package clip

import (
	"context"
	"fmt"
	"strings"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// Planned is what a plan says a clip it creates costs.
type Planned struct {
	// Billing is what the billing attribute says; empty when it is known only
	// after apply.
	Billing string
	// Resumes: the creation resumes the task of the tainted clip it replaces.
	Resumes bool
	// New: the plan knew of every task this clip could take over and calls it
	// new (the journal may still hold one that a killed run left for it).
	New bool
}

// Plan says what a clip a plan creates costs, and counts it against
// max_new_clips unless it resumes a task. known says whether every value of
// the configuration is known: which task the apply takes over may depend on
// values known only then, so the clip is counted as new, the most it can cost.
func (l *Lifecycle) Plan(ctx context.Context, c Clip, known bool) (Planned, Notes) {
	var notes Notes
	if !known {
		l.countNew(ctx, c, &notes)
		return Planned{}, notes
	}
	switch l.budget.plan(c) {
	case PlannedResume:
		return Planned{Billing: BillingResumes, Resumes: true}, notes
	case PlannedEither:
		l.countNew(ctx, c, &notes)
		return Planned{}, notes
	}
	p := Planned{New: true, Billing: l.planFromJournal(ctx, c, &notes)}
	cost := l.countNew(ctx, c, &notes)
	if cost.amount != nil && (p.Billing == BillingNewClip || p.Billing == BillingMayBillTwice) {
		// What a new clip costs, where the model list prices it.
		p.Billing += " (" + cost.String() + ")"
	}
	return p, notes
}

// countNew counts clip c, which the apply may submit as new, against
// max_new_clips and max_cost, and returns its price.
func (l *Lifecycle) countNew(ctx context.Context, c Clip, notes *Notes) price {
	l.budget.count(notes)
	cost := l.priceOf(ctx, c)
	l.spending.spend(cost, notes)
	return cost
}

// planFromJournal says, for a clip planned as new, what the journal knows of
// its request in this state: a task a dead run left behind, which the apply
// adopts (billing unknown: it may have failed by then); a task of a run that
// still runs, which is left to it; or a submission whose outcome is unknown,
// which may bill a second clip.
func (l *Lifecycle) planFromJournal(ctx context.Context, c Clip, notes *Notes) string {
	if c.Fingerprint == "" {
		return BillingNewClip
	}
	l.sayOtherAPITasks(ctx, c, notes)
	matches, err := l.journal.Matching(ctx, c.Fingerprint)
	if l.problem(ctx, err, notes) {
		return ""
	}
	var adopt, alive []journal.Match
	for _, m := range matches {
		if m.Standing == journal.RunAlive {
			alive = append(alive, m)
		} else {
			adopt = append(adopt, m)
		}
	}
	if len(adopt) > 0 {
		// Whether a resource this plan does not read may hold the task: only
		// in a plan that leaves resources out, unless the saved state says.
		flag, known := journal.PartialPlanFlag()
		unread := (flag != "" || !known) && !l.journal.ReadsSavedState(ctx)
		if unread && flag != "" {
			failPartialPlanAdoption(notes, adopt, l.journal.Where(), flag)
			return ""
		}
		addJournaledTaskWarning(notes, adopt, l.journal.Where(), unread)
		return ""
	}
	if len(alive) > 0 {
		addRunningTaskWarning(notes, alive, l.journal.Where())
	}
	if l.planDoubts(ctx, c.Fingerprint, notes) {
		return BillingMayBillTwice
	}
	return BillingNewClip
}

// backendsRead says, in a plan's words, whose saved states the journal reads
// (savedState in internal/journal).
const backendsRead = "(it reads the local, pg, s3, gcs and http backends' states, unless a setting of the " +
	"backend asks what it does not follow or the read fails)"

// addJournaledTaskWarning names the tasks that a run which died submitted for
// exactly the clip a plan creates, and why they are taken for a dead run's: the
// apply adopts one of them instead of submitting. unread says that a resource
// the plan does not read may hold them: the provider cannot tell whether the
// plan leaves resources out (-target), nor read the state its backend saved.
func addJournaledTaskWarning(notes *Notes, matches []journal.Match, where string, unread bool) {
	var tasks []string
	for _, m := range matches {
		at := journalTime(m.SubmittedAt)
		why := fmt.Sprintf("submitted at %s by a run (%s) that died before any state was seen holding it: the "+
			"process was killed (or ran out of memory) and its lock was released", at, m.Process)
		switch m.Standing {
		case journal.AdoptableOlder:
			why = "noted at " + at + " by an earlier version of the provider, which did not record its run"
		case journal.AdoptableEnded:
			why = fmt.Sprintf("submitted at %s by a run (%s) whose provider answered it to Terraform, but no state "+
				"was seen holding it since: Terraform stops a provider once its last clip is done, and was probably "+
				"killed before it saved the state (a remote backend receives it only at the end of an apply)", at, m.Process)
			if unread {
				why += "; or a resource this plan does not read holds it: a plan with -target reads only the " +
					"resources it targets, and the provider cannot read this backend's state " + backendsRead +
					". If another resource of this configuration is an identical clip, apply without -target instead: that plan reads " +
					"every resource, finds the task held, and this clip is submitted as new"
			}
		}
		tasks = append(tasks, fmt.Sprintf("task %s, %s", m.TaskID, why))
	}
	notes.Warn("Clip May Adopt a Task of a Killed Run",
		fmt.Sprintf("The task journal (%s) holds, for exactly this clip and this state, %s. Applying this plan adopts "+
			"it instead of submitting a new task, with no new charge, unless it has failed or is gone, or a resource "+
			"of this state turns out to hold it (then this clip is submitted as new); so billing is known only after "+
			"apply, and max_new_clips counts the clip as new.", where, strings.Join(tasks, "; and ")))
}

// failPartialPlanAdoption fails the plan of a clip that would adopt a task
// the journal holds when the plan leaves resources out (flag: -target,
// -exclude) and the provider cannot read the state its backend saved: a
// resource the plan does not read may hold the task (adopting it gives two
// resources one clip), or a killed run may have left it (submitting bills a
// second clip). Only a plan of every resource tells the two apart, so nothing
// is planned here, and the user is told to make one.
func failPartialPlanAdoption(notes *Notes, matches []journal.Match, where, flag string) {
	var tasks []string
	for _, m := range matches {
		tasks = append(tasks, fmt.Sprintf("task %s (submitted at %s by %s)", m.TaskID, journalTime(m.SubmittedAt), m.Process))
	}
	notes.Fail("", "Targeted Plan Cannot Tell Whose Task This Is",
		fmt.Sprintf("The task journal (%s) holds %s for exactly this clip and this state, and no state was seen "+
			"holding it. This plan was run with %s, so it does not read the resources it leaves out: one of them "+
			"(an identical clip) may hold the task, and the provider cannot read this backend's saved state to "+
			"tell "+backendsRead+". Adopting the task could give two resources one clip; "+
			"submitting could bill a second clip for a task a killed run left. Nothing was submitted. Plan and "+
			"apply without %s: that plan reads every resource, a resource holding the task keeps it and this clip "+
			"gets its own, and otherwise this clip adopts it with no new charge.",
			where, strings.Join(tasks, " and "), flag, flag))
}

// addRunningTaskWarning names the tasks that a run which still runs submitted
// for exactly this clip and state: they are its own, and the plan does not take them.
func addRunningTaskWarning(notes *Notes, matches []journal.Match, where string) {
	var tasks []string
	for _, m := range matches {
		tasks = append(tasks, fmt.Sprintf("task %s (submitted at %s by %s)", m.TaskID,
			journalTime(m.SubmittedAt), m.Process))
	}
	notes.Warn("Clip Matches a Task of a Running Provider",
		fmt.Sprintf("The task journal (%s) holds %s for exactly this clip and this state, and the provider process "+
			"that submitted it still runs: another provider block (alias) of this apply on the same service, whose "+
			"identical clip it is; another apply of this state (with -lock=false); or a provider left behind by a "+
			"Terraform that was killed. This plan does not take that task: applying it submits a new clip, which is "+
			"billed. If that process is a leftover of a killed run, end it and plan again: the task is then adopted.",
			where, strings.Join(tasks, " and ")))
}

// sayOtherAPITasks warns of the tasks that a run which died submitted for
// exactly this clip and state through another API than the provider's: they
// cannot be taken over through this one, so the apply submits a new clip,
// billed, while they stay in the journal for the API that made them.
func (l *Lifecycle) sayOtherAPITasks(ctx context.Context, c Clip, notes *Notes) {
	for _, name := range client.APIs {
		fingerprint, ok := c.Elsewhere[name]
		if !ok || name == l.api {
			continue
		}
		matches, err := l.journal.Matching(ctx, fingerprint)
		if err != nil {
			// Said by the look-up of this API's tasks, which reads the same journal.
			continue
		}
		for _, m := range matches {
			notes.Warn("Clip Has a Task of Another API",
				fmt.Sprintf("The task journal (%s) holds, for exactly this clip and this state, task %s, submitted at %s "+
					"through the %q API (by %s), which no state was seen holding. The provider's api is now %q, which "+
					"cannot take that task over: applying this plan submits a new clip, which is billed, and task %s stays "+
					"in the journal. To take it over instead, with no new charge, set api back to %q and apply.",
					l.journal.Where(), m.TaskID, journalTime(m.SubmittedAt), name, m.Process, l.api, m.TaskID, name))
		}
	}
}
