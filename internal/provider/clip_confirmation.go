package provider

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
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
// which describes the request. An argument the service never echoes (seconds,
// and every argument on Veo, whose operations echo none) is confirmed only by
// such a record: without one it is not mentioned.
func unconfirmedParams(req client.VideoRequest, v *client.Video) []string {
	asked, echo := canonical(req), echoOf(v)
	var out []string
	for _, a := range clipArguments {
		want, got := a.value(asked), attr.Value(nil)
		if a.made != nil && v.Made != nil {
			got = a.made(v.Made)
		}
		if (got == nil || got.IsNull()) && a.echoed && !v.NoEcho {
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
