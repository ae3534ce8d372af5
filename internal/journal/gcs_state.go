package journal

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"strings"

	"cloud.google.com/go/storage"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"
)

// gcsSettings are the gcs backend's settings its reader follows or that do
// not change a read: a Cloud KMS key decrypts on the server's side, and
// delegates matter only to a service account impersonated, which is not.
var gcsSettings = []string{
	"bucket", "prefix", "credentials", "access_token", "storage_custom_endpoint",
	"kms_encryption_key", "impersonate_service_account_delegates",
}

// gcsState is the savedState of a state Terraform's gcs backend keeps: the
// object <prefix>/<workspace>.tfstate of its bucket, read once, the first
// time the journal offers a task, as the backend reaches it: its
// storage_custom_endpoint, its access_token, else its credentials (a key
// file's path or contents), else the Application Default Credentials, each
// from the block or the environment variable the backend reads in its place.
// A service account it impersonates or a customer-supplied key it decrypts
// with (set in the environment; set in the block, the backend is not read at
// all) is not followed: then nothing is read. Nothing it reads or is given is
// ever shown or logged.
type gcsState struct {
	bucket, object, endpoint string
	accessToken, credentials string
	// unfollowed: the environment sets what the reader does not follow.
	unfollowed bool

	readOnce
}

// currentGCSState is the gcs backend b's state of the current workspace.
func currentGCSState(b *recordedBackend) *gcsState {
	s := &gcsState{
		bucket:      b.setting("bucket"),
		endpoint:    b.settingOrEnv("storage_custom_endpoint", "GOOGLE_BACKEND_STORAGE_CUSTOM_ENDPOINT", "GOOGLE_STORAGE_CUSTOM_ENDPOINT"),
		accessToken: b.settingOrEnv("access_token", "GOOGLE_OAUTH_ACCESS_TOKEN"),
		credentials: b.settingOrEnv("credentials", "GOOGLE_BACKEND_CREDENTIALS", "GOOGLE_CREDENTIALS"),
	}
	for _, env := range []string{"GOOGLE_BACKEND_IMPERSONATE_SERVICE_ACCOUNT", "GOOGLE_IMPERSONATE_SERVICE_ACCOUNT",
		"GOOGLE_ENCRYPTION_KEY"} {
		if os.Getenv(env) != "" {
			s.unfollowed = true
		}
	}
	// As the backend names the object: its prefix without a leading slash,
	// then <workspace>.tfstate.
	s.object = path.Join(strings.TrimLeft(b.setting("prefix"), "/"), workspace()+".tfstate")
	return s
}

func (s *gcsState) heldTasks(ctx context.Context) map[string]bool { return s.get(ctx, s.read) }

// read returns the tasks of the saved state; nil when it cannot tell.
func (s *gcsState) read(ctx context.Context) map[string]bool {
	if s.bucket == "" || s.unfollowed {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, stateReadTimeout)
	defer cancel()
	var opts []option.ClientOption
	switch {
	case s.accessToken != "":
		opts = append(opts, option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: s.accessToken})))
	case s.credentials != "":
		o, ok := gcsCredentials(s.credentials)
		if !ok {
			return nil
		}
		opts = append(opts, o)
	}
	if s.endpoint != "" {
		opts = append(opts, option.WithEndpoint(s.endpoint))
	}
	client, err := storage.NewClient(ctx, opts...)
	if err != nil {
		return nil
	}
	defer func() { _ = client.Close() }()
	r, err := client.Bucket(s.bucket).Object(s.object).NewReader(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		// No state saved yet in this workspace: it holds nothing.
		return map[string]bool{}
	}
	if err != nil {
		return nil
	}
	defer func() { _ = r.Close() }()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil
	}
	return stateTasks(data)
}

// gcsCredentials is the client option of the backend's credentials: a key
// file's path, or its contents, as the backend takes them; false for
// credentials it cannot read or whose kind it does not know.
func gcsCredentials(pathOrContents string) (option.ClientOption, bool) {
	data := []byte(pathOrContents)
	if p := expandHome(pathOrContents); isFile(p) {
		var err error
		//nolint:gosec // G304: the key file the backend's own settings name
		if data, err = os.ReadFile(p); err != nil {
			return nil, false
		}
	}
	var key struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &key) != nil {
		return nil, false
	}
	kinds := map[string]option.CredentialsType{
		"service_account":              option.ServiceAccount,
		"authorized_user":              option.AuthorizedUser,
		"impersonated_service_account": option.ImpersonatedServiceAccount,
		"external_account":             option.ExternalAccount,
	}
	kind, ok := kinds[key.Type]
	if !ok {
		return nil, false
	}
	return option.WithAuthCredentialsJSON(kind, data), true
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
