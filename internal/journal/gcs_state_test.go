package journal

import (
	"os"
	"testing"
)

// The gcs backend's object is <prefix>/<workspace>.tfstate; an impersonated
// service account or a customer-supplied key set in the environment is not
// followed, so nothing is read (nothing is even asked of the server).
func TestGCSStateNamesTheBackendsObject(t *testing.T) {
	for _, tc := range []struct{ workspace, prefix, want string }{
		{"default", "", "default.tfstate"},
		{"default", "/teams/video/", "teams/video/default.tfstate"},
		{"blue", "videogen", "videogen/blue.tfstate"},
	} {
		t.Setenv("TF_WORKSPACE", tc.workspace)
		s := currentGCSState(&recordedBackend{Type: "gcs", Config: map[string]any{"bucket": "b", "prefix": tc.prefix}})
		if s.object != tc.want {
			t.Errorf("workspace %s, prefix %q: object %q, want %q", tc.workspace, tc.prefix, s.object, tc.want)
		}
	}
	t.Setenv("GOOGLE_STORAGE_CUSTOM_ENDPOINT", "http://127.0.0.1:1/storage/v1/")
	for _, env := range []string{"GOOGLE_BACKEND_IMPERSONATE_SERVICE_ACCOUNT", "GOOGLE_IMPERSONATE_SERVICE_ACCOUNT",
		"GOOGLE_ENCRYPTION_KEY"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "set")
			s := currentGCSState(&recordedBackend{Type: "gcs", Config: map[string]any{"bucket": "b"}})
			if s.endpoint != "http://127.0.0.1:1/storage/v1/" || s.heldTasks(t.Context()) != nil {
				t.Fatalf("endpoint %q, tasks %v; want the environment's endpoint, nothing read", s.endpoint, s.held)
			}
		})
	}
}

// Credentials are a key file's path or its contents, of a kind the backend
// takes; anything else is not read.
func TestGCSCredentials(t *testing.T) {
	path := t.TempDir() + "/key.json"
	key := `{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"}`
	if err := os.WriteFile(path, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{path, true},
		{`{"type":"service_account","client_email":"x@p.iam.gserviceaccount.com"}`, true},
		{`{"type":"something_new"}`, false},
		{"/no/such/file.json", false},
	} {
		if _, ok := gcsCredentials(tc.in); ok != tc.ok {
			t.Errorf("credentials %q: %v, want %v", tc.in, ok, tc.ok)
		}
	}
}
