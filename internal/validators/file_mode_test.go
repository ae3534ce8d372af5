package validators

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestFileMode(t *testing.T) {
	t.Parallel()
	checkString(t, FileMode(0o400, "to read the file back"), "file_permission", []stringCase{
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
	})
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
