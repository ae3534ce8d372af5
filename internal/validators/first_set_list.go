package validators

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// firstSetList reads the first of the named lists that the configuration sets,
// and its name; the last name, and a null list, when none is set.
func firstSetList(ctx context.Context, config tfsdk.Config, names []string, diags *diag.Diagnostics) (types.List, string) {
	var list types.List
	name := ""
	for _, n := range names {
		if list.IsNull() {
			name = n
			diags.Append(config.GetAttribute(ctx, path.Root(n), &list)...)
		}
	}
	return list, name
}
