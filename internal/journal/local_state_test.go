package journal

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// stateFile writes a local state file whose videogen_video holds task, and a
// data source and another provider's resource that name other task IDs.
func stateFile(t *testing.T, path, task string) {
	t.Helper()
	data := `{"version":4,"resources":[
 {"mode":"managed","type":"videogen_video","name":"clip","instances":[{"attributes":{"task_id":"` + task + `"}}]},
 {"mode":"data","type":"videogen_video","name":"read","instances":[{"attributes":{"task_id":"data-task"}}]},
 {"mode":"managed","type":"other_video","name":"x","instances":[{"attributes":{"task_id":"other-task"}}]}]}`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A task the state's local file holds is removed when the journal would
// offer it (a targeted plan never reads the resource holding it); one it does
// not hold, and every task while the file cannot be parsed, is offered.
func TestJournalDoesNotOfferATaskTheLocalStateHolds(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "pending-tasks.json")
	runChildren(t, childSpec{Path: path, State: "prod", Name: "ended", Entries: 2, End: true})
	state := filepath.Join(dir, "terraform.tfstate")
	j := New(path, "prod", time.Hour)
	j.saved = &localState{path: state}
	offered := func() []string {
		t.Helper()
		got, err := j.Matching(ctx, "fp")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range got {
			ids = append(ids, m.TaskID)
		}
		return ids
	}
	if got := offered(); len(got) != 2 || !j.ReadsSavedState(ctx) {
		t.Fatalf("with no state file, Matching offers %v (state read: %v), want both tasks, read",
			got, j.ReadsSavedState(ctx))
	}
	if err := os.WriteFile(state, []byte(`{"version":4,"resources":[{"mode":"managed","type":"videogen_vi`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := offered(); len(got) != 2 || j.ReadsSavedState(ctx) {
		t.Fatalf("with a state file cut short, Matching offers %v (state read: %v), want both tasks, "+
			"the state unread (the plan says so)", got, j.ReadsSavedState(ctx))
	}
	stateFile(t, state, "ended-1")
	if got := offered(); len(got) != 1 || got[0] != "ended-0" {
		t.Fatalf("with ended-1 in the state, Matching offers %v, want ended-0 only", got)
	}
	// Removed, not only hidden: another run that cannot see the file no longer finds it.
	other := New(path, "prod", time.Hour)
	other.saved = &localState{}
	if got, err := other.Matching(ctx, "fp"); err != nil || len(got) != 1 || got[0].TaskID != "ended-0" {
		t.Fatalf("another run's Matching = %+v, %v; want ended-0 only", got, err)
	}
}

// The state file is found where the local backend keeps it: terraform.tfstate,
// a workspace's under terraform.tfstate.d, or the path and workspace_dir that
// init recorded; the pg backend's is its table, with the settings init
// recorded or the environment's; another remote backend has none.
func TestCurrentSavedState(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("TF_DATA_DIR", "")
	t.Setenv("TF_WORKSPACE", "")
	abs := func(p string) string { return filepath.Join(dir, p) }
	localPath := func() string {
		t.Helper()
		l, ok := currentSavedState().(*localState)
		if !ok {
			t.Fatalf("the saved state is %T, want a local file", currentSavedState())
		}
		return l.path
	}
	if got := localPath(); got != abs("terraform.tfstate") {
		t.Errorf("no backend recorded: %q", got)
	}
	t.Setenv("TF_WORKSPACE", "blue")
	if got := localPath(); got != abs("terraform.tfstate.d/blue/terraform.tfstate") {
		t.Errorf("workspace blue: %q", got)
	}
	if err := os.MkdirAll(".terraform", 0o700); err != nil {
		t.Fatal(err)
	}
	record := func(s string) {
		if err := os.WriteFile(".terraform/terraform.tfstate", []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	record(`{"backend":{"type":"local","config":{"path":"s/x.tfstate","workspace_dir":"ws"}}}`)
	if got := localPath(); got != abs("ws/blue/terraform.tfstate") {
		t.Errorf("local backend, workspace blue: %q", got)
	}
	t.Setenv("TF_WORKSPACE", "")
	if got := localPath(); got != abs("s/x.tfstate") {
		t.Errorf("local backend with a path: %q", got)
	}
	t.Setenv("PG_CONN_STR", "postgres://from-env/db")
	t.Setenv("PG_SCHEMA_NAME", "")
	record(`{"backend":{"type":"pg","config":{"conn_str":null,"schema_name":null}}}`)
	if pg, ok := currentSavedState().(*pgState); !ok || pg.connStr != "postgres://from-env/db" ||
		pg.schema != "terraform_remote_state" || pg.workspace != "default" {
		t.Errorf("pg backend set by the environment: %+v", currentSavedState())
	}
	t.Setenv("TF_WORKSPACE", "blue")
	record(`{"backend":{"type":"pg","config":{"conn_str":"postgres://recorded/db","schema_name":"tf"}}}`)
	if pg, ok := currentSavedState().(*pgState); !ok || pg.connStr != "postgres://recorded/db" || pg.schema != "tf" ||
		pg.workspace != "blue" {
		t.Errorf("pg backend recorded with its settings, workspace blue: %+v", currentSavedState())
	}
	record(`{"backend":{"type":"s3","config":{"bucket":"b","key":"k"}}}`)
	if s3, ok := currentSavedState().(*s3State); !ok || s3.bucket != "b" || s3.key != "env:/blue/k" {
		t.Errorf("s3 backend, workspace blue: %+v", currentSavedState())
	}
	record(`{"backend":{"type":"gcs","config":{"bucket":"b","prefix":"/p","kms_encryption_key":null}}}`)
	if gcs, ok := currentSavedState().(*gcsState); !ok || gcs.bucket != "b" || gcs.object != "p/blue.tfstate" {
		t.Errorf("gcs backend, workspace blue: %+v", currentSavedState())
	}
	record(`{"backend":{"type":"http","config":{"address":"http://127.0.0.1:1/s","retry_max":null}}}`)
	if h, ok := currentSavedState().(*httpState); !ok || h.address != "http://127.0.0.1:1/s" {
		t.Errorf("http backend: %+v", currentSavedState())
	}
	// A setting the reader does not follow, set: the backend is not read.
	for _, rec := range []string{
		`{"backend":{"type":"s3","config":{"bucket":"b","key":"k","assume_role":{"role_arn":"arn:aws:iam::1:role/r"}}}}`,
		`{"backend":{"type":"s3","config":{"bucket":"b","key":"k","role_arn":"arn:aws:iam::1:role/r"}}}`,
		`{"backend":{"type":"gcs","config":{"bucket":"b","impersonate_service_account":"sa@p.iam.gserviceaccount.com"}}}`,
		`{"backend":{"type":"gcs","config":{"bucket":"b","universe_domain":"example.com"}}}`,
		`{"backend":{"type":"http","config":{"address":"http://127.0.0.1:1/s","a_setting_of_a_newer_cli":true}}}`,
		`{"backend":{"type":"azurerm","config":{"storage_account_name":"a"}}}`,
		`{"backend":{"type":"consul","config":{"path":"p"}}}`,
	} {
		record(rec)
		if got := currentSavedState(); got != nil {
			t.Errorf("%s: %+v, want none", rec, got)
		}
	}
}
