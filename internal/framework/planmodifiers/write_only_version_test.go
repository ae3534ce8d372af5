package planmodifiers

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestWriteOnlyVersion(t *testing.T) {
	t.Parallel()
	m := &WriteOnlyVersion{Twins: []Twin{{WriteOnly: "media_wo", Stored: "media"}}, ImportedWithout: path.Root("model"),
		Same: func(a, b attr.Value) bool { return a.Equal(b) }}
	num := func(v any) tftypes.Value { return tftypes.NewValue(tftypes.Number, v) }
	model := tftypes.NewValue(tftypes.String, "m")
	for _, tc := range []struct {
		name          string
		state, config map[string]tftypes.Value
		replace       bool
	}{
		{"creating", nil, map[string]tftypes.Value{"version": num(1), "media_wo": testStrings("a")}, false},
		{"same version", map[string]tftypes.Value{"model": model, "version": num(1)},
			map[string]tftypes.Value{"version": num(1), "media_wo": testStrings("b")}, false},
		{"changed version", map[string]tftypes.Value{"model": model, "version": num(1)},
			map[string]tftypes.Value{"version": num(2), "media_wo": testStrings("a")}, true},
		{"unset again", map[string]tftypes.Value{"model": model, "version": num(1)}, map[string]tftypes.Value{}, true},
		{"still unset", map[string]tftypes.Value{"model": model, "media": testStrings("a")},
			map[string]tftypes.Value{"media": testStrings("a")}, false},
		{"first set, same media", map[string]tftypes.Value{"model": model, "media": testStrings("a", "b")},
			map[string]tftypes.Value{"version": num(1), "media_wo": testStrings("a", "b")}, false},
		{"first set, other media", map[string]tftypes.Value{"model": model, "media": testStrings("a")},
			map[string]tftypes.Value{"version": num(1), "media_wo": testStrings("b")}, true},
		{"first set, media added", map[string]tftypes.Value{"model": model},
			map[string]tftypes.Value{"version": num(1), "media_wo": testStrings("a")}, true},
		{"first set, none either way", map[string]tftypes.Value{"model": model},
			map[string]tftypes.Value{"version": num(1)}, false},
		{"first set, unknown media", map[string]tftypes.Value{"model": model, "media": testStrings("a")},
			map[string]tftypes.Value{"version": num(1), "media_wo": tftypes.NewValue(testList, tftypes.UnknownValue)}, true},
		{"just imported, nothing echoed", map[string]tftypes.Value{},
			map[string]tftypes.Value{"version": num(1), "media_wo": testStrings("a")}, false},
	} {
		state := testState(t, tc.state)
		config := tfsdk.Config{Schema: testSchema, Raw: testValues(t, tc.config)}
		plan := tfsdk.Plan{Schema: testSchema, Raw: config.Raw}
		var prior, configured types.Int64
		state.GetAttribute(context.Background(), path.Root("version"), &prior)
		config.GetAttribute(context.Background(), path.Root("version"), &configured)
		req := planmodifier.Int64Request{State: state, Config: config, Plan: plan, StateValue: prior, ConfigValue: configured,
			PlanValue: configured}
		resp := &planmodifier.Int64Response{PlanValue: configured}
		m.PlanModifyInt64(context.Background(), req, resp)
		if resp.RequiresReplace != tc.replace || resp.Diagnostics.HasError() {
			t.Errorf("%s: replace %v (%v), want %v", tc.name, resp.RequiresReplace, resp.Diagnostics, tc.replace)
		}
	}
}
