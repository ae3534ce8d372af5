package acctest

import (
	"regexp"
	"strings"
)

// Wrapped matches words in order, across the line breaks with which Terraform
// wraps diagnostics. A check that a phrase is absent uses it too: strings.Contains
// misses a phrase that a line break splits, and so could never fail.
func Wrapped(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.Join(strings.Fields(regexp.QuoteMeta(p)), `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}
