package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ resource.ConfigValidator = positiveTimeoutsValidator{}
	_ resource.ConfigValidator = frameModeValidator{}
)

// positiveTimeoutsValidator rejects a zero or negative timeout at plan: such a wait
// gives up at once, so every apply would submit, taint, and submit again.
type positiveTimeoutsValidator struct{}

func (positiveTimeoutsValidator) Description(context.Context) string {
	return "timeouts must be positive durations"
}

func (v positiveTimeoutsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (positiveTimeoutsValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var t timeouts.Value
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("timeouts"), &t)...)
	if resp.Diagnostics.HasError() || t.IsNull() || t.IsUnknown() {
		return
	}
	for _, name := range []string{"create", "update"} {
		v, ok := t.Attributes()[name].(types.String)
		if !ok || v.IsNull() || v.IsUnknown() {
			continue
		}
		d, err := time.ParseDuration(v.ValueString())
		if err != nil || d > 0 {
			continue // the timeouts block reports unparsable durations itself
		}
		resp.Diagnostics.AddAttributeError(path.Root("timeouts").AtName(name), "Invalid Timeout",
			fmt.Sprintf("timeouts.%s is %q, but a wait must be allowed some time: with no time left it gives up at once, "+
				"and every apply would submit a new, billed task. Use a positive duration such as \"30m\", or remove "+
				"timeouts.%s for the default.", name, v.ValueString(), name))
	}
}

// frameModeValidator applies the service's rule that reference images and
// first/last-frame mode exclude each other, as far as the provider can tell.
type frameModeValidator struct{}

func (frameModeValidator) Description(context.Context) string {
	return "reference images and first/last-frame mode exclude each other"
}

func (v frameModeValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (frameModeValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var extra types.String
	var images types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("extra_metadata"), &extra)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("reference_images"), &images)...)
	imagesAttr := "reference_images"
	if images.IsNull() {
		imagesAttr = "reference_images_wo"
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(imagesAttr), &images)...)
	}
	if resp.Diagnostics.HasError() || images.IsNull() || images.IsUnknown() || len(images.Elements()) == 0 {
		return
	}
	parsed, err := parseExtraMetadata(extra)
	if err != nil {
		return // reported by the attribute's own validator
	}
	if keys := frameModeKeys(parsed); len(keys) > 0 {
		resp.Diagnostics.AddAttributeError(path.Root("extra_metadata"), "Conflicting Reference Media",
			fmt.Sprintf("extra_metadata sets %s, which asks for first/last-frame mode, and %s is set too. The "+
				"service does not accept reference images together with first/last-frame mode: remove one of the two.",
				strings.Join(keys, ", "), imagesAttr))
	}
}
