package validators

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestHTTPURL(t *testing.T) {
	t.Parallel()
	checkString(t, HTTPURL(), "callback_url", []stringCase{
		{types.StringValue("https://hooks.example.com/videogen"), ""},
		{types.StringValue("http://127.0.0.1:8080/v1"), ""},
		{types.StringNull(), ""},
		{types.StringUnknown(), ""},
		{types.StringValue("hooks.example.com/x"), "absolute http or https URL"},
		{types.StringValue("ftp://files.example.com/a"), `scheme "ftp"`},
		{types.StringValue("https:///path"), "with a host"},
		{types.StringValue(" https://x.example.com"), "without surrounding spaces"},
		{types.StringValue(""), "absolute http or https URL"},
		{types.StringValue("http://[::1"), "does not parse"},
		{types.StringValue("api.example.com"), `"api.example.com" has no scheme; add https:// in front, as in "https://api.example.com"`},
		{types.StringValue("localhost:8080/v1"), `as in "https://localhost:8080/v1" (or http://`},
		{types.StringValue("//api.example.com/v1"), `as in "https://api.example.com/v1"`},
		{types.StringValue("user:pw@api.example.com"), `as in "https://api.example.com"`},
	})
}
