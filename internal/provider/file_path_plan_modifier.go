package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

var _ planmodifier.String = keepPathSpelling{}

// keepPathSpelling plans the spelling of a path that state already holds when
// the configured one names the same file (see filePath). The framework applies
// semantic equality to values that Read, Create and Update return, but not to
// configuration at plan time; without this, `./out/x.mp4` in place of
// `out/x.mp4` would plan a replacement. Terraform accepts a planned value that
// differs from configuration when it is the prior state's, unchanged. It must
// come before RequiresReplace.
type keepPathSpelling struct{}

func (keepPathSpelling) Description(context.Context) string {
	return "keeps the path in state when the configured path names the same file"
}

func (m keepPathSpelling) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (keepPathSpelling) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.PlanValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	same, diags := filePath{StringValue: req.StateValue}.StringSemanticEquals(ctx, filePath{StringValue: req.PlanValue})
	resp.Diagnostics.Append(diags...)
	if same {
		resp.PlanValue = req.StateValue
	}
}
