package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// argumentOf is the argument of videogen_video that a member of a request,
// named as client.Inexpressible names it, comes from: the row that sends it
// there through the video-generations API, else extra_metadata for a vendor
// parameter of metadata; a member no row sends is named as itself.
func argumentOf(param string) string {
	if member, ok := client.APIVideoGenerations.Member(param); ok {
		for _, a := range clipArguments {
			if a.request[apiVideoGenerations].member == member {
				return a.name
			}
		}
	}
	if strings.HasPrefix(param, "metadata.") {
		return "extra_metadata"
	}
	return param
}

// veoRefusals says, at plan, what Veo refuses of a request whose arguments the
// table says it carries: a fourth reference image, a gs:// image on the Gemini
// API, a vendor parameter that one of the provider's arguments sets. What the
// table already refuses (an argument without an entry for shape) is not said
// twice.
func veoRefusals(shape apiShape, req client.VideoRequest, diags *diag.Diagnostics) {
	if !client.API(shape).Google() {
		return
	}
	for _, e := range client.API(shape).Inexpressible(req) {
		name := argumentOf(e.Param)
		carried := false
		for _, a := range clipArguments {
			if _, ok := a.request[shape]; ok && a.name == name {
				carried = true
			}
		}
		if carried {
			diags.AddAttributeError(path.Root(name), "Argument Not Supported by the API",
				fmt.Sprintf("%s cannot be sent to the %q API as it is: %s: %s. Nothing was submitted.", name, shape, e.Param, e.Reason))
		}
	}
}

// apiTable is videogen_video's table of what each API carries, from the
// clip-argument table: each argument some API sends, and the member of each
// API's request it becomes; "—" where the API cannot carry it, which fails
// the plan. The page cannot say otherwise than the plan does.
func apiTable() string {
	shapes := make([]apiShape, len(client.APIs))
	for i, api := range client.APIs {
		shapes[i] = apiShape(api)
	}
	var b strings.Builder
	b.WriteString("| Argument |")
	for _, s := range shapes {
		fmt.Fprintf(&b, " `%s` |", s)
	}
	b.WriteString("\n|" + strings.Repeat("---|", len(shapes)+1) + "\n")
	for _, a := range clipArguments {
		if len(a.request) == 0 {
			continue
		}
		fmt.Fprintf(&b, "| `%s` |", a.name)
		for _, s := range shapes {
			f, ok := a.request[s]
			if !ok {
				b.WriteString(" — |")
				continue
			}
			// A member that is said in words ("models/{model} in the URL") is
			// code only in its first word.
			member, words, _ := strings.Cut(f.member, " ")
			fmt.Fprintf(&b, " `%s`%s |", member, strings.TrimRight(" "+words, " "))
		}
		b.WriteString("\n")
	}
	return b.String()
}
