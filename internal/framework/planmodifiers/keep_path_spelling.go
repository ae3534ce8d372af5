// Package planmodifiers holds the provider's plan modifiers that know no
// resource: they are given what they compare and which attributes they read.
package planmodifiers

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"

	"github.com/videogen/terraform-provider-videogen/internal/framework/fwtypes"
)

var _ planmodifier.String = KeepPathSpelling{}

// KeepPathSpelling plans the spelling of a path that state already holds when
// the configured one names the same file (see fwtypes.FilePath). The framework
// applies semantic equality to values that Read, Create and Update return, but
// not to configuration at plan time; without this, `./out/x.mp4` in place of
// `out/x.mp4` would plan a replacement. Terraform accepts a planned value that
// differs from configuration when it is the prior state's, unchanged. It must
// come before RequiresReplace.
type KeepPathSpelling struct{}

func (KeepPathSpelling) Description(context.Context) string {
	return "keeps the path in state when the configured path names the same file"
}

func (m KeepPathSpelling) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (KeepPathSpelling) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.PlanValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	same, diags := fwtypes.FilePath{StringValue: req.StateValue}.StringSemanticEquals(ctx,
		fwtypes.FilePath{StringValue: req.PlanValue})
	resp.Diagnostics.Append(diags...)
	if same {
		resp.PlanValue = req.StateValue
	}
}
