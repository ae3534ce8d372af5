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

func TestRequiresReplaceUnlessImported(t *testing.T) {
	t.Parallel()
	m := RequiresReplaceUnlessImported(path.Root("model"))
	for _, tc := range []struct {
		name          string
		state         map[string]tftypes.Value
		prior, config types.String
		replace       bool
	}{
		{"changed", map[string]tftypes.Value{"model": tftypes.NewValue(tftypes.String, "m")},
			types.StringValue("a fox"), types.StringValue("a cat"), true},
		{"unchanged", map[string]tftypes.Value{"model": tftypes.NewValue(tftypes.String, "m")},
			types.StringValue("a fox"), types.StringValue("a fox"), false},
		{"just imported", map[string]tftypes.Value{}, types.StringNull(), types.StringValue("a fox"), false},
	} {
		state := testState(t, tc.state)
		plan := tfsdk.Plan{Schema: testSchema, Raw: testValues(t, map[string]tftypes.Value{"unrelated": tftypes.NewValue(tftypes.String, "x")})}
		req := planmodifier.StringRequest{State: state, Plan: plan, StateValue: tc.prior, ConfigValue: tc.config, PlanValue: tc.config}
		resp := &planmodifier.StringResponse{PlanValue: tc.config}
		m.PlanModifyString(context.Background(), req, resp)
		if resp.RequiresReplace != tc.replace || resp.Diagnostics.HasError() {
			t.Errorf("%s: replace %v (%v), want %v", tc.name, resp.RequiresReplace, resp.Diagnostics, tc.replace)
		}
	}
}
