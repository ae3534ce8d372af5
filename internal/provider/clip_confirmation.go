package provider

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/tally"
)

// A clip is generated from what the service receives, which is not always what
// the configuration asked for: a gateway in front of the service may drop
// parameters (new-api v0.10.0 passes only the model and the prompt upstream), and
// then the clip is made, and billed, at the model's defaults. The service's answer
// says what it can: the canonical echo in metadata, and a gateway's raw upstream
// record (client.Video.Made) of what was really made. Whatever a finished clip's
// answer leaves unconfirmed or contradicts is said in a warning.
//
// State keeps the configured value of a parameter that only the upstream record
// contradicts, as HashiCorp's providers keep an argument the API does not reflect
// back: recording the record's value would plan a new clip on every apply, each
// made at the same defaults and billed again. A contradicting canonical echo is
// recorded as before (CONTRIBUTING.md, "Task object and echoes"), so the plan
// shows it.

// unconfirmedParams lists what a succeeded task's answer leaves unconfirmed of
// the request it was made from, one line per argument ("resolution: asked 720p,
// the service reports 1080p", "ratio: not confirmed"), by each argument's rule of
// sameness. What a gateway's upstream record says was made wins over the echo,
// which describes the request. An argument the service never echoes (seconds) is
// confirmed only by such a record: without one it is not mentioned.
func unconfirmedParams(req client.VideoRequest, v *client.Video) []string {
	asked, echo := canonical(req), echoOf(v)
	var out []string
	for _, a := range clipArguments {
		want, got := a.value(asked), attr.Value(nil)
		if a.made != nil && v.Made != nil {
			got = a.made(v.Made)
		}
		if (got == nil || got.IsNull()) && a.echoed {
			got = a.value(echo)
		}
		switch {
		case want == nil || got == nil || want.IsNull():
		case got.IsNull():
			out = append(out, a.name+": not confirmed")
		case !a.same(want, got):
			out = append(out, a.name+": "+mismatch(want, got))
		}
	}
	return out
}

// mismatch says how the service's value differs; reference lists by their
// length, since their URLs may be signed.
func mismatch(want, got attr.Value) string {
	if w, ok := want.(types.List); ok {
		return fmt.Sprintf("asked %d URL(s), the service reports %d other(s)", len(w.Elements()), len(listOf(got).Elements()))
	}
	return fmt.Sprintf("asked %s, the service reports %s", shown(want), shown(got))
}

func shown(v attr.Value) string {
	if b, ok := v.(types.Bool); ok {
		return strconv.FormatBool(b.ValueBool())
	}
	return stringOf(v).ValueString()
}

// confirmationReport gathers the unconfirmed parameters of the clips first seen
// finished in one run (by the wait of a create or an update, or by a refresh of a
// clip created without waiting), so that a batch of clips gets one warning that
// counts them instead of one warning per clip: Terraform shows every diagnostic of
// every resource. The calls that run together are counted in and out, and the
// last one out says what all of them found. Its zero value is ready to use.
type confirmationReport struct{ tally tally.Tally }

// begin counts a call in; every begin is followed by one end.
func (c *confirmationReport) begin() { c.tally.Begin() }

// end counts a call out with what its clip's answer left unconfirmed (nothing for
// a call that saw no finished clip), and adds the warning for every clip gathered
// so far when no other call is in flight.
func (c *confirmationReport) end(taskID string, lines []string, diags *diag.Diagnostics) {
	if found, ok := c.tally.End(taskID, lines); ok {
		addUnconfirmedParamsWarning(diags, found)
	}
}

// maxNamedTasks bounds the task IDs a warning lists; a batch of hundreds would
// bury the advice.
const maxNamedTasks = 10

func addUnconfirmedParamsWarning(diags *diag.Diagnostics, found tally.Found) {
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
	diags.AddWarning("Clip Parameters Not Confirmed",
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
