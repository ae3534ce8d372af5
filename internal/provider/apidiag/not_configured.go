package apidiag

import "github.com/hashicorp/terraform-plugin-framework/diag"

// RequireConfigured reports whether the provider handed over a client, and
// says why not, under summary, when it did not: it has not when base_url or
// api_key were unknown while the provider was configured.
func RequireConfigured(configured bool, diags *diag.Diagnostics, summary string) bool {
	if !configured {
		diags.AddError(summary, "The videogen provider is not configured: its base_url or api_key was unknown. "+
			"Make sure the provider configuration does not depend on values that are only known after apply.")
		return false
	}
	return true
}
