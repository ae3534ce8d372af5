package validators

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type stringCase struct {
	value   types.String
	wantErr string // a fragment of the detail; empty when the value is valid
}

// checkString runs v over the cases and checks that each error names the attribute.
func checkString(t *testing.T, v validator.String, attr string, cases []stringCase) {
	t.Helper()
	for _, c := range cases {
		resp := &validator.StringResponse{}
		v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root(attr), ConfigValue: c.value}, resp)
		switch {
		case c.wantErr == "" && resp.Diagnostics.HasError():
			t.Errorf("%s: unexpected error %v", c.value, resp.Diagnostics)
		case c.wantErr != "" && !resp.Diagnostics.HasError():
			t.Errorf("%s: accepted, want an error", c.value)
		case c.wantErr != "":
			detail := resp.Diagnostics[0].Detail()
			if !strings.Contains(detail, c.wantErr) || !strings.Contains(detail, attr) {
				t.Errorf("%s: detail %q lacks %q or the attribute name %q", c.value, detail, c.wantErr, attr)
			}
		}
	}
}
