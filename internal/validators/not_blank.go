package validators

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

var notBlankPattern = regexp.MustCompile(`\S`)

// NotBlank rejects a string of white space only, such as a prompt or a path.
func NotBlank() validator.String {
	return stringvalidator.RegexMatches(notBlankPattern, "must not be blank")
}
