package validators

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ConfigValidator = PositiveTimeouts{}

// PositiveTimeouts rejects a zero or negative timeout of the named operations in
// the timeouts block at plan: such a wait gives up at once, so every apply would
// submit, taint, and submit again.
type PositiveTimeouts []string

func (PositiveTimeouts) Description(context.Context) string {
	return "timeouts must be positive durations"
}

func (v PositiveTimeouts) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v PositiveTimeouts) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	for _, name := range v {
		var t types.String
		at := path.Root("timeouts").AtName(name)
		diags := req.Config.GetAttribute(ctx, at, &t)
		resp.Diagnostics.Append(diags...)
		if diags.HasError() {
			return
		}
		if t.IsNull() || t.IsUnknown() {
			continue
		}
		d, err := time.ParseDuration(t.ValueString())
		if err != nil || d > 0 {
			continue // the timeouts block reports unparsable durations itself
		}
		resp.Diagnostics.AddAttributeError(at, "Invalid Timeout",
			fmt.Sprintf("timeouts.%s is %q, but a wait must be allowed some time: with no time left it gives up at once, "+
				"and every apply would submit a new, billed task. Use a positive duration such as \"30m\", or remove "+
				"timeouts.%s for the default.", name, t.ValueString(), name))
	}
}
