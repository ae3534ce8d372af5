package validators

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// testConfig is a configuration of the schema's attributes, all given.
func testConfig(t *testing.T, attributes map[string]schema.Attribute, values map[string]tftypes.Value) tfsdk.Config {
	t.Helper()
	s := schema.Schema{Attributes: attributes}
	typ := s.Type().TerraformType(context.Background())
	return tfsdk.Config{Schema: s, Raw: tftypes.NewValue(typ, values)}
}

// testImages is a list of strings for testConfig; null when no URL is given.
func testImages(urls ...string) tftypes.Value {
	list := tftypes.List{ElementType: tftypes.String}
	if urls == nil {
		return tftypes.NewValue(list, nil)
	}
	var elems []tftypes.Value
	for _, u := range urls {
		elems = append(elems, tftypes.NewValue(tftypes.String, u))
	}
	return tftypes.NewValue(list, elems)
}

func TestFrameMode(t *testing.T) {
	t.Parallel()
	v := FrameMode{ExtraMetadata: "extra_metadata", Parse: testExtraMetadata, Images: []string{"reference_images", "reference_images_wo"}}
	list := tftypes.List{ElementType: tftypes.String}
	for _, tc := range []struct {
		name            string
		extra           tftypes.Value
		stored, written tftypes.Value
		want            string // a fragment of the error; empty when the configuration is valid
	}{
		{"frames without images", tftypes.NewValue(tftypes.String, `{"first_frame_image":"u"}`), testImages(), testImages(), ""},
		{"images without frames", tftypes.NewValue(tftypes.String, `{"seed":1}`), testImages("u"), testImages(), ""},
		{"frames and stored images", tftypes.NewValue(tftypes.String, `{"first_frame_image":"u"}`), testImages("u"), testImages(),
			"extra_metadata sets first_frame_image, which asks for first/last-frame mode, and reference_images is set too"},
		{"frames and write-only images", tftypes.NewValue(tftypes.String, `{"last_frame":"u"}`), testImages(), testImages("u"),
			"extra_metadata sets last_frame, which asks for first/last-frame mode, and reference_images_wo is set too"},
		{"a null frame", tftypes.NewValue(tftypes.String, `{"first_frame_image":null}`), testImages("u"), testImages(), ""},
		{"an empty list", tftypes.NewValue(tftypes.String, `{"first_frame_image":"u"}`), tftypes.NewValue(list, []tftypes.Value{}), testImages(), ""},
		{"unparsable extra", tftypes.NewValue(tftypes.String, `{"ratio":"1:1","first_frame":"u"}`), testImages("u"), testImages(), ""},
		{"unknown extra", tftypes.NewValue(tftypes.String, tftypes.UnknownValue), testImages("u"), testImages(), ""},
	} {
		config := testConfig(t, map[string]schema.Attribute{
			"extra_metadata":      schema.StringAttribute{Optional: true},
			"reference_images":    schema.ListAttribute{Optional: true, ElementType: types.StringType},
			"reference_images_wo": schema.ListAttribute{Optional: true, ElementType: types.StringType},
		}, map[string]tftypes.Value{"extra_metadata": tc.extra, "reference_images": tc.stored, "reference_images_wo": tc.written})
		resp := &resource.ValidateConfigResponse{}
		v.ValidateResource(context.Background(), resource.ValidateConfigRequest{Config: config}, resp)
		switch {
		case tc.want == "" && resp.Diagnostics.HasError():
			t.Errorf("%s: unexpected error %v", tc.name, resp.Diagnostics)
		case tc.want != "" && (!resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics[0].Detail(), tc.want)):
			t.Errorf("%s: diagnostics %v, want an error saying %q", tc.name, resp.Diagnostics, tc.want)
		}
	}
}
