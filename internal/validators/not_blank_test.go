package validators

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestNotBlank(t *testing.T) {
	t.Parallel()
	checkString(t, NotBlank(), "prompt", []stringCase{
		{value: types.StringNull()},
		{value: types.StringUnknown()},
		{value: types.StringValue("a fox at dawn")},
		{value: types.StringValue(" x ")},
		{value: types.StringValue(""), wantErr: "must not be blank"},
		{value: types.StringValue(" \t\n"), wantErr: "must not be blank"},
	})
}
