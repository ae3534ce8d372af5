package mockapi

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDurationJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{`"2s"`, 2 * time.Second, false},
		{`"500ms"`, 500 * time.Millisecond, false},
		{`"1m30s"`, 90 * time.Second, false},
		{`3`, 3 * time.Second, false},
		{`0.25`, 250 * time.Millisecond, false},
		{`0`, 0, false},
		{`"2 seconds"`, 0, true},
		{`"2"`, 0, true},
		{`true`, 0, true},
		{`1e300`, 0, true},
	}
	for _, tt := range tests {
		var d Duration
		err := json.Unmarshal([]byte(tt.in), &d)
		if (err != nil) != tt.wantErr || (err == nil && time.Duration(d) != tt.want) {
			t.Errorf("Unmarshal(%s) = %s, %v; want %s, error %v", tt.in, d, err, tt.want, tt.wantErr)
		}
	}
	b, err := json.Marshal(struct{ D Duration }{Duration(1500 * time.Millisecond)})
	if err != nil || string(b) != `{"D":"1.5s"}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
}

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mock.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	t.Run("missing fields get defaults", func(t *testing.T) {
		t.Parallel()
		cfg, err := LoadConfig(writeConfig(t, `{"seed": 5, "rate_limit": {"requests_per_second": 2.5}}`))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Seed != 5 || len(cfg.Keys) != 1 || cfg.Keys[0].Key != DefaultAPIKey || len(cfg.Models) != 3 ||
			time.Duration(cfg.TaskDuration) != 2*time.Second || cfg.FailMarker != "[mock:fail]" || cfg.PricePerSecond != 1 ||
			cfg.Webhook.MaxAttempts != 5 || time.Duration(cfg.Webhook.InitialBackoff) != 200*time.Millisecond ||
			cfg.RateLimit.Burst != 3 {
			t.Errorf("config %+v", cfg)
		}
	})
	t.Run("explicit values kept", func(t *testing.T) {
		t.Parallel()
		cfg, err := LoadConfig(writeConfig(t, `{
			"keys": [{"key": "a", "allowed_models": ["m"], "balance": 0, "revoked": true}],
			"models": [{"id": "m", "max_seconds": 3}],
			"task_duration": 0, "url_ttl": "10m", "clip_bytes": 100000, "fault_rate": 0.1,
			"hold_tasks": true, "gateway_failures_after_submit": -1,
			"webhook": {"max_attempts": 2, "initial_backoff": "1s"}}`))
		if err != nil {
			t.Fatal(err)
		}
		k, m := cfg.Keys[0], cfg.Models[0]
		if k.Key != "a" || k.Balance == nil || *k.Balance != 0 || !k.Revoked || cfg.TaskDuration != 0 ||
			time.Duration(cfg.URLTTL) != 10*time.Minute || cfg.ClipBytes != 100000 || cfg.Webhook.MaxAttempts != 2 ||
			m.DefaultSeconds != 3 || strings.Join(m.Resolutions, ",") != "480p,720p,1080p" ||
			!cfg.HoldTasks || cfg.GatewayFailuresAfterSubmit != -1 {
			t.Errorf("config %+v", cfg)
		}
		if _, err := New(cfg); err != nil {
			t.Errorf("New: %v", err)
		}
	})
	for name, content := range map[string]string{
		"unknown field":        `{"seeed": 1}`,
		"unknown nested field": `{"keys": [{"key": "a", "budget": 3}]}`,
		"bad duration":         `{"task_duration": "soon"}`,
		"trailing data":        `{} {}`,
		"not JSON":             `seed = 1`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := LoadConfig(writeConfig(t, content)); err == nil {
				t.Errorf("LoadConfig(%s) succeeded", content)
			}
		})
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("LoadConfig of a missing file succeeded")
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"no keys", func(c *Config) { c.Keys = nil }, "at least one key"},
		{"no models", func(c *Config) { c.Models = nil }, "at least one model"},
		{"empty key", func(c *Config) { c.Keys[0].Key = "" }, "keys[0].key is empty"},
		{"duplicate key", func(c *Config) { c.Keys = append(c.Keys, Key{Key: DefaultAPIKey}) }, "duplicates"},
		{"allowed model unknown", func(c *Config) { c.Keys[0].AllowedModels = []string{"nope"} }, `"nope" is not in models`},
		{"negative balance", func(c *Config) { c.Keys[0].Balance = ptr[int64](-1) }, "balance"},
		{"duplicate model", func(c *Config) { c.Models = append(c.Models, Model{ID: "videogen-1"}) }, "duplicate"},
		{"empty model id", func(c *Config) { c.Models[0].ID = "" }, "id is empty"},
		{"bad resolution", func(c *Config) { c.Models[0].Resolutions = []string{"4k"} }, `"4k"`},
		{"default above max", func(c *Config) { c.Models[1].DefaultSeconds = 6 }, "default_seconds"},
		{"fault rate above 1", func(c *Config) { c.FaultRate = 1.5 }, "fault_rate"},
		{"fault rate negative", func(c *Config) { c.FaultRate = -0.1 }, "fault_rate"},
		{"fault rate NaN", func(c *Config) { c.FaultRate = math.NaN() }, "fault_rate"},
		{"failure rate", func(c *Config) { c.TaskFailureRate = 2 }, "task_failure_rate"},
		{"negative duration", func(c *Config) { c.TaskDuration = -1 }, "task_duration"},
		{"negative ttl", func(c *Config) { c.URLTTL = -1 }, "url_ttl"},
		{"negative rps", func(c *Config) { c.RateLimit.RequestsPerSecond = -1 }, "requests_per_second"},
		{"infinite rps", func(c *Config) { c.RateLimit.RequestsPerSecond = math.Inf(1) }, "requests_per_second"},
		{"negative price", func(c *Config) { c.PricePerSecond = -1 }, "price_per_second"},
		{"clip too small", func(c *Config) { c.ClipBytes = minClipSize - 1 }, "clip_bytes"},
		{"clip negative", func(c *Config) { c.ClipBytes = -1 }, "clip_bytes"},
		{"gateway failures below -1", func(c *Config) { c.GatewayFailuresAfterSubmit = -2 }, "gateway_failures_after_submit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			tt.mutate(&cfg)
			_, err := New(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v; want an error mentioning %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), DefaultAPIKey) {
				t.Errorf("error reveals the key: %v", err)
			}
		})
	}
	// The smallest clip is allowed.
	cfg := DefaultConfig()
	cfg.ClipBytes = minClipSize
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New with the smallest clip_bytes: %v", err)
	}
	srv.Close()
}

func TestNewCopiesConfig(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.TaskDuration = 0
	cfg.Keys = []Key{{Key: "k", Balance: ptr[int64](5)}}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	*cfg.Keys[0].Balance = 1000
	cfg.Keys[0].Key = "changed"
	cfg.Models[0].MaxSeconds = 1
	if srv.keys["k"] == nil || *srv.keys["k"].Balance != 5 || srv.models["videogen-1"].MaxSeconds != 10 {
		t.Error("the server shares memory with the caller's Config")
	}
}
