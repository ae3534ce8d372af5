package validators

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestOneOf(t *testing.T) {
	t.Parallel()
	v := OneOf("Invalid Resolution", "480p", "720p", "1080p")
	checkString(t, v, "resolution", []stringCase{
		{types.StringValue("720p"), ""},
		{types.StringValue("1080p"), ""},
		{types.StringNull(), ""},
		{types.StringUnknown(), ""},
		{types.StringValue("4k"), `must be one of "480p", "720p", "1080p", got "4k"`},
		{types.StringValue(""), `must be one of "480p", "720p", "1080p", got ""`},
		{types.StringValue("720P"), `write it as "720p", one of "480p", "720p", "1080p"`},
		{types.StringValue(" 720p "), `write it as "720p"`},
	})
	resp := &validator.StringResponse{}
	v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("resolution"),
		ConfigValue: types.StringValue("4k")}, resp)
	if got := resp.Diagnostics[0].Summary(); got != "Invalid Resolution" {
		t.Errorf("summary %q, want the one given", got)
	}
}
