package videofile

import "github.com/videogen/terraform-provider-videogen/internal/localfile"

// knownClips is what this provider process knows of the clips that
// videogen_video_file resources being replaced wrote (see localfile.Known);
// nil, which knows nothing, before the provider is configured.
func (r *videoFileResource) knownClips() *localfile.Known {
	if r.data == nil {
		return nil
	}
	return r.data.KnownClips()
}
