package journal

import (
	"os"
	"path/filepath"
	"testing"
)

// CurrentState tells apart the workspaces of a directory and the directories
// with local state, and names one state for every runner of one remote backend.
func TestCurrentStateNamesWorkspaceAndBackend(t *testing.T) {
	t.Setenv("TF_DATA_DIR", "")
	t.Setenv("TF_WORKSPACE", "")
	dirA, dirB := t.TempDir(), t.TempDir()
	in := func(dir string) string {
		t.Helper()
		t.Chdir(dir)
		return CurrentState()
	}
	localA, localB := in(dirA), in(dirB)
	if localA == localB {
		t.Error("two directories with local state name the same state")
	}
	t.Setenv("TF_WORKSPACE", "blue")
	if in(dirA) == localA {
		t.Error("TF_WORKSPACE does not change the state")
	}
	t.Setenv("TF_WORKSPACE", "")
	if err := os.WriteFile(filepath.Join(dirA, ".terraform", "environment"), []byte("green"), 0o600); err == nil {
		t.Fatal(".terraform should not exist yet")
	}
	for _, dir := range []string{dirA, dirB} {
		if err := os.MkdirAll(filepath.Join(dir, ".terraform"), 0o700); err != nil {
			t.Fatal(err)
		}
		backend := `{"version": 3, "backend": {"type": "pg", "config": {"schema_name": "ci", "conn_str": null}, "hash": 1}}`
		if err := os.WriteFile(filepath.Join(dir, ".terraform", "terraform.tfstate"), []byte(backend), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	remoteA, remoteB := in(dirA), in(dirB)
	if remoteA != remoteB || remoteA == localA {
		t.Errorf("two runners of one backend: %s and %s, want one state (and not the local one, %s)", remoteA, remoteB, localA)
	}
	if err := os.WriteFile(filepath.Join(dirA, ".terraform", "environment"), []byte("green\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if in(dirA) == remoteA {
		t.Error("the selected workspace does not change the state")
	}
}

// The state's name holds no secret of the backend: settings that differ only in
// a password (a setting so named, or inside pg's conn_str as a URL or as
// keyword=value words) name one state, and any other setting tells states apart.
func TestCurrentStateLeavesSecretsOut(t *testing.T) {
	t.Setenv("TF_DATA_DIR", "")
	t.Setenv("TF_WORKSPACE", "")
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join(dir, ".terraform"), 0o700); err != nil {
		t.Fatal(err)
	}
	stateOf := func(typ, config string) string {
		t.Helper()
		backend := `{"version": 3, "backend": {"type": "` + typ + `", "config": ` + config + `, "hash": 1}}`
		if err := os.WriteFile(filepath.Join(dir, ".terraform", "terraform.tfstate"), []byte(backend), 0o600); err != nil {
			t.Fatal(err)
		}
		return CurrentState()
	}
	for _, tc := range []struct{ typ, a, b, other string }{
		{"pg", `{"conn_str": "postgres://ci:first@db.example/tf?sslmode=disable"}`,
			`{"conn_str": "postgres://ci:second@db.example/tf?sslmode=disable"}`,
			`{"conn_str": "postgres://ci:first@db2.example/tf?sslmode=disable"}`},
		{"pg", `{"conn_str": "postgres://ci@db.example/tf?password=first&sslpassword=k1"}`,
			`{"conn_str": "postgres://ci@db.example/tf?password=second&sslpassword=k2"}`,
			`{"conn_str": "postgres://ci@db.example/other?password=first&sslpassword=k1"}`},
		{"pg", `{"conn_str": "host=db.example dbname=tf password=first"}`,
			`{"conn_str": "host=db.example dbname=tf password='sec ond'"}`,
			`{"conn_str": "host=db.example dbname=prod password=first"}`},
		{"http", `{"address": "https://state.example/a", "password": "first"}`,
			`{"address": "https://state.example/a", "password": "second"}`,
			`{"address": "https://state.example/b", "password": "first"}`},
		{"s3", `{"bucket": "b", "key": "k", "secret_key": "first", "token": "t1", "assume_role": [{"role_arn": "r", "session_token": "x"}]}`,
			`{"bucket": "b", "key": "k", "secret_key": "second", "token": "t2", "assume_role": [{"role_arn": "r", "session_token": "y"}]}`,
			`{"bucket": "b", "key": "k2", "secret_key": "first", "token": "t1", "assume_role": [{"role_arn": "r", "session_token": "x"}]}`},
	} {
		a, b, other := stateOf(tc.typ, tc.a), stateOf(tc.typ, tc.b), stateOf(tc.typ, tc.other)
		if a != b {
			t.Errorf("%s: settings that differ only in a secret name two states:\n  %s\n  %s", tc.typ, tc.a, tc.b)
		}
		if a == other {
			t.Errorf("%s: settings that differ beyond a secret name one state:\n  %s\n  %s", tc.typ, tc.a, tc.other)
		}
	}
}
