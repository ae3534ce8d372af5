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
