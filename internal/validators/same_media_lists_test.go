package validators

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestSameMediaLists(t *testing.T) {
	t.Parallel()
	list := func(elems ...attr.Value) types.List { return types.ListValueMust(types.StringType, elems) }
	s := types.StringValue
	const signed = "https://bucket.s3.amazonaws.com/cat.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=k&" +
		"X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=abc"
	for _, tc := range []struct {
		name string
		a, b attr.Value
		same bool
	}{
		{"equal", list(s("https://x.example.com/a.png")), list(s("https://x.example.com/a.png")), true},
		{"another signature", list(s(signed)), list(s("https://bucket.s3.amazonaws.com/cat.png")), true},
		{"other media", list(s("https://x.example.com/a.png")), list(s("https://x.example.com/b.png")), false},
		{"other order", list(s("https://x.example.com/a.png"), s("https://x.example.com/b.png")),
			list(s("https://x.example.com/b.png"), s("https://x.example.com/a.png")), false},
		{"other length", list(s("https://x.example.com/a.png")), list(), false},
		{"both empty", list(), list(), true},
		{"an unknown element", list(types.StringUnknown()), list(types.StringUnknown()), false},
		{"a null list names no media", types.ListNull(types.StringType), list(), true},
		{"not a list", s("https://x.example.com/a.png"), s("https://x.example.com/a.png"), false},
	} {
		if got := SameMediaLists(tc.a, tc.b); got != tc.same {
			t.Errorf("%s: SameMediaLists = %v, want %v", tc.name, got, tc.same)
		}
	}
}
