package main

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// The sample config beside the mock loads, names every setting a config file
// can hold (so that it documents them all, and a new one is added to it), and
// its models publish their limits in the model list.
func TestSampleConfig(t *testing.T) {
	t.Parallel()
	const sample = "sample-config.json"
	cfg, err := mockapi.LoadConfig(sample)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mockapi.New(cfg); err != nil {
		t.Fatalf("a mock with the sample config: %v", err)
	}
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		t.Fatal(err)
	}
	ct := reflect.TypeFor[mockapi.Config]()
	for i := range ct.NumField() {
		name, _, _ := strings.Cut(ct.Field(i).Tag.Get("json"), ",")
		if name == "-" || name == "" {
			continue
		}
		if _, ok := members[name]; !ok {
			t.Errorf("%s does not show the setting %q", sample, name)
		}
	}
	for _, m := range cfg.Models {
		if _, ok := m.Record["max_seconds"]; !ok {
			t.Errorf("model %s publishes no max_seconds", m.ID)
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), sample) {
		t.Errorf("README.md does not point at %s", sample)
	}
}

func TestStateFlag(t *testing.T) {
	t.Parallel()
	o, err := parseFlags([]string{"-state", "tasks.json"}, &syncBuffer{})
	if err != nil || o.cfg.StateFile != "tasks.json" {
		t.Errorf("-state tasks.json: state file %q, error %v", o.cfg.StateFile, err)
	}
}
