package journal

import "time"

// Unconfirmed is a submission that may have created a task although no task ID
// came back: a gateway failed after forwarding it, the run was interrupted or
// killed while it was in flight, or the answer held no task.
type Unconfirmed struct {
	// ID names the note (random), for the run that wrote it to settle it.
	ID          string    `json:"id,omitempty"`
	Fingerprint string    `json:"fingerprint"`
	SubmittedAt time.Time `json:"submitted_at"`
	State       string    `json:"state,omitempty"`
	Run         string    `json:"run,omitempty"`
	// SaidBy is the run that said the doubt before it submitted the request
	// again; the note goes when that run ends normally, so that every plan of
	// the run, and no later run, says it.
	SaidBy string `json:"said_by,omitempty"`
}

// Ticket names a note written by Sending, for Sent or NotSent to settle it.
// The zero Ticket names no note.
type Ticket string

// idempotencyPrefix names the provider's keys among a server's.
const idempotencyPrefix = "videogen-"

// IdempotencyKey is the Idempotency-Key of the submission this ticket
// noted; none for a submission that could not be noted.
func (t Ticket) IdempotencyKey() string {
	if t == "" {
		return ""
	}
	return idempotencyPrefix + string(t)
}

// IdempotencyKey is the Idempotency-Key the noted submission was sent with,
// which sending it again keeps.
func (u Unconfirmed) IdempotencyKey() string { return Ticket(u.ID).IdempotencyKey() }
