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

func TestNoNullElements(t *testing.T) {
	t.Parallel()
	list := func(elems ...attr.Value) types.List { return types.ListValueMust(types.StringType, elems) }
	url := types.StringValue("https://cdn.example.com/a.png")
	tests := []struct {
		name      string
		value     types.List
		wantPaths []string
	}{
		{"null list", types.ListNull(types.StringType), nil},
		{"unknown list", types.ListUnknown(types.StringType), nil},
		{"empty", list(), nil},
		{"values", list(url, url), nil},
		{"unknown element", list(url, types.StringUnknown()), nil},
		{"only null", list(types.StringNull()), []string{"reference_images[0]"}},
		{"null after values", list(url, url, types.StringNull()), []string{"reference_images[2]"}},
		{"two nulls", list(types.StringNull(), url, types.StringNull()), []string{"reference_images[0]", "reference_images[2]"}},
	}
	for _, tt := range tests {
		resp := &validator.ListResponse{}
		NoNullElements().ValidateList(context.Background(),
			validator.ListRequest{Path: path.Root("reference_images"), ConfigValue: tt.value}, resp)
		if len(resp.Diagnostics) != len(tt.wantPaths) {
			t.Errorf("%s: %d diagnostics %v, want %d", tt.name, len(resp.Diagnostics), resp.Diagnostics, len(tt.wantPaths))
			continue
		}
		for i, d := range resp.Diagnostics {
			withPath, ok := d.(interface{ Path() path.Path })
			if !ok || withPath.Path().String() != tt.wantPaths[i] {
				t.Errorf("%s: diagnostic %d is not on %s: %v", tt.name, i, tt.wantPaths[i], d)
			}
			index := strings.TrimSuffix(strings.TrimPrefix(tt.wantPaths[i], "reference_images["), "]")
			if !strings.Contains(d.Detail(), "reference_images") || !strings.Contains(d.Detail(), "index "+index) {
				t.Errorf("%s: detail %q does not name the attribute and index %s", tt.name, d.Detail(), index)
			}
		}
	}
}
