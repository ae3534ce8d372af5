package validators

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func accepts(v validator.String, s string) bool {
	resp := &validator.StringResponse{}
	v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("x"), ConfigValue: types.StringValue(s)}, resp)
	return !resp.Diagnostics.HasError()
}

// FuzzPlanTimeParsing holds the plan-time checks to what the service takes: an
// accepted length or ratio is a number a service reads as a 32-bit integer, written
// one way only, and a citation is always a piece of the prompt.
func FuzzPlanTimeParsing(f *testing.F) {
	for _, s := range []string{"8", "08", "0", "2147483648", "16:9", "016:09", "0:1", "me@image1.com (@image2)", "@image9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if accepts(Seconds(), s) {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil || n < 1 || n > math.MaxInt32 || strconv.FormatUint(n, 10) != s {
				t.Fatalf("Seconds accepted %q", s)
			}
		}
		if accepts(Ratio(), s) {
			w, h, _ := strings.Cut(s, ":")
			for _, part := range []string{w, h} {
				n, err := strconv.ParseUint(part, 10, 64)
				if err != nil || n < 1 || n > math.MaxInt32 || strconv.FormatUint(n, 10) != part {
					t.Fatalf("Ratio accepted %q", s)
				}
			}
			if !SameRatio(s, s) {
				t.Fatalf("SameRatio(%q, itself) = false", s)
			}
		}
		for _, c := range ImageCitations(s) {
			if !strings.Contains(s, c.Text) || !strings.HasPrefix(c.Text, "@image") || c.N < 0 {
				t.Fatalf("ImageCitations(%q) gave %+v", s, c)
			}
		}
	})
}
