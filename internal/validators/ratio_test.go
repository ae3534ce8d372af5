package validators

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestRatio(t *testing.T) {
	t.Parallel()
	checkString(t, Ratio(), "ratio", []stringCase{
		{types.StringValue("16:9"), ""},
		{types.StringValue("9:16"), ""},
		{types.StringValue("1:1"), ""},
		{types.StringValue("21:9"), ""},
		{types.StringValue("2147483647:1"), ""},
		{types.StringNull(), ""},
		{types.StringUnknown(), ""},
		{types.StringValue("016:09"), `write it without leading zeros, as "16:9"`},
		{types.StringValue("16:09"), `as "16:9"`},
		{types.StringValue("0:1"), "positive whole numbers"},
		{types.StringValue("1:00"), "positive whole numbers"},
		{types.StringValue("2147483648:1"), "more than the service can take"},
		{types.StringValue("1:99999999999999999999"), "more than the service can take"},
		{types.StringValue("16x9"), "W:H"},
		{types.StringValue("16:9:1"), "W:H"},
		{types.StringValue(":9"), "W:H"},
		{types.StringValue("16:"), "W:H"},
		{types.StringValue("-16:9"), "W:H"},
		{types.StringValue("16 : 9"), "W:H"},
		{types.StringValue("1.5:1"), "W:H"},
		{types.StringValue(""), "W:H"},
	})
}

func TestSameRatio(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"16:9", "16:9", true},
		{"016:09", "16:9", true},
		{" 16:9 ", "16:9", true},
		{"32:18", "16:9", true},
		{"99999999999999999999:1", "199999999999999999998:2", true},
		{"16:9", "9:16", false},
		{"16:9", "16:10", false},
		{"16:9", "", false},
		{"", "", true},
		{"wide", "wide", true},
		{"wide", "16:9", false},
		{"0:0", "0:0", true},
		{"0:1", "0:2", false},
	}
	for _, tt := range tests {
		if got := SameRatio(tt.a, tt.b); got != tt.want {
			t.Errorf("SameRatio(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := SameRatio(tt.b, tt.a); got != tt.want {
			t.Errorf("SameRatio(%q, %q) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}
