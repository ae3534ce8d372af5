package provider

import "github.com/videogen/terraform-provider-videogen/internal/localfile"

// knownClips is what this provider process knows of the clips that
// videogen_video_file resources being replaced wrote (see localfile.Known);
// nil, which knows nothing, before the provider is configured.
func (d *providerData) knownClips() *localfile.Known {
	if d == nil {
		return nil
	}
	return &d.clips
}
