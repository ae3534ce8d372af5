package provider

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

// typedMetadataKeys are the members of metadata that have an argument of their own
// (member -> the arguments), which extra_metadata must not set behind the
// argument's back. They are read from the table at init, since the table's own
// extra_metadata row parses with them.
var typedMetadataKeys = map[string]string{}

func init() {
	for _, a := range clipArguments {
		if member, ok := strings.CutPrefix(a.request[apiVideoGenerations].member, "metadata."); ok {
			key, _, _ := strings.Cut(member, "[")
			typedMetadataKeys[key] = strings.TrimPrefix(typedMetadataKeys[key]+" or "+a.name, " or ")
		}
	}
}

// parseExtraMetadata reads extra_metadata: null or a JSON object whose keys have no
// argument of their own.
func parseExtraMetadata(v types.String) (map[string]json.RawMessage, error) {
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
		if arg, ok := typedMetadataKeys[k]; ok {
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

// frameModeKeys says whether vendor parameters ask for first/last-frame mode, which
// the service refuses together with reference images. The service does not name
// these parameters, so any key that mentions a first or last frame counts.
func frameModeKeys(extra map[string]json.RawMessage) []string {
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

type extraMetadataValidator struct{}

var _ validator.String = extraMetadataValidator{}

func (extraMetadataValidator) Description(context.Context) string {
	return "must be a JSON object whose keys have no argument of their own"
}

func (v extraMetadataValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (extraMetadataValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if _, err := parseExtraMetadata(req.ConfigValue); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Extra Metadata", err.Error())
	}
}
