package planmodifiers

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ planmodifier.List = ListNullWhileSet{}

// ListNullWhileSet plans a list of strings as null while another attribute is
// configured: what that attribute stands for must reach neither the plan nor,
// through an echo or an import, the state.
type ListNullWhileSet struct {
	// Other is an int64 attribute; the list is null while it is not.
	Other path.Path
}

func (m ListNullWhileSet) Description(context.Context) string {
	return fmt.Sprintf("Null while `%s` is set.", m.Other)
}

func (m ListNullWhileSet) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (m ListNullWhileSet) PlanModifyList(ctx context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	var other types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, m.Other, &other)...)
	if !other.IsNull() {
		resp.PlanValue = types.ListNull(types.StringType)
	}
}
