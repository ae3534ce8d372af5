package validators

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Duration accepts a Go duration string ("90s", "5m") of at least minimum.
func Duration(minimum time.Duration) validator.String { return durationValidator{minimum: minimum} }

type durationValidator struct{ minimum time.Duration }

func (v durationValidator) Description(context.Context) string {
	return fmt.Sprintf("value must be a duration such as \"30s\" or \"5m\", at least %s", v.minimum)
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil || d < v.minimum {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration",
			fmt.Sprintf("Attribute %s %s, got %q.", req.Path, v.Description(ctx), req.ConfigValue.ValueString()))
	}
}
