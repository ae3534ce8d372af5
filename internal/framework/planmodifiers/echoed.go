package planmodifiers

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ planmodifier.String = Echoed{}
	_ planmodifier.Bool   = Echoed{}
	_ planmodifier.List   = Echoed{}
)

// Echoed plans an optional argument that the service echoes back. Unset in
// configuration, it keeps the value the existing object has (after an import that
// is the echoed value, which is adopted instead of forcing a replacement). Set, it
// forces a replacement only when it means something other than the object's value.
type Echoed struct {
	// Same reports whether two known, non-null values mean the same.
	Same func(a, b attr.Value) bool
	// ImportedWithout names a string attribute that import leaves null and every
	// create sets: while state holds it null, the object was just imported.
	ImportedWithout path.Path
}

const echoedDescription = "Changing this forces a replacement. When unset, the value of the existing object is " +
	"kept, so an imported object adopts what the service reports."

func (m Echoed) Description(context.Context) string         { return echoedDescription }
func (m Echoed) MarkdownDescription(context.Context) string { return echoedDescription }

// plan decides for any attribute type; keep reports that the prior value stands.
// adopting is true right after an import, when the state has no model yet.
func (m Echoed) plan(config, state attr.Value, creating, adopting bool) (keep, replace bool) {
	switch {
	case creating || config.IsUnknown() || state.IsUnknown():
		return false, false
	case config.IsNull():
		return true, false
	case state.IsNull():
		// The service never echoed this: an imported object adopts the
		// configuration, while one made without the argument is a different one.
		return false, !adopting
	case m.Same(config, state):
		return true, false
	}
	return false, true
}

// imported reports a freshly imported object: state holds marker null.
func imported(ctx context.Context, state tfsdk.State, marker path.Path) bool {
	var v types.String
	state.GetAttribute(ctx, marker, &v)
	return v.IsNull()
}

// planEchoed is the body of every PlanModify method: it keeps the prior value or
// forces a replacement as plan decides, for an attribute of any type.
func planEchoed[T attr.Value](ctx context.Context, m Echoed, prior tfsdk.State, config, state T, planned *T,
	requiresReplace *bool,
) {
	creating := prior.Raw.IsNull()
	keep, replace := m.plan(config, state, creating, !creating && imported(ctx, prior, m.ImportedWithout))
	if keep {
		*planned = state
	}
	*requiresReplace = replace
}

func (m Echoed) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	planEchoed(ctx, m, req.State, req.ConfigValue, req.StateValue, &resp.PlanValue, &resp.RequiresReplace)
}

func (m Echoed) PlanModifyBool(ctx context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	planEchoed(ctx, m, req.State, req.ConfigValue, req.StateValue, &resp.PlanValue, &resp.RequiresReplace)
}

func (m Echoed) PlanModifyList(ctx context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	planEchoed(ctx, m, req.State, req.ConfigValue, req.StateValue, &resp.PlanValue, &resp.RequiresReplace)
}
