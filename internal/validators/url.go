// Package validators holds the attribute validators that
// terraform-plugin-framework-validators does not provide, and the comparisons by
// meaning that go with them (SameURL, SameRatio), which keep an echo that means the
// same from changing state.
package validators

import (
	"context"
	"errors"
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
// Messages quote only what shownURL keeps of a URL: its user information may hold a
// password.
func CheckHTTPURL(raw string) error {
	if strings.TrimSpace(raw) != raw || raw == "" {
		return fmt.Errorf("must be an absolute http or https URL without surrounding spaces, got %q", shownURL(raw))
	}
	if hint := SchemeHint(raw); hint != "" {
		return errors.New("must be an absolute http or https URL: " + hint)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("must be an absolute http or https URL; %q does not parse: %w", shownURL(raw), errors.Unwrap(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("must be an absolute http or https URL, got %q (scheme %q)", shownURL(raw), u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("must be an absolute http or https URL with a host, got %q", shownURL(raw))
	}
	return nil
}

// SchemeHint explains how to fix a URL written without its scheme, such as
// "api.example.com/v1" or "localhost:8080", or returns "" for any other value. It
// shows only host and path, never user information or a query, which may hold a
// credential.
func SchemeHint(raw string) string {
	if raw == "" || strings.Contains(raw, "://") || strings.HasPrefix(raw, "/") && !strings.HasPrefix(raw, "//") {
		return ""
	}
	guess, err := url.Parse("https://" + strings.TrimPrefix(raw, "//"))
	if err != nil || guess.Host == "" || !strings.Contains(guess.Host, ".") && !strings.Contains(guess.Host, ":") &&
		guess.Hostname() != "localhost" {
		return ""
	}
	given := guess.Host + guess.EscapedPath()
	return fmt.Sprintf("%q has no scheme; add https:// in front, as in %q (or http:// for a service on this machine)",
		given, "https://"+given)
}

// shownURL is raw without its user information, for messages.
func shownURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	if at := strings.LastIndex(raw, "@"); at >= 0 && strings.Contains(raw[:at], "://") {
		scheme, _, _ := strings.Cut(raw, "://")
		return scheme + "://" + raw[at+1:]
	}
	return raw
}
