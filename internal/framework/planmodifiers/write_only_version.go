package planmodifiers

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ planmodifier.Int64 = (*WriteOnlyVersion)(nil)

// WriteOnlyVersion plans, on the version of a resource's write-only lists, the
// replacement that write-only values cannot plan themselves: Terraform keeps no
// prior value of them to compare. A changed version forces a replacement. A
// version first set on an existing object moves it to its write-only lists in
// place when each names what the stored list it stands in for names; the
// write-only values are in the configuration then, the stored ones in state.
type WriteOnlyVersion struct {
	// Twins pairs each write-only list with the stored list it stands in for.
	Twins []Twin
	// Same reports whether two known, non-null lists mean the same.
	Same func(a, b attr.Value) bool
	// ImportedWithout names a string attribute that import leaves null and every
	// create sets: a just imported object adopts the write-only lists.
	ImportedWithout path.Path
}

// Twin is a write-only list and the stored list it stands in for.
type Twin struct {
	WriteOnly, Stored string
}

const writeOnlyVersionDescription = "Changing this forces a replacement, except when it is first set on an " +
	"object whose stored lists mean the same as the write-only ones."

func (*WriteOnlyVersion) Description(context.Context) string { return writeOnlyVersionDescription }
func (*WriteOnlyVersion) MarkdownDescription(context.Context) string {
	return writeOnlyVersionDescription
}

func (m *WriteOnlyVersion) PlanModifyInt64(ctx context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	if !req.StateValue.IsNull() {
		resp.RequiresReplace = !req.ConfigValue.Equal(req.StateValue)
		return
	}
	if req.ConfigValue.IsNull() {
		return
	}
	adopt := imported(ctx, req.State, m.ImportedWithout)
	for _, twin := range m.Twins {
		var wo, stored types.List
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(twin.WriteOnly), &wo)...)
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(twin.Stored), &stored)...)
		switch {
		case wo.IsUnknown():
			resp.RequiresReplace = true
		case stored.IsNull() && adopt:
			// An imported object whose lists the service does not echo adopts them.
		case len(wo.Elements()) == 0 || len(stored.Elements()) == 0:
			resp.RequiresReplace = resp.RequiresReplace || len(wo.Elements()) != len(stored.Elements())
		case !m.Same(wo, stored):
			resp.RequiresReplace = true
		}
	}
}
