package planmodifiers

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestListNullWhileSet(t *testing.T) {
	t.Parallel()
	m := ListNullWhileSet{Other: path.Root("version")}
	if got := m.Description(context.Background()); got != "Null while `version` is set." {
		t.Errorf("Description = %q", got)
	}
	echoed := types.ListUnknown(types.StringType)
	for _, tc := range []struct {
		name     string
		version  tftypes.Value
		wantNull bool
	}{
		{"set", tftypes.NewValue(tftypes.Number, 1), true},
		{"unknown", tftypes.NewValue(tftypes.Number, tftypes.UnknownValue), true},
		{"unset", tftypes.NewValue(tftypes.Number, nil), false},
	} {
		config := tfsdk.Config{Schema: testSchema, Raw: testValues(t, map[string]tftypes.Value{"version": tc.version})}
		resp := &planmodifier.ListResponse{PlanValue: echoed}
		m.PlanModifyList(context.Background(), planmodifier.ListRequest{Config: config, PlanValue: echoed}, resp)
		if resp.PlanValue.IsNull() != tc.wantNull || resp.Diagnostics.HasError() {
			t.Errorf("%s: planned %s (%v), want null %v", tc.name, resp.PlanValue, resp.Diagnostics, tc.wantNull)
		}
	}
}
