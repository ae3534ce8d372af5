package journal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
)

// savedState is the copy of the state CurrentState names that Terraform
// saved, as its backend keeps it, read by the provider: it proves that the
// state holds a task even when no resource of the plan holds it. A plan with
// -target neither reads nor plans the resources it does not target (it sends
// the provider nothing about them), so their tasks are never removed from the
// journal by a Read, and a new identical clip would adopt the task another
// address holds. A state that does not hold a task (yet) proves nothing:
// Terraform may have been killed before it saved the task there, which is
// what the journal is for. The local backend's file, the pg backend's table
// and the s3 backend's object are read; other backends' states are not, and
// their tasks wait for a Read, as the plan says (see CONTRIBUTING.md, "Targeted plans").
type savedState interface {
	// holds reports whether the saved state holds taskID in a
	// videogen_video; false when it cannot tell.
	holds(ctx context.Context, taskID string) bool
}

// currentSavedState is the saved state of the backend `init` recorded in the
// working directory; nil for a backend whose state the provider cannot read.
func currentSavedState() savedState {
	b, ok := readRecordedBackend()
	switch {
	case !ok:
		return nil
	case b == nil || b.Type == "" || b.Type == "local":
		return currentLocalState(b)
	case b.Type == "pg":
		return currentPgState(b)
	case b.Type == "s3":
		return currentS3State(b)
	}
	return nil
}

// recordedBackend is the backend and settings that `init` recorded.
type recordedBackend struct {
	Type   string         `json:"type"`
	Config map[string]any `json:"config"`
}

// readRecordedBackend reads the backend `init` recorded: nil when none was
// (the local backend by default); false when the record cannot be parsed.
func readRecordedBackend() (*recordedBackend, bool) {
	var recorded struct {
		Backend *recordedBackend `json:"backend"`
	}
	data, err := os.ReadFile(filepath.Join(dataDir(), "terraform.tfstate"))
	if err != nil {
		return nil, true
	}
	if json.Unmarshal(data, &recorded) != nil {
		return nil, false
	}
	return recorded.Backend, true
}

// setting is the backend's string setting name; empty when unset (or not a string).
func (b *recordedBackend) setting(name string) string {
	if b == nil {
		return ""
	}
	v, _ := b.Config[name].(string)
	return v
}

// flag is the backend's bool setting name; false when unset (or not a bool).
func (b *recordedBackend) flag(name string) bool {
	if b == nil {
		return false
	}
	v, _ := b.Config[name].(bool)
	return v
}
