package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// vertexOptions are the client options of api = "vertex": Application Default
// Credentials, which are its only credentials, and the project and location,
// from the provider block, else from the environment as Google's tools read
// them, else (the project) from the credentials. Problems are attribute errors.
func vertexOptions(ctx context.Context, cfg providerModel, diags *diag.Diagnostics) []client.Option {
	if !cfg.APIKey.IsNull() {
		diags.AddAttributeError(path.Root("api_key"), "API Key Not Used by Vertex AI",
			"api = \"vertex\" authenticates only with Application Default Credentials, never with a key: remove api_key "+
				"from the provider block (a service account key file goes in GOOGLE_APPLICATION_CREDENTIALS).")
		return nil
	}
	creds, err := client.GoogleDefaultCredentials(ctx)
	if err != nil {
		diags.AddAttributeError(path.Root("api"), "No Google Credentials",
			fmt.Sprintf("api = \"vertex\" needs Application Default Credentials and found none. Set "+
				"GOOGLE_APPLICATION_CREDENTIALS to a service account key file, run `gcloud auth application-default login`, "+
				"or run where a workload identity is attached.\n\nOriginal error: %s", err))
		return nil
	}
	project, location := cfg.Project.ValueString(), cfg.Location.ValueString()
	if cfg.Project.IsNull() {
		if project, _ = client.FirstEnv(client.GoogleEnvProject); project == "" {
			project = creds.ProjectID
		}
	}
	if cfg.Location.IsNull() {
		location, _ = client.FirstEnv(client.GoogleEnvLocation)
	}
	if strings.TrimSpace(project) == "" {
		diags.AddAttributeError(path.Root("project"), "Missing Google Cloud Project",
			"api = \"vertex\" needs the Google Cloud project whose Vertex AI makes the clips. Set project in the provider "+
				"block or GOOGLE_CLOUD_PROJECT; the Application Default Credentials name none.")
	}
	if strings.TrimSpace(location) == "" {
		diags.AddAttributeError(path.Root("location"), "Missing Vertex AI Location",
			"api = \"vertex\" needs a Vertex AI location, such as us-central1. Set location in the provider block or "+
				"GOOGLE_CLOUD_LOCATION.")
	}
	return []client.Option{client.WithTokenSource(creds.Tokens), client.WithVertexProject(project, location)}
}

// veoArgument is the argument of videogen_video that a member of a request
// refused by Veo (client.API.Inexpressible) comes from.
func veoArgument(param string) string {
	switch {
	case param == client.ContentParam(client.ContentImage):
		return "reference_images"
	case param == client.ContentParam(client.ContentVideo):
		return "reference_videos"
	case param == client.ContentParam(client.ContentAudio):
		return "reference_audios"
	case param == client.ParamGenerateAudio:
		return "generate_audio"
	case param == client.ParamCallbackURL:
		return "callback_url"
	case param == "seconds":
		return "seconds"
	case strings.HasPrefix(param, "metadata."):
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
		name := veoArgument(e.Param)
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

// veoNamed is a field that every API shape carries alike, which Veo's request
// names veo rather than member.
func veoNamed[T any](field func(string, T) requestField, member, veo string, at T) perAPI {
	p := everyAPI(field(member, at))
	p[apiGemini], p[apiVertex] = field(veo, at), field(veo, at)
	return p
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
