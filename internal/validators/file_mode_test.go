package validators

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestFileMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value   types.String
		wantErr string
	}{
		{types.StringValue("0644"), ""},
		{types.StringValue("644"), ""},
		{types.StringValue("0400"), ""},
		{types.StringNull(), ""},
		{types.StringUnknown(), ""},
		{types.StringValue("0200"), "does not give the owner 0400"},
		{types.StringValue("4755"), "octal permission string"},
		{types.StringValue("0648"), "octal permission string"},
		{types.StringValue("rw-r--r--"), "octal permission string"},
		{types.StringValue(""), "octal permission string"},
		{types.StringValue("00644"), "octal permission string"},
	}
	v := FileMode(0o400, "to read the file back")
	for _, tt := range tests {
		resp := &validator.StringResponse{}
		v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("file_permission"), ConfigValue: tt.value}, resp)
		switch {
		case tt.wantErr == "" && resp.Diagnostics.HasError():
			t.Errorf("%s: unexpected error %v", tt.value, resp.Diagnostics)
		case tt.wantErr != "" && !resp.Diagnostics.HasError():
			t.Errorf("%s: accepted, want an error", tt.value)
		case tt.wantErr != "" && !strings.Contains(resp.Diagnostics[0].Detail(), tt.wantErr):
			t.Errorf("%s: detail %q does not mention %q", tt.value, resp.Diagnostics[0].Detail(), tt.wantErr)
		}
	}
}

func TestParseFileMode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]uint32{"0644": 0o644, "755": 0o755, "0000": 0} {
		got, err := ParseFileMode(in)
		if err != nil || uint32(got) != want {
			t.Errorf("ParseFileMode(%q) = %o, %v; want %o", in, got, err, want)
		}
	}
}
