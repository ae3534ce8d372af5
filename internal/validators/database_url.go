package validators

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// DatabaseURL accepts a postgres:// or postgresql:// URL, the form of the pg
// backend's conn_str. Its messages never quote the value: it holds a password.
// Unknown and null values pass.
func DatabaseURL() validator.String { return databaseURLValidator{} }

type databaseURLValidator struct{}

func (databaseURLValidator) Description(context.Context) string {
	return "value must be a postgres:// or postgresql:// URL"
}

func (v databaseURLValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (databaseURLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := CheckDatabaseURL(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Journal URL",
			fmt.Sprintf("Attribute %s %s, such as postgres://user:password@db.example.com:5432/terraform (the value is "+
				"not shown: it may hold a password).", req.Path, err))
	}
}

// CheckDatabaseURL explains why raw is not a postgres:// or postgresql:// URL,
// or returns nil, without quoting raw.
func CheckDatabaseURL(raw string) error {
	scheme, _, ok := strings.Cut(raw, "://")
	if !ok || (scheme != "postgres" && scheme != "postgresql") {
		return fmt.Errorf("must be a postgres:// or postgresql:// URL")
	}
	if strings.TrimSpace(raw) != raw {
		return fmt.Errorf("must be a postgres:// or postgresql:// URL without surrounding spaces")
	}
	if _, err := url.Parse(raw); err != nil {
		return fmt.Errorf("must be a postgres:// or postgresql:// URL that parses (in the user information, write " +
			"characters such as @, : or / in the password percent-encoded)")
	}
	return nil
}
