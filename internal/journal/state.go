package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// CurrentState identifies the Terraform state that the CLI which started this
// provider works on, so that a journal shared by several states (the
// workspaces of one directory, directories that set one journal_path, runners
// on one journal_url) never lets one adopt another's task. Terraform runs its
// providers in its working directory and passes them its environment, and
// `terraform init` records the backend there, so the state is named by:
//   - the workspace: TF_WORKSPACE, else the one `terraform workspace select`
//     recorded in the data directory (TF_DATA_DIR, else .terraform), else
//     "default";
//   - the backend `init` recorded (its type and settings, passwords included,
//     only ever hashed), so that fresh runners with the same backend name the
//     same state;
//   - with no backend recorded (local state), the working directory too.
//
// Settings that a backend reads only from the environment (such as the pg
// backend's PG_CONN_STR) are not recorded by init and so not seen: two states
// that differ only there look alike. The result is a hash: the journal never
// holds a backend's settings.
func CurrentState() string {
	key := struct {
		Workspace string          `json:"workspace"`
		Backend   string          `json:"backend"`
		Config    json.RawMessage `json:"config,omitempty"`
		Dir       string          `json:"dir,omitempty"`
	}{Workspace: workspace()}
	var recorded struct {
		Backend *struct {
			Type   string         `json:"type"`
			Config map[string]any `json:"config"`
		} `json:"backend"`
	}
	if data, err := os.ReadFile(filepath.Join(dataDir(), "terraform.tfstate")); err == nil {
		_ = json.Unmarshal(data, &recorded)
	}
	if b := recorded.Backend; b != nil && b.Type != "" && b.Type != "local" {
		key.Backend = b.Type
		key.Config, _ = json.Marshal(b.Config) // map keys sorted: the same settings give the same key
	} else {
		key.Backend = "local"
		if b != nil {
			key.Config, _ = json.Marshal(b.Config)
		}
		dir, err := os.Getwd()
		if err == nil {
			if resolved, err := filepath.EvalSymlinks(dir); err == nil {
				dir = resolved
			}
		}
		key.Dir = dir
	}
	data, _ := json.Marshal(key) //nolint:errchkjson // strings and a raw message
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

func workspace() string {
	if ws := os.Getenv("TF_WORKSPACE"); ws != "" {
		return ws
	}
	if data, err := os.ReadFile(filepath.Join(dataDir(), "environment")); err == nil {
		if ws := strings.TrimSpace(string(data)); ws != "" {
			return ws
		}
	}
	return "default"
}

func dataDir() string {
	if dir := os.Getenv("TF_DATA_DIR"); dir != "" {
		return dir
	}
	return ".terraform"
}
