package validators

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// ReferenceURLs are the rules of a list of reference media URLs, stored or
// write-only: at most limit of them, no null element, each a RequestURL.
func ReferenceURLs(limit int) []validator.List {
	return []validator.List{
		listvalidator.SizeAtMost(limit),
		NoNullElements(),
		listvalidator.ValueStringsAre(RequestURL()),
	}
}
