package validators

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// SameMediaLists compares two lists of reference URLs element by element by
// SameMedia, the one rule for reference media. A null list names no media; a
// list with an unknown or null element, or anything but a list, is not the same
// as anything.
func SameMediaLists(a, b attr.Value) bool {
	ae, be := knownStrings(a), knownStrings(b)
	if ae == nil || be == nil || len(ae) != len(be) {
		return false
	}
	for i := range ae {
		if !SameMedia(ae[i], be[i]) {
			return false
		}
	}
	return true
}

// knownStrings returns the elements of a list of known strings, nil for anything else.
func knownStrings(v attr.Value) []string {
	l, ok := v.(types.List)
	if !ok {
		return nil
	}
	out := []string{}
	for _, e := range l.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			return nil
		}
		out = append(out, s.ValueString())
	}
	return out
}
