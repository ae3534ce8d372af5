package validators

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestAmount(t *testing.T) {
	t.Parallel()
	checkString(t, Amount(), "max_cost", []stringCase{
		{types.StringValue("25"), ""},
		{types.StringValue("0"), ""},
		{types.StringValue("12.50"), ""},
		{types.StringNull(), ""},
		{types.StringUnknown(), ""},
		{types.StringValue("-1"), "0 or more"},
		{types.StringValue("1e3"), "decimal number"},
		{types.StringValue(".5"), "decimal number"},
		{types.StringValue("5."), "decimal number"},
		{types.StringValue("12 USD"), "decimal number"},
		{types.StringValue(""), "decimal number"},
	})
	if r, ok := ParseAmount("0.30"); !ok || r.FloatString(2) != "0.30" {
		t.Errorf("ParseAmount(0.30) = %v, %v", r, ok)
	}
}
