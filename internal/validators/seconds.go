package validators

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// MaxSeconds is the largest clip length accepted at plan: the largest number a
// service can be counted on to read as a whole number (a signed 32-bit integer).
// Each model's own maximum is lower, and only the service knows it.
const MaxSeconds = math.MaxInt32

// Seconds accepts a clip length as the service takes it: a whole number of seconds
// from 1 to MaxSeconds, written as digits without leading zeros.
func Seconds() validator.String { return secondsValidator{} }

type secondsValidator struct{}

func (secondsValidator) Description(context.Context) string {
	return fmt.Sprintf("value must be a whole number of seconds of 1 or more (at most %d), written as digits without "+
		"leading zeros, such as \"8\"", MaxSeconds)
}

func (v secondsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v secondsValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := checkSeconds(req.ConfigValue.ValueString()); msg != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Clip Length",
			fmt.Sprintf("Attribute %s %s.", req.Path, msg))
	}
}

// checkSeconds explains why s is not a clip length the service takes, or returns "".
func checkSeconds(s string) string {
	if !isDigits(s) {
		return fmt.Sprintf("must be a whole number of seconds of 1 or more, written as digits, such as \"8\", got %q", s)
	}
	trimmed := strings.TrimLeft(s, "0")
	switch {
	case trimmed == "":
		return fmt.Sprintf("must be 1 or more, got %q", s)
	case trimmed != s:
		return fmt.Sprintf("is %q: write it without leading zeros, as %q, which is how the service reads and echoes it", s, trimmed)
	case len(s) > 10 || mustUint(s) > MaxSeconds:
		return fmt.Sprintf("is %q, more than the service can take: the largest number accepted is %d, and each model's own "+
			"limit is lower", s, MaxSeconds)
	}
	return ""
}
