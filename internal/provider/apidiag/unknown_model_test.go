package apidiag

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestUnknownModel(t *testing.T) {
	t.Parallel()
	few := UnknownModel("kling-2", []string{"videogen-1", "videogen-2"})
	if !regexp.MustCompile(`"kling-2".*exactly\)\. Models available to this API key: videogen-1, videogen-2`).MatchString(few) {
		t.Errorf("short list not shown in full, or a model two edits away offered as meant: %s", few)
	}
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf("studio-model-%02d", i))
	}
	many = append(many, "videogen-2-pro")
	detail := UnknownModel("videogen-2-po", many)
	if !strings.Contains(detail, `Did you mean "videogen-2-pro"? Closest models available to this API key: videogen-2-pro`) {
		t.Errorf("the model one edit away is not offered, or not first: %s", detail)
	}
	if strings.Count(detail, "studio-model-") > 4 {
		t.Errorf("a long list should be cut to the closest five: %s", detail)
	}
	if both := UnknownModel("videogen-3", []string{"videogen-1", "videogen-2"}); !strings.Contains(both,
		`Did you mean "videogen-1" or "videogen-2"?`) {
		t.Errorf("both models one edit away should be offered: %s", both)
	}
	if none := UnknownModel("x", nil); !strings.Contains(none, "lists no models") {
		t.Errorf("empty list: %s", none)
	}
}
