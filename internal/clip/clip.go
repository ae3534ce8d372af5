// Package clip is a videogen_video clip's billing lifecycle, without
// Terraform: what a planned clip costs, which task a Create goes on with (one
// handed over by the Delete of a tainted clip, one a killed run left in the
// task journal, or a new submission noted before it is sent), what Delete does
// with the task it lets go of, and the doubts said before a second charge.
//
// The provider builds one Clip per plan or apply of a resource from its table
// of clip arguments and hands it to a Lifecycle, which exists once per provider
// process (Terraform starts one for each plan and each apply). What the
// lifecycle has to say comes back as Notes, which the provider turns into
// diagnostics: this package imports no Terraform package.
package clip

import "github.com/videogen/terraform-provider-videogen/internal/client"

// Clip is one clip as a plan or a state describes it, built once per plan or
// apply of a resource.
type Clip struct {
	// TaskID is the task a state holds; empty for a clip not created yet.
	TaskID string
	// Status is the task's status as state last recorded it.
	Status client.Status
	// MadeThrough is the API the clip was made or imported through, as its
	// private state records it; empty when the state Terraform hands over
	// records none.
	MadeThrough client.API
	// RemovalSaid: the plan that destroys or replaces the clip said what that
	// does to its task (Removal), so the apply does not say it again. A plan
	// says it for a clip it destroys from Terraform 1.3 on, which plans destroys
	// through the provider, and for one a changed argument replaces.
	RemovalSaid bool
	// Prompt names the clip in messages, since Terraform shows no address for
	// what a Delete says.
	Prompt string
	// Args are the clip's arguments in the order of the provider's table.
	Args []Arg
	// Request is the submission through the provider's API, and Fingerprint the
	// task journal's name for it; Fingerprint is empty when the request could not
	// be built (an argument known only at apply, or one the API cannot carry).
	Request     client.VideoRequest
	Fingerprint string
	// Unsendable says why there is no fingerprint.
	Unsendable error
	// Elsewhere holds the fingerprints of the same clip through the other APIs
	// that can carry it: a task a killed run submitted through one of them
	// cannot be taken over through the provider's.
	Elsewhere map[client.API]string
}

// Same reports whether a plan asks for the clip that an existing task's state
// describes, by the rules the plan itself follows: every argument must mean what
// the task's means, except that an echoed argument which the configuration leaves
// unset (unknown in the plan) accepts whatever the task has. An empty list or map
// says nothing, as null does.
func Same(plan, clip Clip) bool {
	if len(plan.Args) != len(clip.Args) {
		return false
	}
	for i, p := range plan.Args {
		c := clip.Args[i]
		switch {
		case p.Name != c.Name:
			return false
		case p.Echoed && p.Unknown:
		case p.Nothing || c.Nothing:
			if !p.Nothing || !c.Nothing {
				return false
			}
		case !p.Same(p.Value, c.Value):
			return false
		}
	}
	return true
}
