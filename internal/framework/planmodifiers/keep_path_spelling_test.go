package planmodifiers

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestKeepPathSpelling(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		state, plan types.String
		wantPlanned types.String
	}{
		{"same file, other spelling", types.StringValue("out/x.mp4"), types.StringValue("./out/x.mp4"), types.StringValue("out/x.mp4")},
		{"another file", types.StringValue("out/x.mp4"), types.StringValue("out/y.mp4"), types.StringValue("out/y.mp4")},
		{"creating", types.StringNull(), types.StringValue("./out/x.mp4"), types.StringValue("./out/x.mp4")},
		{"unknown", types.StringValue("out/x.mp4"), types.StringUnknown(), types.StringUnknown()},
	} {
		req := planmodifier.StringRequest{StateValue: tc.state, PlanValue: tc.plan, ConfigValue: tc.plan}
		resp := &planmodifier.StringResponse{PlanValue: tc.plan}
		KeepPathSpelling{}.PlanModifyString(context.Background(), req, resp)
		if resp.Diagnostics.HasError() || !resp.PlanValue.Equal(tc.wantPlanned) {
			t.Errorf("%s: planned %s (%v), want %s", tc.name, resp.PlanValue, resp.Diagnostics, tc.wantPlanned)
		}
	}
}
