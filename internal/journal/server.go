package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Server is a service that proved it deduplicates submissions by their
// Idempotency-Key: it echoed a submission's key in its answer. A plan that
// says a doubt (a submission whose answer was lost) can then say that
// sending the request again under the earlier key bills nothing new. Most
// video services do not deduplicate, and a plan that said one does when it
// does not would cost a clip unsaid: only such proof, no older than the
// journal's maxAge, counts.
type Server struct {
	// ID is the service's ServerID: the journal never holds its address.
	ID       string    `json:"id"`
	ProvenAt time.Time `json:"proven_at"`
}

// ServerID names a service (its address and API, as a request's
// Fingerprint names it) in the journal.
func ServerID(service string) string {
	sum := sha256.Sum256([]byte("videogen-server\x00" + service))
	return hex.EncodeToString(sum[:])
}
