package validators

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestSeconds(t *testing.T) {
	t.Parallel()
	checkString(t, Seconds(), "seconds", []stringCase{
		{types.StringValue("8"), ""},
		{types.StringValue("1"), ""},
		{types.StringValue("10"), ""},
		{types.StringValue("2147483647"), ""},
		{types.StringNull(), ""},
		{types.StringUnknown(), ""},
		{types.StringValue("0"), "1 or more"},
		{types.StringValue("000"), "1 or more"},
		{types.StringValue("08"), `without leading zeros, as "8"`},
		{types.StringValue("0010"), `as "10"`},
		{types.StringValue("2147483648"), "largest number accepted is 2147483647"},
		{types.StringValue("99999999999999999999"), "more than the service can take"},
		{types.StringValue("eight"), "whole number of seconds"},
		{types.StringValue("-3"), "whole number of seconds"},
		{types.StringValue("+3"), "whole number of seconds"},
		{types.StringValue("8.5"), "whole number of seconds"},
		{types.StringValue(" 8"), "whole number of seconds"},
		{types.StringValue("８"), "whole number of seconds"},
		{types.StringValue(""), "whole number of seconds"},
	})
}
