package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
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
//   - the backend `init` recorded (its type and settings, without the values
//     of its secrets: see withoutSecrets), so that fresh runners with the same
//     backend name the same state;
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
		key.Config, _ = json.Marshal(withoutSecrets(b.Config)) // map keys sorted: the same settings give the same key
	} else {
		key.Backend = "local"
		if b != nil {
			key.Config, _ = json.Marshal(withoutSecrets(b.Config))
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

// withoutSecrets is a backend's settings with the value of every secret left
// out, so that the journal, which stores the hash of the state's name, holds
// nothing a short password could be guessed back from: a setting named like a
// secret (password, secret_key, token, sas_token, credentials, ...) counts only
// as being set, and a connection string (pg's conn_str) loses its password,
// whether written as a URL or as key=value words. Settings that differ only in
// a secret name the same state, which they are: the same store reached with
// other credentials.
func withoutSecrets(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if e != nil && isSecretSetting(k) {
				out[k] = "(set)"
				continue
			}
			out[k] = withoutSecrets(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = withoutSecrets(e)
		}
		return out
	case string:
		return withoutPassword(v)
	default:
		return v
	}
}

var secretSettingWords = []string{"password", "secret", "token", "credential", "access_key", "encryption_key", "sas", "private_key"}

func isSecretSetting(name string) bool {
	name = strings.ToLower(name)
	for _, w := range secretSettingWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// keywordPassword matches a libpq keyword/value password ("password=s3cret",
// "password = 'a b'").
var keywordPassword = regexp.MustCompile(`(?i)(\w*password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

func withoutPassword(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "")
		}
		q := u.Query()
		for k := range q {
			if strings.Contains(strings.ToLower(k), "password") {
				q.Del(k)
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	return keywordPassword.ReplaceAllString(s, "${1}")
}
