package provider

import (
	"strings"

	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

// extraMetadata reads extra_metadata. Its typed keys, the members of metadata
// that have an argument of their own, are read from the table at init, since the
// table's own extra_metadata row validates with them.
var extraMetadata = validators.ExtraMetadata{Typed: map[string]string{}}

func init() {
	for _, a := range clipArguments {
		if member, ok := strings.CutPrefix(a.request[apiVideoGenerations].member, "metadata."); ok {
			key, _, _ := strings.Cut(member, "[")
			extraMetadata.Typed[key] = strings.TrimPrefix(extraMetadata.Typed[key]+" or "+a.name, " or ")
		}
	}
}

// frameMode rejects reference images, stored or write-only, beside vendor
// parameters that ask for first/last-frame mode.
var frameMode = validators.FrameMode{ExtraMetadata: "extra_metadata", Parse: extraMetadata,
	Images: []string{"reference_images", "reference_images_wo"}}
