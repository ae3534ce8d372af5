package validators

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestPromptCitations(t *testing.T) {
	t.Parallel()
	v := PromptCitations{Prompt: "prompt", Images: []string{"reference_images_wo", "reference_images"}}
	list := tftypes.List{ElementType: tftypes.String}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	for _, tc := range []struct {
		name            string
		prompt          tftypes.Value
		stored, written tftypes.Value
		want            []string // fragments of the errors, in order; none when the configuration is valid
	}{
		{"cited and there", str("@image1 and @image2"), testImages("a", "b"), testImages(), nil},
		{"beyond the list", str("@image1 meets @image3"), testImages("a", "b"), testImages(),
			[]string{"cites @image3, but reference_images has 2 element(s)"}},
		{"write-only list preferred", str("@image2"), testImages("a", "b"), testImages("a"),
			[]string{"cites @image2, but reference_images_wo has 1 element(s)"}},
		{"no list", str("see @image1"), testImages(), testImages(), []string{"cites @image1, but reference_images has 0 element(s)"}},
		{"zero", str("@image0"), testImages("a"), testImages(), []string{"image citations start at @image1 (the first element of reference_images)"}},
		{"an address", str("mail me@image1.com"), testImages(), testImages(), nil},
		{"unknown prompt", tftypes.NewValue(tftypes.String, tftypes.UnknownValue), testImages(), testImages(), nil},
		{"unknown list", str("@image4"), tftypes.NewValue(list, tftypes.UnknownValue), testImages(), nil},
	} {
		config := testConfig(t, map[string]schema.Attribute{
			"prompt":              schema.StringAttribute{Optional: true},
			"reference_images":    schema.ListAttribute{Optional: true, ElementType: types.StringType},
			"reference_images_wo": schema.ListAttribute{Optional: true, ElementType: types.StringType},
		}, map[string]tftypes.Value{"prompt": tc.prompt, "reference_images": tc.stored, "reference_images_wo": tc.written})
		resp := &resource.ValidateConfigResponse{}
		v.ValidateResource(context.Background(), resource.ValidateConfigRequest{Config: config}, resp)
		errs := resp.Diagnostics.Errors()
		if len(errs) != len(tc.want) {
			t.Errorf("%s: %d errors (%v), want %d", tc.name, len(errs), errs, len(tc.want))
			continue
		}
		for i, want := range tc.want {
			if !strings.Contains(errs[i].Detail(), want) {
				t.Errorf("%s: error %q lacks %q", tc.name, errs[i].Detail(), want)
			}
		}
	}
}
