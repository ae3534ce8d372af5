package validators

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// NoNullElements rejects a list with a null element (`[null]`, or a variable that
// is null), naming the attribute and the index: every element is sent to the
// service, and a null one cannot be. Unknown elements pass.
func NoNullElements() validator.List { return noNullElementsValidator{} }

type noNullElementsValidator struct{}

func (noNullElementsValidator) Description(context.Context) string {
	return "elements must not be null"
}

func (v noNullElementsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (noNullElementsValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for i, e := range req.ConfigValue.Elements() {
		if e.IsNull() {
			resp.Diagnostics.AddAttributeError(req.Path.AtListIndex(i), "Null List Element",
				fmt.Sprintf("Attribute %s has a null element at index %d (%s). Every element is sent to the service, so "+
					"each must have a value: remove the null element, or filter nulls out, for example with compact().",
					req.Path, i, req.Path.AtListIndex(i)))
		}
	}
}
