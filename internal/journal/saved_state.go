package journal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// savedState is the copy of the state CurrentState names that Terraform
// saved, as its backend keeps it, read by the provider: it proves that the
// state holds a task even when no resource of the plan holds it. A plan with
// -target neither reads nor plans the resources it does not target (it sends
// the provider nothing about them), so their tasks are never removed from the
// journal by a Read, and a new identical clip would adopt the task another
// address holds. A state that does not hold a task (yet) proves nothing:
// Terraform may have been killed before it saved the task there, which is
// what the journal is for. The local backend's file, the pg backend's table,
// the s3 and gcs backends' objects and the http backend's address are read;
// other backends' states are not, nor a state whose backend has a setting the
// reader does not follow, nor one whose read fails: their tasks wait for a
// Read, as the plan says (see CONTRIBUTING.md, "Targeted plans").
type savedState interface {
	// heldTasks returns the tasks the saved state holds in videogen_video
	// resources; nil when it cannot tell (a failed read proves nothing).
	heldTasks(ctx context.Context) map[string]bool
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
	case !b.followed():
		return nil
	case b.Type == "pg":
		return currentPgState(b)
	case b.Type == "s3":
		return currentS3State(b)
	case b.Type == "gcs":
		return currentGCSState(b)
	case b.Type == "http":
		return currentHTTPState(b)
	}
	return nil
}

// readSettings names, for each backend whose state is read, the settings its
// reader follows or that do not change what a read of the state finds (its
// locking, its retries, checks it skips). A backend with any other setting
// set (a role to assume, a key to decrypt with, one a newer CLI added) is not
// read: the reader would not reach the state as the backend does.
var readSettings = map[string][]string{
	"pg":   {"conn_str", "schema_name", "skip_schema_creation", "skip_table_creation", "skip_index_creation"},
	"s3":   s3Settings,
	"gcs":  gcsSettings,
	"http": httpSettings,
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

// followed reports whether every setting the backend has is one its
// reader follows (see readSettings); an unset setting is recorded as null,
// and an empty or false one changes nothing either.
func (b *recordedBackend) followed() bool {
	known, ok := readSettings[b.Type]
	if !ok {
		return false
	}
	for name, v := range b.Config {
		switch v := v.(type) {
		case nil:
			continue
		case string:
			if v == "" {
				continue
			}
		case bool:
			if !v {
				continue
			}
		case []any:
			if len(v) == 0 {
				continue
			}
		case map[string]any:
			if len(v) == 0 {
				continue
			}
		}
		if !slices.Contains(known, name) {
			return false
		}
	}
	return true
}

// setting is the backend's string setting name; empty when unset (or not a string).
func (b *recordedBackend) setting(name string) string {
	if b == nil {
		return ""
	}
	v, _ := b.Config[name].(string)
	return v
}

// settingOrEnv is the backend's string setting name, else the first of the
// environment variables the backend reads in its place that is set.
func (b *recordedBackend) settingOrEnv(name string, env ...string) string {
	if v := b.setting(name); v != "" {
		return v
	}
	for _, e := range env {
		if v := os.Getenv(e); v != "" {
			return v
		}
	}
	return ""
}

// flag is the backend's bool setting name; false when unset (or not a bool).
func (b *recordedBackend) flag(name string) bool {
	if b == nil {
		return false
	}
	v, _ := b.Config[name].(bool)
	return v
}

// readOnce keeps what the first read of a remote state found: the state as
// it was before this run, which the state lock keeps every other run from
// changing meanwhile.
type readOnce struct {
	once sync.Once
	held map[string]bool
}

func (r *readOnce) get(ctx context.Context, read func(context.Context) map[string]bool) map[string]bool {
	r.once.Do(func() { r.held = read(ctx) })
	return r.held
}

// paths is the backend's list of file paths name, each with a leading ~/
// expanded, as the backends do; nil when unset.
func (b *recordedBackend) paths(name string) []string {
	if b == nil {
		return nil
	}
	list, _ := b.Config[name].([]any)
	var out []string
	for _, v := range list {
		if p, ok := v.(string); ok && p != "" {
			out = append(out, expandHome(p))
		}
	}
	return out
}

// expandHome is path p with a leading ~/ taken as the user's home.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
