// Package validators holds the attribute validators that
// terraform-plugin-framework-validators does not provide.
package validators

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// HTTPURL accepts an absolute http or https URL with a host. Unknown and null
// values pass, so that values from other resources never fail validation.
func HTTPURL() validator.String { return httpURLValidator{} }

type httpURLValidator struct{}

func (httpURLValidator) Description(context.Context) string {
	return "value must be an absolute http or https URL"
}

func (v httpURLValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v httpURLValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := CheckHTTPURL(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid URL",
			fmt.Sprintf("Attribute %s %s. Use a full URL such as https://example.com/path.", req.Path, err))
	}
}

// CheckHTTPURL explains why raw is not an absolute http(s) URL, or returns nil.
func CheckHTTPURL(raw string) error {
	if strings.TrimSpace(raw) != raw || raw == "" {
		return fmt.Errorf("must be an absolute http or https URL without surrounding spaces, got %q", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("must be an absolute http or https URL; %q does not parse: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("must be an absolute http or https URL, got %q (scheme %q)", raw, u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("must be an absolute http or https URL with a host, got %q", raw)
	}
	return nil
}
