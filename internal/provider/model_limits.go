package provider

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

// The checks of clip arguments against what a model's record in GET /v1/models
// publishes (client.ModelLimits), each named by its row of the clip-argument
// table and run at plan. Each is handed a known, non-null value of its row's
// own type.

// offeredBy checks a known, non-null value of a clip argument against the
// limits its model's record publishes: the error's summary and detail when the
// model does not offer the value, "" when it does or the record does not say.
// source begins the detail; model is the model's ID.
type offeredBy func(v attr.Value, l client.ModelLimits, source, model string) (summary, detail string)

// afterLimit ends an error of a limit: what to do.
const afterLimit = "Change it, or leave it unset for the model's default. Nothing has been submitted."

func secondsOffered(v attr.Value, l client.ModelLimits, source, model string) (string, string) {
	s, _ := v.(types.String)
	n, err := strconv.ParseInt(s.ValueString(), 10, 64)
	switch {
	case err != nil:
	case len(l.Seconds) > 0 && !slices.Contains(l.Seconds, n):
		return "Clip Length Not Offered by Model", fmt.Sprintf("%s the clip lengths model %q makes: %s seconds; "+
			"seconds is %d. %s", source, model, joinInts(l.Seconds), n, afterLimit)
	case l.MaxSeconds > 0 && n > l.MaxSeconds:
		return "Clip Too Long for Model", fmt.Sprintf("%s a maximum of %d seconds for model %q; seconds is %d. %s",
			source, l.MaxSeconds, model, n, afterLimit)
	}
	return "", ""
}

func resolutionOffered(v attr.Value, l client.ModelLimits, source, model string) (string, string) {
	s, _ := v.(types.String)
	r := s.ValueString()
	if len(l.Resolutions) == 0 || slices.ContainsFunc(l.Resolutions, func(o string) bool { return strings.EqualFold(o, r) }) {
		return "", ""
	}
	return "Resolution Not Offered by Model", fmt.Sprintf("%s the resolutions of model %q: %s; resolution is %q. %s",
		source, model, strings.Join(l.Resolutions, ", "), r, afterLimit)
}

func ratioOffered(v attr.Value, l client.ModelLimits, source, model string) (string, string) {
	s, _ := v.(types.String)
	r := s.ValueString()
	if len(l.Ratios) == 0 || slices.ContainsFunc(l.Ratios, func(o string) bool { return validators.SameRatio(o, r) }) {
		return "", ""
	}
	return "Ratio Not Offered by Model", fmt.Sprintf("%s the aspect ratios of model %q: %s; ratio is %q. %s",
		source, model, strings.Join(l.Ratios, ", "), r, afterLimit)
}

func audioOffered(v attr.Value, l client.ModelLimits, source, model string) (string, string) {
	if b, _ := v.(types.Bool); !b.ValueBool() || l.Audio == nil || *l.Audio {
		return "", ""
	}
	return "Audio Not Offered by Model", fmt.Sprintf("%s that model %q does not generate audio; generate_audio is "+
		"true. Set it to false or leave it unset, or choose a model that does. Nothing has been submitted.", source, model)
}

func joinInts(ns []int64) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(out, ", ")
}
