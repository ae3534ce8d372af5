package mockapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A mock restarted with the same state file answers for every task as before,
// and its ledger (tasks, request and response counts, webhooks) is the one it
// had: a finished, billed task; a failed one; a held one, still held; a
// deleted one; and a key's balance, drawn on and not refilled.
func TestStateFileKeepsTasksAcrossRestarts(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "mock-state.json")
	cfg := testConfig()
	cfg.TaskDuration = 0
	cfg.StateFile = state
	cfg.Keys = []Key{{Key: DefaultAPIKey, Balance: ptr(int64(100))}}

	first, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(first)
	done := submit(t, ts, `{"model":"videogen-1","prompt":"a finished clip","seconds":"4"}`)
	failed := submit(t, ts, `{"model":"videogen-1","prompt":"[mock:fail] a failed clip"}`)
	held := submit(t, ts, `{"model":"videogen-2","prompt":"[mock:hold] a held clip"}`)
	gone := submit(t, ts, `{"model":"videogen-1","prompt":"a deleted clip"}`)
	getTask(t, ts, done)
	getTask(t, ts, failed)
	first.DeleteTask(gone)
	ts.Close()
	first.Close()
	before := first.Ledger()
	if err := first.StateError(); err != nil {
		t.Fatal(err)
	}
	if len(before.Tasks) != 4 {
		t.Fatalf("the first mock has %d tasks, want 4", len(before.Tasks))
	}
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), DefaultAPIKey) {
		t.Error("the state file holds the API key itself")
	}

	second, err := New(cfg)
	if err != nil {
		t.Fatalf("restarting with the state file: %v", err)
	}
	t.Cleanup(second.Close)
	after := second.Ledger()
	if !ledgersEqual(t, before, after) {
		t.Errorf("the ledger changed across the restart:\nbefore %+v\nafter  %+v", before, after)
	}
	ts2 := httptest.NewServer(second)
	t.Cleanup(ts2.Close)
	if got := getTask(t, ts2, done); got.Status != statusSucceeded || got.URL == "" {
		t.Errorf("the finished task after the restart: %+v", got)
	}
	if got := getTask(t, ts2, failed); got.Status != statusFailed {
		t.Errorf("the failed task after the restart: %+v", got)
	}
	if res := do(t, ts2, http.MethodGet, "/v1/video/generations/"+gone, DefaultAPIKey, ""); res.status != http.StatusNotFound {
		t.Errorf("the deleted task after the restart: status %d", res.status)
	}
	if !second.FinishTask(held) {
		t.Fatal("the held task cannot be released after the restart")
	}
	if got := getTask(t, ts2, held); got.Status != statusSucceeded {
		t.Errorf("the held task, released after the restart: %+v", got)
	}
	// The balance went on from what the first mock left: 100 - 4 (the first
	// clip) - 5 (videogen-2's default length) - 5 (the deleted clip, billed
	// before its deletion).
	if got := *second.keys[DefaultAPIKey].Balance; got != 100-4-5-5 {
		t.Errorf("balance after the restart and one more clip = %d, want %d", got, 100-4-5-5)
	}
}

// ledgersEqual compares two ledgers as their JSON: times lose their monotonic
// reading on the way through the file, which is no difference.
func ledgersEqual(t *testing.T, a, b Ledger) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

func TestStateFileOfAnotherVersionIsRefused(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "mock-state.json")
	if err := os.WriteFile(state, []byte(`{"version": 99, "tasks": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.StateFile = state
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("New with a state file of version 99: %v", err)
	}
}
