package validators

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ConfigValidator = FrameMode{}

// FrameMode applies the service's rule that reference images and first/last-frame
// mode exclude each other, as far as the provider can tell.
type FrameMode struct {
	// ExtraMetadata names the attribute of vendor parameters, read by Parse.
	ExtraMetadata string
	Parse         ExtraMetadata
	// Images names the lists of reference images, stored and write-only: the
	// first one set is the one reported.
	Images []string
}

func (FrameMode) Description(context.Context) string {
	return "reference images and first/last-frame mode exclude each other"
}

func (v FrameMode) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v FrameMode) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var extra types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(v.ExtraMetadata), &extra)...)
	images, imagesAttr := firstSetList(ctx, req.Config, v.Images, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || images.IsNull() || images.IsUnknown() || len(images.Elements()) == 0 {
		return
	}
	parsed, err := v.Parse.Parse(extra)
	if err != nil {
		return // reported by the attribute's own validator
	}
	if keys := FrameModeKeys(parsed); len(keys) > 0 {
		resp.Diagnostics.AddAttributeError(path.Root(v.ExtraMetadata), "Conflicting Reference Media",
			fmt.Sprintf("%s sets %s, which asks for first/last-frame mode, and %s is set too. The "+
				"service does not accept reference images together with first/last-frame mode: remove one of the two.",
				v.ExtraMetadata, strings.Join(keys, ", "), imagesAttr))
	}
}
