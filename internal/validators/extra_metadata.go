package validators

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ validator.String = ExtraMetadata{}

// ExtraMetadata reads and checks vendor parameters that the provider does not
// type: null or a JSON object whose keys have no argument of their own.
type ExtraMetadata struct {
	// Typed are the members of metadata that have an argument of their own
	// (member -> the arguments), which vendor parameters must not set behind the
	// argument's back.
	Typed map[string]string
}

// Parse reads v as a JSON object of vendor parameters; null and unknown read as none.
func (e ExtraMetadata) Parse(v types.String) (map[string]json.RawMessage, error) {
	if v.IsNull() || v.IsUnknown() {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(v.ValueString()))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil || obj == nil || dec.More() {
		return nil, errors.New("extra_metadata must be a JSON object, such as jsonencode({ first_frame_image = \"https://...\" })")
	}
	var rejected []string
	for k := range obj {
		if arg, ok := e.Typed[k]; ok {
			rejected = append(rejected, fmt.Sprintf("%q (use the %s argument)", k, arg))
		}
	}
	if len(rejected) > 0 {
		sort.Strings(rejected)
		return nil, fmt.Errorf("extra_metadata sets metadata that this resource types itself: %s. Typed arguments are "+
			"validated at plan time and compared with the service's echo; extra_metadata is for the parameters they don't cover",
			strings.Join(rejected, ", "))
	}
	return obj, nil
}

// FrameModeKeys says whether vendor parameters ask for first/last-frame mode, which
// the service refuses together with reference images. The service does not name
// these parameters, so any key that mentions a first or last frame counts.
func FrameModeKeys(extra map[string]json.RawMessage) []string {
	var keys []string
	for k, raw := range extra {
		lower := strings.ToLower(k)
		if (strings.Contains(lower, "first_frame") || strings.Contains(lower, "last_frame") ||
			strings.Contains(lower, "frame_mode")) && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func (ExtraMetadata) Description(context.Context) string {
	return "must be a JSON object whose keys have no argument of their own"
}

func (e ExtraMetadata) MarkdownDescription(ctx context.Context) string {
	return e.Description(ctx)
}

func (e ExtraMetadata) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if _, err := e.Parse(req.ConfigValue); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Extra Metadata", err.Error())
	}
}
