package planmodifiers

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// testSchema is a resource like videogen_video, with the attributes these
// modifiers read: a marker that import leaves null, a version, a stored list
// and its write-only twin.
var testSchema = schema.Schema{Attributes: map[string]schema.Attribute{
	"model":      schema.StringAttribute{Optional: true},
	"ratio":      schema.StringAttribute{Optional: true, Computed: true},
	"version":    schema.Int64Attribute{Optional: true},
	"media":      schema.ListAttribute{Optional: true, Computed: true, ElementType: types.StringType},
	"media_wo":   schema.ListAttribute{Optional: true, WriteOnly: true, ElementType: types.StringType},
	"unrelated":  schema.StringAttribute{Optional: true},
	"unrelated2": schema.ListAttribute{Optional: true, ElementType: types.StringType},
}}

var testList = tftypes.List{ElementType: tftypes.String}

// testValues is an object of testSchema: the attributes given, the rest null.
func testValues(t *testing.T, values map[string]tftypes.Value) tftypes.Value {
	t.Helper()
	typ, ok := testSchema.Type().TerraformType(context.Background()).(tftypes.Object)
	if !ok {
		t.Fatal("the test schema is not an object")
	}
	all := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		all[name] = tftypes.NewValue(at, nil)
		if v, ok := values[name]; ok {
			all[name] = v
		}
	}
	return tftypes.NewValue(typ, all)
}

func testState(t *testing.T, values map[string]tftypes.Value) tfsdk.State {
	t.Helper()
	if values == nil {
		return tfsdk.State{Schema: testSchema, Raw: tftypes.NewValue(testSchema.Type().TerraformType(context.Background()), nil)}
	}
	return tfsdk.State{Schema: testSchema, Raw: testValues(t, values)}
}

func testStrings(urls ...string) tftypes.Value {
	if urls == nil {
		return tftypes.NewValue(testList, nil)
	}
	elems := []tftypes.Value{}
	for _, u := range urls {
		elems = append(elems, tftypes.NewValue(tftypes.String, u))
	}
	return tftypes.NewValue(testList, elems)
}
