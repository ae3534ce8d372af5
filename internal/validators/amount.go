package validators

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Amount accepts an amount of money as a plan adds it up: a decimal number of
// 0 or more, such as "25" or "12.50", read exactly (never as a binary float).
func Amount() validator.String { return amountValidator{} }

type amountValidator struct{}

func (amountValidator) Description(context.Context) string {
	return `value must be a decimal number of 0 or more, such as "25" or "12.50"`
}

func (v amountValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (amountValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, ok := ParseAmount(req.ConfigValue.ValueString()); !ok {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Amount", fmt.Sprintf("Attribute %s must be a decimal "+
			"number of 0 or more, such as \"25\" or \"12.50\", in the unit the service prices clips in; "+
			"got %q.", req.Path, req.ConfigValue.ValueString()))
	}
}

// ParseAmount reads an amount that Amount accepts: digits with at most one
// decimal point, and no sign, exponent or spaces.
func ParseAmount(s string) (*big.Rat, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || !isDigits(whole) || (strings.Contains(s, ".") && !isDigits(frac)) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}
