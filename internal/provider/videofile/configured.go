package videofile

import (
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// Configured is what videogen_video_file needs of the configured provider,
// which the provider's data satisfies: the client, and what this provider
// process knows of the run's clip files (Terraform starts one process for one
// plan or one apply, so these live as long as the run).
type Configured interface {
	// Client speaks to the service; the file resource only reads tasks and
	// downloads their clips, never submits one.
	Client() *client.Client
	// KnownClips is what this process knows of the clips that
	// videogen_video_file resources being replaced wrote.
	KnownClips() *localfile.Known
	// PlannedPaths holds the file each videogen_video_file of this plan
	// plans to hold (claimPath).
	PlannedPaths() *localfile.Claims
	// TaskModel is the model the videogen_video of taskID names, "" when no
	// videogen_video of this process read or created it: the service does
	// not say it, and a stored object's metadata names it.
	TaskModel(taskID string) string
	// ClipLost says whether a videogen_video read in this process found that
	// the service no longer holds the finished clip of taskID.
	ClipLost(taskID string) bool
}
