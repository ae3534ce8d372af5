package validators

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ConfigValidator = PromptCitations{}

// PromptCitations checks that every "@imageN" a prompt cites (see
// ImageCitations) is an element of the reference images: the service numbers
// images from 1, in list order.
type PromptCitations struct {
	// Prompt names the prompt attribute.
	Prompt string
	// Images names the lists of reference images in the order they are
	// preferred: the first one set is the one cited (the last when none is).
	Images []string
}

func (PromptCitations) Description(context.Context) string {
	return "every @imageN of the prompt names an element of the reference images"
}

func (v PromptCitations) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v PromptCitations) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var prompt types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(v.Prompt), &prompt)...)
	images, imagesAttr := firstSetList(ctx, req.Config, v.Images, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || prompt.IsUnknown() || prompt.IsNull() || images.IsUnknown() {
		return
	}
	n := len(images.Elements())
	for _, c := range ImageCitations(prompt.ValueString()) {
		switch {
		case c.N == 0:
			resp.Diagnostics.AddAttributeError(path.Root(v.Prompt), "Invalid Image Citation",
				fmt.Sprintf("The prompt cites %s, but image citations start at @image1 (the first element of %s).", c.Text, imagesAttr))
		case c.N > n:
			resp.Diagnostics.AddAttributeError(path.Root(v.Prompt), "Invalid Image Citation",
				fmt.Sprintf("The prompt cites %s, but %s has %d element(s); @imageN refers to the Nth element. "+
					"Add the image to %s or fix the citation.", c.Text, imagesAttr, n, imagesAttr))
		}
	}
}
