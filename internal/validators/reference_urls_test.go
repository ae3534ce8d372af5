package validators

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestReferenceURLs(t *testing.T) {
	t.Parallel()
	s := types.StringValue
	for _, tc := range []struct {
		name  string
		elems []attr.Value
		want  string // a fragment of the error; empty when the list is valid
	}{
		{"two URLs", []attr.Value{s("https://cdn.example.com/a.png"), s("https://cdn.example.com/b.png")}, ""},
		{"too many", []attr.Value{s("https://cdn.example.com/a.png"), s("https://cdn.example.com/b.png"),
			s("https://cdn.example.com/c.png")}, "at most 2"},
		{"a null element", []attr.Value{types.StringNull()}, "null"},
		{"a relative URL", []attr.Value{s("images/cat.png")}, "absolute"},
	} {
		list := types.ListValueMust(types.StringType, tc.elems)
		resp := &validator.ListResponse{}
		for _, v := range ReferenceURLs(2) {
			v.ValidateList(context.Background(), validator.ListRequest{Path: path.Root("reference_images"), ConfigValue: list}, resp)
		}
		switch {
		case tc.want == "" && resp.Diagnostics.HasError():
			t.Errorf("%s: unexpected error %v", tc.name, resp.Diagnostics)
		case tc.want != "" && (!resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics[0].Detail(), tc.want)):
			t.Errorf("%s: diagnostics %v, want an error saying %q", tc.name, resp.Diagnostics, tc.want)
		}
	}
}
