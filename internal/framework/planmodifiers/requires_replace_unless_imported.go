package planmodifiers

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const requiresReplaceUnlessImportedDescription = "Changing this forces a replacement, except after an import, when " +
	"the value is adopted from configuration in place."

// RequiresReplaceUnlessImported forces a replacement on change, except while a
// freshly imported object adopts from configuration a value that the service never
// echoes. ImportedWithout names a string attribute that import leaves null and
// every create sets.
func RequiresReplaceUnlessImported(importedWithout path.Path) planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			var marker types.String
			resp.Diagnostics.Append(req.State.GetAttribute(ctx, importedWithout, &marker)...)
			resp.RequiresReplace = !marker.IsNull()
		},
		requiresReplaceUnlessImportedDescription, requiresReplaceUnlessImportedDescription,
	)
}
