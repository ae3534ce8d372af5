// Package localfile writes downloaded files to the local disk and checks the
// files already there. It owns everything that touches the file system for a
// clip: making the parent directories, writing to a temporary file beside the
// target and renaming it into place (so that no reader ever sees half a clip),
// the SHA-256 taken on the way, and telling an MP4 video from an error page saved
// in its place. It knows neither HTTP nor Terraform.
package localfile
