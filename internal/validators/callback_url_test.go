package validators

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestCallbackURL(t *testing.T) {
	t.Parallel()
	// Errors first: a callback URL is a request URL.
	checkString(t, CallbackURL(), "callback_url", []stringCase{
		{types.StringValue("https://hooks.example.com/videogen"), ""},
		{types.StringValue("hooks.example.com"), "add https://"},
		{types.StringValue("https://u:p@hooks.example.com/x"), "credentials"},
		{types.StringValue("https://hooks.example.com/a b"), "canonical form"},
	})
	tests := []struct {
		url      string
		wantWarn string // empty for no warning
	}{
		{"https://hooks.example.com/videogen", ""},
		{"https://8.8.8.8/hook", ""},
		{"https://[2001:4860::8888]/hook", ""},
		{"https://localhost/hook", "a name for this machine"},
		{"http://localhost:8080/hook", "a name for this machine"},
		{"https://app.localhost/hook", "a name for this machine"},
		{"https://printer.local/hook", "link-local"},
		{"https://db.internal/hook", "private networks"},
		{"https://nas.home.arpa/hook", "private networks"},
		{"http://127.0.0.1:9000/hook", "a loopback address"},
		{"http://127.9.9.9/hook", "a loopback address"},
		{"http://[::1]/hook", "a loopback address"},
		{"http://[::ffff:127.0.0.1]/hook", "a loopback address"},
		{"http://2130706433/hook", "a loopback address"},
		{"http://0x7f.1/hook", "a loopback address"},
		{"http://0177.0.0.1/hook", "a loopback address"},
		{"http://169.254.169.254/latest/meta-data", "a link-local address"},
		{"http://[fe80::1%25eth0]/hook", "a link-local address"},
		{"http://10.0.0.5/hook", "a private address"},
		{"http://172.16.3.4/hook", "a private address"},
		{"http://192.168.1.10/hook", "a private address"},
		{"http://[fd00::1]/hook", "a private address"},
		{"http://0.0.0.0/hook", "unspecified"},
		{"http://100.64.1.1/hook", "carrier-grade NAT"},
		{"http://LOCALHOST./hook", ""}, // not canonical: rejected before any warning
	}
	for _, tt := range tests {
		resp := &validator.StringResponse{}
		CallbackURL().ValidateString(context.Background(),
			validator.StringRequest{Path: path.Root("callback_url"), ConfigValue: types.StringValue(tt.url)}, resp)
		warnings := resp.Diagnostics.Warnings()
		switch {
		case tt.wantWarn == "" && len(warnings) > 0:
			t.Errorf("%s: unexpected warning %v", tt.url, warnings)
		case tt.wantWarn != "" && resp.Diagnostics.HasError():
			t.Errorf("%s: unexpected error %v", tt.url, resp.Diagnostics)
		case tt.wantWarn != "" && len(warnings) != 1:
			t.Errorf("%s: %d warnings, want one", tt.url, len(warnings))
		case tt.wantWarn != "":
			detail := warnings[0].Detail()
			if !strings.Contains(detail, tt.wantWarn) || !strings.Contains(detail, "callback_url") ||
				!strings.Contains(detail, "cannot") && !strings.Contains(detail, "will not arrive") {
				t.Errorf("%s: warning %q lacks %q, the attribute or why", tt.url, detail, tt.wantWarn)
			}
		}
	}
}

func TestParseLooseIPv4(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"127.0.0.1": "127.0.0.1", "2130706433": "127.0.0.1", "0x7f000001": "127.0.0.1", "127.1": "127.0.0.1",
		"0x7f.0.1": "127.0.0.1", "0177.0.0.01": "127.0.0.1", "10.65535": "10.0.255.255", "192.168.257": "192.168.1.1",
	} {
		got, ok := parseLooseIPv4(in)
		if !ok || got.String() != want {
			t.Errorf("parseLooseIPv4(%q) = %v, %v; want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "example.com", "1.2.3.4.5", "256.1.1.1", "4294967296", "1.2.3.256", "1.2.65536", "0x", "08", "1..2"} {
		if got, ok := parseLooseIPv4(in); ok {
			t.Errorf("parseLooseIPv4(%q) = %v, want no address", in, got)
		}
	}
}
