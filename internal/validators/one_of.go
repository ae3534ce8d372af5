package validators

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// OneOf accepts exactly one of values, and refuses anything else with an error
// of the given summary that names the attribute and every accepted value, as the
// other arguments' errors do; a value that differs from an accepted one only in
// case is told how to write it.
func OneOf(summary string, values ...string) validator.String {
	return oneOfValidator{summary: summary, values: values}
}

type oneOfValidator struct {
	summary string
	values  []string
}

func (v oneOfValidator) Description(context.Context) string {
	return "value must be one of " + v.list()
}

func (v oneOfValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v oneOfValidator) list() string {
	quoted := make([]string, len(v.values))
	for i, s := range v.values {
		quoted[i] = strconv.Quote(s)
	}
	return strings.Join(quoted, ", ")
}

func (v oneOfValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	got := req.ConfigValue.ValueString()
	for _, s := range v.values {
		switch {
		case s == got:
			return
		case strings.EqualFold(s, strings.TrimSpace(got)):
			resp.Diagnostics.AddAttributeError(req.Path, v.summary,
				fmt.Sprintf("Attribute %s is %q: write it as %q, one of %s.", req.Path, got, s, v.list()))
			return
		}
	}
	resp.Diagnostics.AddAttributeError(req.Path, v.summary,
		fmt.Sprintf("Attribute %s must be one of %s, got %q.", req.Path, v.list(), got))
}
