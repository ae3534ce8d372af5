package validators

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

var fileModePattern = regexp.MustCompile(`^0?[0-7]{3}$`)

// ParseFileMode reads an octal permission string such as "0644" or "755". Only
// the nine permission bits are accepted: setuid, setgid and sticky bits are not.
func ParseFileMode(s string) (os.FileMode, error) {
	if !fileModePattern.MatchString(s) {
		return 0, fmt.Errorf("must be an octal permission string of three or four digits, such as \"0644\", got %q", s)
	}
	mode, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0, fmt.Errorf("must be an octal permission string such as \"0644\", got %q: %w", s, err)
	}
	return os.FileMode(mode), nil
}

// FileMode accepts an octal permission string (see ParseFileMode) that grants
// its owner at least ownerNeeds, which the caller describes as why, such as
// "to read the file back".
func FileMode(ownerNeeds os.FileMode, why string) validator.String {
	return fileModeValidator{ownerNeeds: ownerNeeds & 0o700, why: why}
}

type fileModeValidator struct {
	ownerNeeds os.FileMode
	why        string
}

func (v fileModeValidator) Description(context.Context) string {
	return fmt.Sprintf("value must be an octal permission string such as \"0644\" that gives the owner at least %04o", v.ownerNeeds)
}

func (v fileModeValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v fileModeValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	mode, err := ParseFileMode(req.ConfigValue.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Permission",
			fmt.Sprintf("Attribute %s %s.", req.Path, err))
		return
	}
	if mode&v.ownerNeeds != v.ownerNeeds {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Permission",
			fmt.Sprintf("Attribute %s is %q, which does not give the owner %04o (%s) %s. Use a mode such as \"%04o\".",
				req.Path, req.ConfigValue.ValueString(), v.ownerNeeds, v.ownerNeeds, v.why, mode|v.ownerNeeds))
	}
}
