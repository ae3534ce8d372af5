package journal

import "time"

// Entry is one submitted task that no state is known to hold yet.
type Entry struct {
	TaskID string `json:"task_id"`
	// Fingerprint identifies the request (service address, arguments and
	// triggers) that created the task; the journal never holds the request itself.
	Fingerprint string    `json:"fingerprint"`
	SubmittedAt time.Time `json:"submitted_at"`
	// State identifies the Terraform state the task was created for (see
	// CurrentState); empty in an entry an older provider wrote.
	State string `json:"state,omitempty"`
	// Run is the run that wrote or adopted the entry; empty in an entry an
	// older provider wrote.
	Run string `json:"run,omitempty"`
	// Process says, for people, which process the run was: its ID and host.
	Process string `json:"process,omitempty"`
	// RunEnded is set when the run's provider ended normally: it answered the
	// task to Terraform. That is not proof that Terraform saved it (it stops a
	// provider once the provider's last resource is done, long before a remote
	// backend receives the state), so the entry stays until a state is seen
	// holding the task; it only says why a later run found it.
	RunEnded bool `json:"run_ended,omitempty"`
}
