package planmodifiers

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var caseless = Echoed{ImportedWithout: path.Root("model"), Same: func(a, b attr.Value) bool {
	as, aok := a.(types.String)
	bs, bok := b.(types.String)
	return aok && bok && strings.EqualFold(as.ValueString(), bs.ValueString())
}}

func TestEchoed(t *testing.T) {
	t.Parallel()
	made := map[string]tftypes.Value{"model": tftypes.NewValue(tftypes.String, "m")}
	for _, tc := range []struct {
		name          string
		state         map[string]tftypes.Value // nil: creating
		config, prior types.String
		keep, replace bool
	}{
		{"creating", nil, types.StringValue("720p"), types.StringNull(), false, false},
		{"unset keeps the clip's value", made, types.StringNull(), types.StringValue("1080p"), true, false},
		{"the same in another spelling", made, types.StringValue("720P"), types.StringValue("720p"), true, false},
		{"another value", made, types.StringValue("1080p"), types.StringValue("720p"), false, true},
		{"unknown", made, types.StringUnknown(), types.StringValue("720p"), false, false},
		{"never echoed, made without it", made, types.StringValue("720p"), types.StringNull(), false, true},
		{"never echoed, just imported", map[string]tftypes.Value{}, types.StringValue("720p"), types.StringNull(), false, false},
	} {
		planned := tc.config
		if tc.config.IsNull() {
			planned = types.StringUnknown()
		}
		req := planmodifier.StringRequest{State: testState(t, tc.state), ConfigValue: tc.config, StateValue: tc.prior, PlanValue: planned}
		resp := &planmodifier.StringResponse{PlanValue: planned}
		caseless.PlanModifyString(context.Background(), req, resp)
		kept := resp.PlanValue.Equal(tc.prior) && !planned.Equal(tc.prior)
		if kept != tc.keep || resp.RequiresReplace != tc.replace {
			t.Errorf("%s: planned %s (replace %v), want kept %v, replace %v", tc.name, resp.PlanValue, resp.RequiresReplace,
				tc.keep, tc.replace)
		}
	}
}
