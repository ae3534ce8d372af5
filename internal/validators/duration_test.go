package validators

import (
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestDuration(t *testing.T) {
	t.Parallel()
	checkString(t, Duration(time.Second), "request_timeout", []stringCase{
		{types.StringValue("30s"), ""},
		{types.StringValue("1s"), ""},
		{types.StringValue("2m"), ""},
		{types.StringNull(), ""},
		{types.StringUnknown(), ""},
		{types.StringValue("500ms"), "at least 1s"},
		{types.StringValue("30"), "duration such as"},
		{types.StringValue("soon"), "duration such as"},
		{types.StringValue("-5s"), "at least 1s"},
	})
}
