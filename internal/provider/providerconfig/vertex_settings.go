package providerconfig

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
func vertexOptions(ctx context.Context, cfg Model, diags *diag.Diagnostics) []client.Option {
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
