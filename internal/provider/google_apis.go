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

// apiCarries lists, from the clip-argument table, the arguments an API shape
// carries and the member of its request each becomes: the provider page's
// account of what each API can make.
func apiCarries(shape apiShape) string {
	var parts []string
	for _, a := range clipArguments {
		if f, ok := a.request[shape]; ok {
			parts = append(parts, fmt.Sprintf("`%s` (`%s`)", a.name, f.member))
		}
	}
	return strings.Join(parts, ", ")
}
