package apidiag

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// UnknownModel is the detail of "Unknown Model": the model the plan asks for
// is not in the list of models the key may use (ids). It names the model one
// edit away, if one is, and the models there are, or the five closest of a
// long list.
func UnknownModel(want string, ids []string) string {
	if len(ids) == 0 {
		return fmt.Sprintf("Model %q is not available: GET /v1/models lists no models for this API key. Check that the key "+
			"may use video models.", want)
	}
	meant := ""
	if near := client.ModelsOneEditAway(want, ids); len(near) > 0 {
		quoted := make([]string, len(near))
		for i, id := range near {
			quoted[i] = strconv.Quote(id)
		}
		meant = fmt.Sprintf(" Did you mean %s?", strings.Join(quoted, " or "))
	}
	listed := ids
	label := "Models available to this API key"
	if len(ids) > 15 {
		listed, label = client.ClosestModels(want, ids, 5), "Closest models available to this API key"
	}
	return fmt.Sprintf("Model %q is not in the service's model list for this API key (IDs must match exactly).%s %s: %s. "+
		"The videogen_models data source lists them all.", want, meant, label, strings.Join(listed, ", "))
}
