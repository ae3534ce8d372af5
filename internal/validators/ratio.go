package validators

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Ratio accepts an aspect ratio as the service takes it: W:H with whole numbers of 1
// or more, without leading zeros, each at most a signed 32-bit integer.
func Ratio() validator.String { return ratioValidator{} }

type ratioValidator struct{}

func (ratioValidator) Description(context.Context) string {
	return "value must be W:H with positive whole numbers without leading zeros, such as \"16:9\""
}

func (v ratioValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v ratioValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	raw := req.ConfigValue.ValueString()
	w, h, found := strings.Cut(raw, ":")
	if !found || !isDigits(w) || !isDigits(h) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Aspect Ratio",
			fmt.Sprintf("Attribute %s must be W:H with positive whole numbers, such as \"16:9\", \"9:16\" or \"1:1\", got %q.", req.Path, raw))
		return
	}
	w, h = strings.TrimLeft(w, "0"), strings.TrimLeft(h, "0")
	switch {
	case w == "" || h == "":
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Aspect Ratio",
			fmt.Sprintf("Attribute %s must be W:H with positive whole numbers (1 or more), such as \"16:9\", got %q.", req.Path, raw))
	case w+":"+h != raw:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Aspect Ratio",
			fmt.Sprintf("Attribute %s is %q: write it without leading zeros, as %q, which is how the service reads and echoes it.",
				req.Path, raw, w+":"+h))
	case len(w) > 10 || len(h) > 10 || mustUint(w) > math.MaxInt32 || mustUint(h) > math.MaxInt32:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Aspect Ratio",
			fmt.Sprintf("Attribute %s is %q, more than the service can take: each side is at most %d. A ratio such as \"16:9\" "+
				"is written in its smallest numbers.", req.Path, raw, math.MaxInt32))
	}
}

func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// mustUint reads a string of at most ten digits, which always fits.
func mustUint(digits string) uint64 {
	n, _ := strconv.ParseUint(digits, 10, 64)
	return n
}

// SameRatio reports whether two W:H ratios describe the same shape, such as
// "16:9", "016:09" and "32:18". Values that are not ratios compare as strings.
func SameRatio(a, b string) bool {
	aw, ah, ok1 := parseRatio(a)
	bw, bh, ok2 := parseRatio(b)
	if !ok1 || !ok2 {
		return a == b
	}
	return new(big.Int).Mul(aw, bh).Cmp(new(big.Int).Mul(bw, ah)) == 0
}

func parseRatio(s string) (w, h *big.Int, ok bool) {
	left, right, found := strings.Cut(strings.TrimSpace(s), ":")
	if !found {
		return nil, nil, false
	}
	w, ok1 := new(big.Int).SetString(strings.TrimSpace(left), 10)
	h, ok2 := new(big.Int).SetString(strings.TrimSpace(right), 10)
	if !ok1 || !ok2 || w.Sign() <= 0 || h.Sign() <= 0 {
		return nil, nil, false
	}
	return w, h, true
}
