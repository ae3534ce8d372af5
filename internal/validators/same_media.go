package validators

import "github.com/videogen/terraform-provider-videogen/internal/signedurl"

// SameMedia reports whether two reference URLs name the same media: the same URL
// (see SameURL) once the signing parameters of the store that signed each are set
// aside (signedurl.Unsigned), so that a signature rotated on every run is not a new
// image. When in doubt it answers false: a false "different" costs a clip the plan
// shows, a false "same" keeps the wrong clip without a word.
func SameMedia(a, b string) bool {
	return a == b || SameURL(signedurl.Unsigned(a), signedurl.Unsigned(b))
}
