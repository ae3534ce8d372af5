package validators

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestPositiveTimeouts(t *testing.T) {
	t.Parallel()
	block := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"create": tftypes.String, "update": tftypes.String,
		"delete": tftypes.String}}
	timeouts := func(create, update, del any) tftypes.Value {
		return tftypes.NewValue(block, map[string]tftypes.Value{"create": tftypes.NewValue(tftypes.String, create),
			"update": tftypes.NewValue(tftypes.String, update), "delete": tftypes.NewValue(tftypes.String, del)})
	}
	for _, tc := range []struct {
		name     string
		timeouts tftypes.Value
		want     []string // fragments of the errors, in order
	}{
		{"no block", tftypes.NewValue(block, nil), nil},
		{"positive", timeouts("30m", "1h", nil), nil},
		{"unset create, zero update", timeouts(nil, "0s", nil), []string{`timeouts.update is "0s"`}},
		{"both not positive", timeouts("-5m", "0", nil), []string{`timeouts.create is "-5m"`, `timeouts.update is "0"`}},
		{"unknown and unparsable", timeouts(tftypes.UnknownValue, "soon", nil), nil},
		{"delete is not a wait for a clip", timeouts(nil, nil, "0s"), nil},
	} {
		config := testConfig(t, map[string]schema.Attribute{"timeouts": schema.SingleNestedAttribute{Optional: true,
			Attributes: map[string]schema.Attribute{"create": schema.StringAttribute{Optional: true},
				"update": schema.StringAttribute{Optional: true}, "delete": schema.StringAttribute{Optional: true}}}},
			map[string]tftypes.Value{"timeouts": tc.timeouts})
		resp := &resource.ValidateConfigResponse{}
		PositiveTimeouts{"create", "update"}.ValidateResource(context.Background(), resource.ValidateConfigRequest{Config: config}, resp)
		if len(resp.Diagnostics) != len(tc.want) {
			t.Errorf("%s: diagnostics %v, want %d errors", tc.name, resp.Diagnostics, len(tc.want))
			continue
		}
		for i, want := range tc.want {
			if !strings.Contains(resp.Diagnostics[i].Detail(), want) || resp.Diagnostics[i].Summary() != "Invalid Timeout" {
				t.Errorf("%s: error %d is %q, want Invalid Timeout saying %q", tc.name, i, resp.Diagnostics[i].Detail(), want)
			}
		}
	}
}
